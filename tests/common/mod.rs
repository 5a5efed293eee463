//! Shared by the whole-system tests: running the `talus` program as a separate process,
//! and a small scenario.
//!
//! The binary belongs to the `talus-tools` package, so `CARGO_BIN_EXE_talus` is not
//! available here, and `cargo test` does not build other packages' binaries. The tests
//! therefore run `cargo build -p talus-tools --bin talus` once, with the profile the tests
//! were built with (the test executable is `target/<dir>/deps/cli-<hash>`; `debug` is built
//! with `--profile test`, which reuses the libraries the tests were linked against, so only
//! the binary itself compiles), and run `target/<dir>/talus`. Building every time keeps the
//! binary in step with the sources; when it is up to date this takes a fraction of a
//! second. Set `TALUS_BIN` to test a given binary instead.
// Each test file that includes this module uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// Path of the `talus` binary, built on first use.
pub fn talus() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(bin) = std::env::var_os("TALUS_BIN") {
            return PathBuf::from(bin);
        }
        let exe = std::env::current_exe().expect("path of the test executable");
        // target/<dir>/deps/cli-<hash> -> target/<dir>
        let dir = exe.parent().and_then(Path::parent).expect("target/<dir>/deps/<test>");
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("debug");
        let profile: Vec<&str> = match name {
            "debug" => vec!["--profile", "test"],
            "release" => vec!["--release"],
            other => vec!["--profile", other],
        };
        let out = Command::new(env!("CARGO"))
            .args(["build", "-p", "talus-tools", "--bin", "talus"])
            .args(&profile)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("cargo runs");
        assert!(
            out.status.success(),
            "cargo build -p talus-tools {} failed:\n{}",
            profile.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        let bin = dir.join(format!("talus{}", std::env::consts::EXE_SUFFIX));
        assert!(bin.exists(), "{} was not built", bin.display());
        bin
    })
}

/// Run `talus` with `args` in the folder `cwd`.
pub fn run(args: &[&str], cwd: &Path) -> Output {
    Command::new(talus())
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", talus().display()))
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Exit status and both streams of a run, for assertion messages.
pub fn describe(out: &Output) -> String {
    format!(
        "exit status {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    )
}

/// A closed box of `size` (m) with `count` grains (discs, or random 5-8-gons with
/// `polygons`) of radius 0.8 mm +- 30 % on a lattice, given random velocities of up to
/// 1 m/s, so that contacts open, close and slide from the first steps; no output files.
pub fn grain_box(count: usize, polygons: bool, gear: bool, size: [f64; 2], steps: u64) -> String {
    let shape = if polygons {
        "shape = { kind = \"random\", vertices = [5, 8], aspect = 1.3 }"
    } else {
        ""
    };
    let scheme = if gear { "gear" } else { "verlet" };
    let [w, h] = size;
    format!(
        r#"
title = "grains in a box"
gravity = [0.0, -9.81]
[domain]
min = [-0.001, -0.001]
max = [{dw}, {dh}]
[[material]]
name = "grain"
density = 2500.0
kn = 1.0e6
restitution = 0.5
friction = 0.5
[[wall]]
kind = "box"
min = [0.0, 0.0]
max = [{w}, {h}]
[[particles]]
material = "grain"
count = {count}
radius = {{ kind = "uniform", mean = 0.8e-3, width = 0.3 }}
packing = "lattice"
region = {{ min = [0.0, 0.0], max = [{w}, {h}] }}
velocity_jitter = 1.0
{shape}
[integrator]
scheme = "{scheme}"
[run]
steps = {steps}
[output]
vtk = false
dump = false
energy = false
"#,
        dw = w + 0.001,
        dh = h + 0.001
    )
}

/// Write a checkpoint of `sim` into `dir` with the background writer (`text`, the
/// scenario, recorded with it); its path.
pub fn checkpoint(sim: &talus::engine::Simulation, dir: &Path, text: &str) -> PathBuf {
    use talus::io::checkpoint::fnv1a;
    let mut c = talus::io::checkpointer::Checkpointer::new(
        dir,
        "checkpoint",
        2,
        fnv1a(text.as_bytes()),
        vec![("scenario.toml", text.as_bytes().to_vec())],
        sim,
    )
    .unwrap();
    c.write(sim).unwrap();
    c.finish().unwrap().last.expect("one checkpoint written")
}

/// Every section of the two states, byte for byte; the first difference named.
pub fn assert_same_state(a: &talus::engine::Simulation, b: &talus::engine::Simulation, what: &str) {
    let (sa, sb) = (a.sections(), b.sections());
    let names = |s: &[talus::engine::Section]| s.iter().map(|x| x.name).collect::<Vec<_>>();
    assert_eq!(names(&sa), names(&sb), "{what}: different sections");
    for (x, y) in sa.iter().zip(&sb) {
        assert!(
            x.bytes == y.bytes,
            "{what}: section {} differs ({} vs {} bytes)",
            x.name,
            x.bytes.len(),
            y.bytes.len()
        );
    }
}
