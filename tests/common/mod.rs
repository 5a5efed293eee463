//! Shared by the tests that run the `talus` program as a separate process.
//!
//! The binary belongs to the `talus-tools` package, so `CARGO_BIN_EXE_talus` is not
//! available here, and `cargo test` does not build other packages' binaries. The tests
//! therefore run `cargo build -p talus-tools --bin talus` once, with the profile the tests
//! were built with (the test executable is `target/<dir>/deps/cli-<hash>`; `debug` is built
//! with `--profile test`, which reuses the libraries the tests were linked against, so only
//! the binary itself compiles), and run `target/<dir>/talus`. Building every time keeps the
//! binary in step with the sources; when it is up to date this takes a fraction of a
//! second. Set `TALUS_BIN` to test a given binary instead.
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
