//! The scenario example in `mock/README.md` parses and applies.

use zekit_mock::{Scenario, Script};

#[test]
fn readme_scenario_example_is_valid() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("The scenario file").expect("mock/README.md has the scenario section");
    let block = readme[start..].split("```yaml\n").nth(1).and_then(|b| b.split("```").next()).expect("yaml block");
    let scenario = Scenario::from_yaml(block).unwrap_or_else(|e| panic!("README scenario does not parse: {e}"));
    let script = Script::new();
    scenario.apply(&script);
    assert!(script.verify().is_err(), "the example expects calls nobody made");
}
