//! Every scenario shipped in scenarios/ builds: parsed and set up by the build its
//! `dimension` names, as `talus run FILE` would before its first step (so a key renamed or
//! a check tightened cannot leave a shipped file broken).
use std::path::Path;

#[test]
fn every_shipped_scenario_builds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "{} scenarios", files.len());
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let what = path.display();
        match talus::io::scenario::scenario_dimension(&text, path).unwrap() {
            2 => {
                let built = talus::io::build::build_file(path).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(built.steps > 0, "{what}");
            }
            _ => {
                let built = talus_io3d::build::build_file(path).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(built.steps > 0, "{what}");
            }
        }
    }
}
