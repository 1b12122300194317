//! The mock through Debian's Level Zero loader: C programs (tests/c/) compiled against
//! zekit's headers, run with `ZE_ENABLE_ALT_DRIVERS=…/libze_zekit_mock.so`.

use std::path::{Path, PathBuf};
use std::process::Output;

use zekit_mock::profile::Profile;
use zekit_sys::*;
use zekit_testkit as tk;

fn source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/c")
        .join(format!("{name}.c"))
}

/// The mock library this test run built. `cargo test` refreshes `target/<profile>/deps/` but
/// only `cargo build` copies the library up to `target/<profile>/`: take the newer of the two.
fn mock_so() -> PathBuf {
    let found = tk::icd("ze_zekit_mock");
    let deps = tk::target_dir().join("deps/libze_zekit_mock.so");
    let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (mtime(&found), mtime(&deps)) {
        (Some(a), Some(b)) if b > a => deps,
        _ => found,
    }
}

/// Compiles tests/c/`program`.c as `exe` (unique per test: tests run in parallel).
fn build(program: &str, exe: &str, extra: &[&str]) -> PathBuf {
    tk::require_loader();
    tk::compile_c(exe, &[&source(program)], extra)
}

fn run(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let so = mock_so();
    let mut cmd = tk::loader_command(exe, &[&so]);
    cmd.args(args)
        .env_remove("ZEKIT_MOCK_SCENARIO")
        .env_remove("ZE_ENABLE_VALIDATION_LAYER");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run test program")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Writes `text` to `name` in the test's scratch directory.
fn scratch_file(test: &str, name: &str, text: &str) -> PathBuf {
    let p = tk::scratch(test).join(name);
    std::fs::write(&p, text).expect("write scratch file");
    p
}

fn line<'a>(stdout: &'a str, key: &str) -> &'a str {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
        .unwrap_or_else(|| panic!("no `{key}=` line in:\n{stdout}"))
}

#[test]
fn discovery_and_properties_come_from_the_profile() {
    let exe = build("discovery", "mock-discovery", &[]);
    let out = run(&exe, &[], &[]);
    let s = tk::expect_success("discovery", &out);
    let p = Profile::default();
    assert_eq!(line(&s, "device.name"), p.device.name);
    assert_eq!(
        line(&s, "device.vendorId"),
        format!("{:#x}", p.device.vendor_id)
    );
    assert_eq!(
        line(&s, "device.deviceId"),
        format!("{:#x}", p.device.device_id)
    );
    assert_eq!(line(&s, "device.type"), p.device.device_type.0.to_string());
    assert_eq!(line(&s, "device.eus"), p.eu_count().to_string());
    assert_eq!(
        line(&s, "device.maxMemAllocSize"),
        p.device.max_mem_alloc_size.to_string()
    );
    assert_eq!(
        line(&s, "compute.maxTotalGroupSize"),
        p.compute.max_total_group_size.to_string()
    );
    assert_eq!(
        line(&s, "memory[0]"),
        format!("{} {}", p.memory[0].name, p.memory[0].total_size)
    );
    assert_eq!(line(&s, "cache[0]"), p.caches[0].cache_size.to_string());
    assert_eq!(
        line(&s, "group[1]"),
        format!(
            "flags {:#x} queues {} fill {}",
            p.command_queue_groups[1].flags.0,
            p.command_queue_groups[1].num_queues,
            p.command_queue_groups[1].max_memory_fill_pattern_size
        )
    );
    assert_eq!(line(&s, "access.host"), "0xf");
    assert_eq!(line(&s, "module.spirv"), "1.2");
    assert_eq!(line(&s, "subdevices"), "0");
    assert_eq!(line(&s, "extension"), "ZE_extension_driver_ddi_handles 1.1");

    // A scenario's profile changes what the same program sees.
    let scenario = scratch_file(
        "mock-discovery",
        "profile.yml",
        "profile:\n  device: { name: Scenario GPU, deviceId: 0x4242 }\n  memory:\n    - { name: GDDR, totalSize: 2 GiB }\n  module: { spirvVersionSupported: \"1.5\" }\n",
    );
    let out = run(
        &exe,
        &[],
        &[("ZEKIT_MOCK_SCENARIO", scenario.to_str().unwrap())],
    );
    let s = tk::expect_success("discovery with a profile", &out);
    assert_eq!(line(&s, "device.name"), "Scenario GPU");
    assert_eq!(line(&s, "device.deviceId"), "0x4242");
    assert_eq!(line(&s, "memory[0]"), format!("GDDR {}", 2u64 << 30));
    assert_eq!(line(&s, "module.spirv"), "1.5");
    assert_eq!(
        line(&s, "device.vendorId"),
        "0x8086",
        "other keys keep their defaults"
    );
}

