//! The example's binary (`Api::load()`) through Debian's loader on zekit's CPU driver: device
//! names, the round trip and the saxpy kernel, the same library code the unit tests run on
//! the mock.

#[test]
fn the_binary_runs_on_the_cpu_driver_through_the_loader() {
    zekit_testkit::require_loader();
    let icd = zekit_testkit::icd("ze_zekit_cpu");
    let lib = zekit_testkit::loader_lib_dir().expect("the loader's folder");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_zekit-example"))
        .env("LD_LIBRARY_PATH", &lib)
        .env("ZE_ENABLE_ALT_DRIVERS", &icd)
        .env("ZEKIT_LOG", "0")
        .output()
        .expect("run zekit-example");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "zekit-example failed:\n{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("device: zekit CPU"), "{stdout}");
    assert!(stdout.contains("round trip: 4096 bytes ok"), "{stdout}");
    assert!(stdout.contains("saxpy: 1000 elements ok"), "{stdout}");
}
