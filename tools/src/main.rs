//! `talus`: the command line program.
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod arg_ranges;
mod bench;
mod bench_checkpoint;
mod bench_narrow;
mod bench_polygons;
mod big_blocks;
// The stepping sources are compiled once per dimension on purpose, as the crates are
// (dim2.rs and dim3.rs include the same files on the 2D and the 3D engine).
#[allow(clippy::duplicate_mod)]
mod dim2;
#[allow(clippy::duplicate_mod)]
mod dim3;
mod folder_lock;
mod huge_pages;
mod neighbors;
mod neighbors3d;
mod parallel_opts;
mod plot;
mod restart;
mod run;
mod scale;
mod signals;
mod topology_cmd;

/// talus: a discrete element method engine for granular matter (2D discs and convex polygons,
/// 3D spheres).
///
/// `talus run` with no arguments runs a built-in scenario: a polydisperse bed of 20,000
/// discs settling under gravity in a box.
#[derive(Parser)]
#[command(name = "talus", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Hold the hot loops to this vector build or narrower: baseline (SSE2), avx2 or
    /// avx512 (default: the widest the processor runs; reports name the one used).
    #[arg(long, global = true, value_name = "BUILD")]
    vector_build: Option<String>,
}

/// Apply `--vector-build` to the 2D and the 3D kernels (one source, two crates, a limit
/// each): an error for an unknown name or a build the processor lacks.
fn limit_vector_build(name: Option<&str>) -> Result<(), String> {
    let Some(name) = name else { return Ok(()) };
    let say = |e: String| format!("--vector-build {name}: {e}");
    talus_kernels::vector_build::Build::from_name(name)
        .map_err(say)?
        .limit();
    talus_kernels3d::vector_build::Build::from_name(name)
        .map_err(say)?
        .limit();
    Ok(())
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario file (or the built-in default) and write ParaView, OVITO and CSV output
    /// (a file with `dimension = 3` runs on the 3D build).
    Run(run::RunArgs),
    /// Continue a run from a checkpoint (a file, or the newest in a folder), exactly.
    Restart(restart::RestartArgs),
    /// Print a checkpoint's header and section table (a file, or the newest in a folder) and
    /// verify every checksum.
    Inspect(restart::InspectArgs),
    /// Measure particle-updates per second on dense beds tiled from the LAMMPS-settled beds
    /// (2D discs, or 3D spheres with --base data/s3d_base.data), per integrator and
    /// neighbour-update mode.
    Bench(bench::BenchArgs),
    /// What checkpoints cost a run (the stop, against one memory copy of the state) and how
    /// fast a run restarts, for 10^6 discs and 10^5 polygons.
    BenchCheckpoint(bench_checkpoint::CheckpointBenchArgs),
    /// Time the narrow phase of convex polygons: closest-feature queries from a cold start
    /// and with a warm cache, for 4 to 64 vertices, and overlap computations.
    BenchNarrow(bench_narrow::NarrowArgs),
    /// Measure particle-updates per second on a dense bed of random convex polygons
    /// (5-8 corners) in contact from the first step.
    BenchPolygons(bench_polygons::PolygonBedArgs),
    /// Measure particle-updates per second in a rotating drum (a ring of driven wall
    /// polygons) filled with random convex polygons.
    BenchDrum(bench_polygons::DrumArgs),
    /// Run one scenario (2D or 3D) or built-in bed (discs, polygons, spheres) over thread
    /// counts, placements and force strategies: updates per second, speedup, efficiency,
    /// per-phase times and barrier wait; CSV and a speedup plot.
    Scale(scale::ScaleArgs),
    /// Compare the neighbour-search methods on the literature's experiments (Perkins'
    /// Tests 1 and 2, polydisperse series in 2D and 3D, the rotating drum, the quadtree's
    /// update):
    /// tables, CSV and log-log plots with fitted exponents.
    Neighbors(neighbors::NeighborsArgs),
    /// Describe the machine (packages, NUMA nodes, cores, processing units, read with
    /// hwloc) or a synthetic topology, and the thread placements on it.
    Topology(topology_cmd::TopologyArgs),
    /// Print the built-in default scenario (a starting point for your own files).
    DefaultScenario {
        /// Write it to this file instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

/// Each block of 1 MiB or more a mapping of its own, given back when freed (`big_blocks.rs`).
#[global_allocator]
static ALLOCATOR: big_blocks::BigBlocks = big_blocks::BigBlocks;

fn main() -> ExitCode {
    // `talus ... | head`: end quietly when the reader goes, as Unix tools do, instead of
    // panicking on the failed print.
    // SAFETY: restoring the default action of SIGPIPE before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    huge_pages::restart_with_huge_pages();
    if huge_pages::in_huge_pages() {
        big_blocks::advise_huge_pages();
    }
    let cli = Cli::parse();
    if let Err(msg) = limit_vector_build(cli.vector_build.as_deref()) {
        eprintln!("talus: error: {msg}");
        return ExitCode::FAILURE;
    }
    let result = match cli.command {
        Command::Run(a) => run::run(a),
        Command::Restart(a) => restart::restart(a),
        Command::Inspect(a) => restart::inspect(a),
        Command::Bench(a) => bench::bench(a),
        Command::BenchCheckpoint(a) => bench_checkpoint::bench_checkpoint(a),
        Command::BenchNarrow(a) => bench_narrow::bench_narrow(a),
        Command::BenchPolygons(a) => bench_polygons::bench_polygons(a),
        Command::BenchDrum(a) => bench_polygons::bench_drum(a),
        Command::Topology(a) => topology_cmd::topology(a),
        Command::Scale(a) => scale::scale(a),
        Command::Neighbors(a) => neighbors::neighbors(a),
        Command::DefaultScenario { out } => match out {
            Some(p) => {
                std::fs::write(&p, talus_io::scenario::DEFAULT_SCENARIO).map_err(|e| format!("{}: {e}", p.display()))
            }
            None => {
                print!("{}", talus_io::scenario::DEFAULT_SCENARIO);
                Ok(())
            }
        },
    };
    match result {
        // Stopped by a signal, cleanly: not a complete run.
        Ok(()) => signals::exit_status().map_or(ExitCode::SUCCESS, ExitCode::from),
        Err(msg) => {
            eprintln!("talus: error: {msg}");
            ExitCode::FAILURE
        }
    }
}
