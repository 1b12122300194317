//! The global script writes its call log at process exit: checked in a child process.

use std::process::Command;

use zekit_sys::*;

const CHILD: &str = "ZEKIT_MOCK_TEST_EXIT_LOG";

#[test]
fn global_log_is_written_at_exit() {
    if let Some(path) = std::env::var_os(CHILD) {
        // Child: program the global script, make calls, and just return.
        let s = zekit_mock::script();
        s.set_log_path(Some(path.into()));
        s.on("zeMemAllocHost")
            .nth(2)
            .returns(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
        for size in ["32", "64"] {
            let render = move || vec![("size".to_string(), size.to_string())];
            s.invoke("zeMemAllocHost", &render, || ZE_RESULT_SUCCESS);
        }
        return;
    }
    let dir = std::env::temp_dir().join(format!("zekit-mock-exit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("calls.txt");
    let status = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "global_log_is_written_at_exit",
            "--test-threads=1",
        ])
        .env(CHILD, &log)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "#1 zeMemAllocHost(size=32) -> ZE_RESULT_SUCCESS\n\
         #2 zeMemAllocHost(size=64) -> ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
