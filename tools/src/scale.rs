//! `talus scale`: one simulation swept over thread counts, placements and force-summation
//! strategies, as the tables of Chen & Matuttis (2013, tables 2-4): particle-updates per
//! second, speedup t1/tn, efficiency t1/(n tn), and where the time went (per phase, and
//! the time threads spent waiting at the barriers). Writes the table as CSV and a speedup
//! plot (PNG and SVG).
//!
//! The options and the choice of build are here (a 3D scenario or `--bed spheres`: the 3D
//! build); the sweep itself is `scaling.rs`, compiled once per dimension.
use std::path::PathBuf;

use clap::Args;

use crate::{dim2, dim3};

#[derive(Args)]
pub struct ScaleArgs {
    /// Scenario file. Without it (and without --bed) the built-in default scenario runs.
    pub scenario: Option<PathBuf>,
    /// A built-in bed instead of a scenario: "discs" (the LAMMPS-settled bed tiled to --n),
    /// "polygons" (the dense 5-8-gon bed of bench-polygons) or "spheres" (the LAMMPS
    /// S3D bed, data/s3d_base.data, tiled to --n as the peer's tile.py: 1 x 1, 5 x 2, 10 x 10
    /// copies, other counts in a row).
    #[arg(long)]
    pub bed: Option<String>,
    /// Particles of the built-in bed (discs: a multiple of 10,000, default 100,000;
    /// polygons: default 100,000; spheres: a multiple of 5,832, default 58,320).
    #[arg(long, value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub n: Option<usize>,
    /// Thread counts.
    #[arg(long, value_delimiter = ',', default_value = "1,2", value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub threads: Vec<usize>,
    /// Placement policies: compact, scatter, cores, none (a PU list "0,2" is not possible
    /// here: use `talus run --placement`).
    #[arg(long, value_delimiter = ',', default_value = "compact")]
    pub placements: Vec<String>,
    /// Force summation strategies: deterministic, per-thread, mutex.
    #[arg(long, value_delimiter = ',', default_value = "deterministic,per-thread,mutex")]
    pub strategies: Vec<String>,
    /// Untimed steps before the timing.
    #[arg(long, default_value_t = 20)]
    pub warmup: u64,
    /// Timed steps per repeat.
    #[arg(long, default_value_t = 100, value_parser = crate::arg_ranges::at_least::<u64>(1))]
    pub steps: u64,
    /// Timed rounds: each runs every configuration once, in turn (medians are reported).
    #[arg(long, default_value_t = 3, value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub repeats: usize,
    /// Folder for scale.csv, speedup.png and speedup.svg.
    #[arg(long, default_value = "talus-scale")]
    pub out: PathBuf,
    /// Plan on this synthetic topology (hwloc syntax, e.g. "pack:2 numa:2 core:8 pu:2")
    /// instead of the machine; only with --dry-run.
    #[arg(long)]
    pub topology: Option<String>,
    /// Print the thread-to-PU map of each placement and thread count, run nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The LAMMPS-settled base bed for --bed discs (default data/s2d_base.data) or --bed
    /// spheres (default data/s3d_base.data).
    #[arg(long)]
    pub base: Option<PathBuf>,
    /// Also print each pool configuration's per-phase, per-thread profile (busy and
    /// barrier-wait times, summed over its timed rounds).
    #[arg(long)]
    pub profile: bool,
}

/// `talus scale`: the sweep on the build of the scenario's dimension (3D for a scenario
/// with `dimension = 3` or `--bed spheres`).
pub fn scale(a: ScaleArgs) -> Result<(), String> {
    let three = a.bed.as_deref() == Some("spheres")
        || (a.bed.is_none()
            && a.scenario.as_ref().is_some_and(|p| {
                std::fs::read_to_string(p)
                    .ok()
                    .and_then(|t| talus_io::scenario::scenario_dimension(&t, p).ok())
                    == Some(3)
            }));
    if three {
        dim3::scaling::scale(a)
    } else {
        dim2::scaling::scale(a)
    }
}

/// The commit checked out where the command runs (short hash, "+changes" if the working
/// tree differs from it), or "unknown" outside a git checkout: the figures' commit when
/// the binary was built from that tree (an older binary run in it reports the tree's).
pub fn git_commit() -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["rev-parse", "--short", "HEAD"]) {
        Some(h) if !h.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{h}+changes")
            } else {
                h
            }
        }
        _ => "unknown".into(),
    }
}