#[test]
fn contexts_allocations_copy_and_fill() {
    let exe = build("copy", "mock-copy", &[]);
    let out = run(&exe, &[], &[]);
    let s = tk::expect_success("copy", &out);
    assert!(s.contains("copy ok"), "{s}");
    assert_eq!(stderr(&out), "", "a valid program makes no noise");
}

#[test]
fn fault_injection_from_a_scenario_file_and_the_call_log_at_exit() {
    let exe = build("fault", "mock-fault", &[]);
    let dir = tk::scratch("mock-fault");
    let log = dir.join("calls.txt");
    let _ = std::fs::remove_file(&log);
    let scenario = scratch_file(
        "mock-fault",
        "scenario.yml",
        "results:\n  - { function: zeMemAllocDevice, nth: 2, result: ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY }\n\
         expect:\n  - { function: zeMemFree, times: 3 }\n\
         log: calls.txt\n",
    );
    let out = run(
        &exe,
        &["4"],
        &[("ZEKIT_MOCK_SCENARIO", scenario.to_str().unwrap())],
    );
    let s = tk::expect_success("fault", &out);
    let oom = ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY.0;
    assert_eq!(
        s,
        format!("alloc 1: 0x0\nalloc 2: {oom:#x}\nalloc 3: 0x0\nalloc 4: 0x0\n")
    );

    // The scenario's log is written when the mock is unloaded at exit.
    let text = std::fs::read_to_string(&log).expect("the call log was written at exit");
    let allocs: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" zeMemAllocDevice("))
        .collect();
    assert_eq!(allocs.len(), 4, "{text}");
    assert!(
        allocs[1].ends_with("-> ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY"),
        "{text}"
    );
    assert!(allocs[1].contains("size=1024"), "{text}");
    assert!(allocs[0].ends_with("-> ZE_RESULT_SUCCESS"), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.contains(" zeMemFree(")).count(),
        3
    );
    // Lines are numbered in call order from #1.
    assert!(text.starts_with("#1 "), "{text}");
    let first_context = text.find("zeContextCreate(").unwrap();
    assert!(first_context < text.find("zeMemAllocDevice(").unwrap());
}

#[test]
fn an_invalid_scenario_is_reported_and_the_mock_runs_without_it() {
    let exe = build("fault", "mock-fault-bad-scenario", &[]);
    let scenario = scratch_file(
        "mock-fault-bad-scenario",
        "scenario.yml",
        "results:\n  - { function: zeMemAllocDevcie, nth: 1, result: ZE_RESULT_ERROR_DEVICE_LOST }\n",
    );
    let out = run(
        &exe,
        &["2"],
        &[("ZEKIT_MOCK_SCENARIO", scenario.to_str().unwrap())],
    );
    let s = tk::expect_success("fault with a bad scenario", &out);
    assert_eq!(s, "alloc 1: 0x0\nalloc 2: 0x0\n");
    let err = stderr(&out);
    assert_eq!(
        err.lines()
            .filter(|l| l.starts_with("zekit-mock: error:"))
            .count(),
        1,
        "{err}"
    );
    assert!(err.contains("ZEKIT_MOCK_SCENARIO"), "{err}");
    assert!(err.contains("scenario.yml"), "{err}");
    assert!(err.contains("did you mean `zeMemAllocDevice`?"), "{err}");
    assert!(err.contains("continuing without the scenario"), "{err}");
}

fn check_control(exe_name: &str, extra: &[&str]) {
    let exe = build("control", exe_name, extra);
    let scenario = scratch_file(
        exe_name,
        "expect.yml",
        "expect:\n  - { function: zeMemFree, times: 2 }\n",
    );
    let log = tk::scratch(exe_name).join("log.txt");
    let _ = std::fs::remove_file(&log);
    let out = run(
        &exe,
        &[scenario.to_str().unwrap(), log.to_str().unwrap()],
        &[],
    );
    let s = tk::expect_success(exe_name, &out);
    assert!(
        s.contains("verify before: zeMemFree: expected exactly 2 calls, got 0 calls"),
        "{s}"
    );
    assert!(s.contains("control ok"), "{s}");
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // After zekitMockReset, numbering restarts: context, 3 allocations, 2 frees, destroy.
    let names: Vec<&str> = lines
        .iter()
        .map(|l| l.split_once(' ').unwrap().1.split('(').next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "zeContextCreate",
            "zeMemAllocHost",
            "zeMemAllocHost",
            "zeMemAllocHost",
            "zeMemFree",
            "zeMemFree",
            "zeContextDestroy"
        ],
        "{text}"
    );
    assert!(lines[0].starts_with("#1 "));
    assert!(lines[2].ends_with("-> ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY"));
    // Bad arguments are reported, not crashed on.
    let err = stderr(&out);
    assert!(
        err.contains("zekitMockSetResult: not a Level Zero function"),
        "{err}"
    );
    assert!(
        err.contains("zekitMockLoadScenario: cannot read scenario file"),
        "{err}"
    );
}

