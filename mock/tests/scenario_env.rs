//! `ZEKIT_MOCK_SCENARIO`: one test, since it changes the process environment.

use zekit_mock::scenario::{Scenario, ENV_VAR};
use zekit_mock::script::Script;
use zekit_sys::*;

#[test]
fn scenario_from_the_environment() {
    std::env::remove_var(ENV_VAR);
    assert_eq!(Scenario::from_env(), Ok(None));
    std::env::set_var(ENV_VAR, "");
    assert_eq!(Scenario::from_env(), Ok(None));

    std::env::set_var(ENV_VAR, "/nonexistent/dir/scenario.yml");
    let err = Scenario::from_env().unwrap_err();
    assert!(
        err.starts_with("ZEKIT_MOCK_SCENARIO: cannot read scenario file"),
        "{err}"
    );
    assert!(err.contains("/nonexistent/dir/scenario.yml"), "{err}");
    assert!(Scenario::apply_from_env(&Script::new()).is_err());

    let dir = std::env::temp_dir().join(format!("zekit-mock-env-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.yml");
    std::fs::write(
        &path,
        "results: [ { function: zeInit, result: ZE_RESULT_ERROR_UNINITIALIZED } ]\n",
    )
    .unwrap();
    std::env::set_var(ENV_VAR, &path);
    let sc = Scenario::from_env().unwrap().unwrap();
    assert_eq!(sc.results.len(), 1);
    let s = Script::new();
    assert_eq!(Scenario::apply_from_env(&s), Ok(true));
    let none = || Vec::new();
    assert_eq!(
        s.invoke("zeInit", &none, || ZE_RESULT_SUCCESS),
        ZE_RESULT_ERROR_UNINITIALIZED
    );

    std::fs::write(&path, "results: [ { function: zeInit, reslt: 1 } ]\n").unwrap();
    let err = Scenario::from_env().unwrap_err();
    assert!(err.contains("s.yml") && err.contains("`reslt`"), "{err}");
    std::env::remove_var(ENV_VAR);
    std::fs::remove_dir_all(&dir).unwrap();
}