#[test]
fn the_control_api_from_c_by_dlsym() {
    check_control("mock-control-dlsym", &[]);
}

#[test]
fn the_control_api_from_c_by_linking_the_mock() {
    let dir = mock_so().parent().unwrap().display().to_string();
    check_control(
        "mock-control-linked",
        &[
            "-DZEKIT_MOCK_LINKED",
            "-L",
            &dir,
            "-lze_zekit_mock",
            &format!("-Wl,-rpath,{dir}"),
        ],
    );
}

#[test]
fn the_validation_layer_reports_nothing_for_valid_calls() {
    let layer = [
        ("ZE_ENABLE_VALIDATION_LAYER", "1"),
        ("ZE_ENABLE_PARAMETER_VALIDATION", "1"),
        ("ZE_ENABLE_HANDLE_LIFETIME", "1"),
    ];
    let exe = build("copy", "mock-copy-validated", &[]);
    let out = run(&exe, &[], &layer);
    let s = tk::expect_success("copy under the validation layer", &out);
    assert!(s.contains("copy ok"), "{s}");
    assert_eq!(stderr(&out), "", "the layer and the mock report nothing");

    // The layer is really there: it answers an invalid call before the mock sees it.
    let exe = build("invalid", "mock-invalid-validated", &[]);
    let log = tk::scratch("mock-invalid-validated").join("calls.txt");
    let _ = std::fs::remove_file(&log);
    let scenario = scratch_file(
        "mock-invalid-validated",
        "log.yml",
        &format!("log: {}\n", log.display()),
    );
    let mut env = layer.to_vec();
    env.push(("ZEKIT_MOCK_SCENARIO", scenario.to_str().unwrap()));
    let out = run(&exe, &[], &env);
    let s = tk::expect_success("invalid call under the validation layer", &out);
    assert_eq!(
        s,
        format!("invalid: {:#x}\n", ZE_RESULT_ERROR_INVALID_NULL_POINTER.0)
    );
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("zeContextCreate("), "{text}");
    assert!(
        !text.contains("zeMemAllocHost("),
        "the layer stopped it:\n{text}"
    );
}

/// `tests/c/kernels.c`, linked against the mock and exporting its callback (`-rdynamic`).
fn build_kernels(exe: &str) -> PathBuf {
    let dir = mock_so().parent().unwrap().display().to_string();
    build(
        "kernels",
        exe,
        &[
            "-rdynamic",
            "-L",
            &dir,
            "-lze_zekit_mock",
            &format!("-Wl,-rpath,{dir}"),
        ],
    )
}

fn vector_add_spv() -> String {
    format!(
        "{}/../../spirv/kernels/vector_add.spv",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn a_c_kernel_callback_through_the_control_api() {
    let exe = build_kernels("mock-kernels-control");
    let out = run(&exe, &[&vector_add_spv(), "control"], &[]);
    let s = tk::expect_success("kernels (control)", &out);
    assert!(s.contains("kernels ok (control)"), "{s}");
}

#[test]
fn a_c_kernel_callback_named_by_a_scenario_file() {
    let exe = build_kernels("mock-kernels-scenario");
    let scenario = scratch_file(
        "mock-kernels-scenario",
        "scenario.yml",
        "kernels:\n  vector_add: c_vector_add\n",
    );
    let out = run(
        &exe,
        &[&vector_add_spv(), "scenario"],
        &[("ZEKIT_MOCK_SCENARIO", scenario.to_str().unwrap())],
    );
    let s = tk::expect_success("kernels (scenario)", &out);
    assert!(s.contains("kernels ok (scenario)"), "{s}");
    // A symbol the program does not export makes the scenario invalid (and so ignored).
    let bad = scratch_file(
        "mock-kernels-scenario",
        "bad.yml",
        "kernels:\n  vector_add: no_such_callback\n",
    );
    let out = run(
        &exe,
        &[&vector_add_spv(), "scenario"],
        &[("ZEKIT_MOCK_SCENARIO", bad.to_str().unwrap())],
    );
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("the process exports no function `no_such_callback`"),
        "{err}"
    );
}

#[test]
fn defaults_a_caller_divides_by_or_destroys_in_tear_down() {
    let exe = build("defaults", "mock-defaults", &[]);
    let spv = format!("{}/../../spirv/kernels/images.spv", env!("CARGO_MANIFEST_DIR"));
    let out = run(&exe, &[&spv], &[]);
    let s = tk::expect_success("defaults", &out);
    assert!(s.contains("defaults ok"), "{s}");
    assert_eq!(line(&s, "pagesize(4096)"), "65536");
    assert_eq!(line(&s, "pagesize(1073741824)"), "2097152");
}
