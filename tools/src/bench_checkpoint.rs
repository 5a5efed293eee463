//! `talus bench-checkpoint`: what checkpoints cost a run, and how fast a run restarts.
//!
//! For each bed (the LAMMPS-settled discs tiled to N, a dense bed of random polygons):
//! the time of a step; the time of one plain memory copy of the whole state into a buffer
//! that is already faulted in (the yardstick: a checkpoint should stop the run for no
//! longer than that); the stop of each checkpoint (from `Checkpointer::write` returning to
//! the run) taken when the background has finished the previous one, and the background
//! time (CRCs, msync, fsync, rename); the restart: map, check and verify the CRCs of the
//! newest file, and build the simulation from it.
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use talus_engine::{Integrator, Simulation};
use talus_io::checkpoint::Checkpoint;
use talus_io::checkpointer::Checkpointer;
use talus_io::lammps_data::read_lammps_data;

use crate::bench::peer_sim;
use crate::bench_polygons::polygon_bed;

#[derive(Args)]
pub struct CheckpointBenchArgs {
    /// The settled base bed (LAMMPS data file, 10,000 discs).
    #[arg(long, default_value = "data/s2d_base.data")]
    pub base: PathBuf,
    /// Disc bed sizes (multiples of the base bed's size; `--discs` without a value: none).
    #[arg(long, num_args = 0.., value_delimiter = ',', default_value = "1000000", value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub discs: Vec<usize>,
    /// Polygon bed sizes (`--polygons` without a value: none).
    #[arg(long, num_args = 0.., value_delimiter = ',', default_value = "100000", value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub polygons: Vec<usize>,
    /// Checkpoints per bed (the median stop is reported).
    #[arg(long, default_value_t = 5, value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub checkpoints: usize,
    /// Steps between checkpoints.
    #[arg(long, default_value_t = 10, value_parser = crate::arg_ranges::at_least::<u64>(1))]
    pub steps: u64,
    /// Restarts per bed (the median is reported).
    #[arg(long, default_value_t = 3, value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub restarts: usize,
    /// Restart from a cold page cache: drop the kernel's caches before each restart (needs
    /// root: writes /proc/sys/vm/drop_caches), so that the file comes from the disk.
    #[arg(long)]
    pub cold: bool,
    /// Folder for the checkpoint files (deleted afterwards).
    #[arg(long, default_value = "talus-bench-checkpoints")]
    pub dir: PathBuf,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One plain copy of all the state's sections into a buffer already faulted in.
fn memcpy_time(sim: &Simulation) -> (usize, f64) {
    let sections = sim.sections();
    let total: usize = sections.iter().map(|s| s.bytes.len()).sum();
    let mut buf = vec![1u8; total];
    let mut times = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let mut at = 0;
        for s in &sections {
            buf[at..at + s.bytes.len()].copy_from_slice(&s.bytes);
            at += s.bytes.len();
        }
        times.push(t.elapsed().as_secs_f64());
        std::hint::black_box(&buf);
    }
    (total, median(times))
}

fn bench_one(label: &str, mut sim: Simulation, a: &CheckpointBenchArgs) -> Result<(), String> {
    let n = sim.len();
    sim.run(20).map_err(|e| e.to_string())?;
    let mut step_times = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        sim.run(a.steps).map_err(|e| e.to_string())?;
        step_times.push(t.elapsed().as_secs_f64() / a.steps as f64);
    }
    let step = median(step_times);
    let (state_bytes, copy) = memcpy_time(&sim);
    let dir = a.dir.join(label);
    let _ = std::fs::remove_dir_all(&dir);
    let mut c = Checkpointer::new(&dir, "checkpoint", 2, 0, Vec::new(), &sim).map_err(|e| e.to_string())?;
    let mut stalls = Vec::new();
    let mut bytes = 0;
    for _ in 0..a.checkpoints {
        sim.run(a.steps).map_err(|e| e.to_string())?;
        // The previous checkpoint finished (and the next file prepared): the stop measured
        // is the checkpoint's own.
        c.wait().map_err(|e| e.to_string())?;
        let before = c.stats.bytes;
        stalls.push(c.write(&sim).map_err(|e| e.to_string())?.as_secs_f64());
        bytes = (c.stats.bytes - before) as usize;
    }
    let stats = c.finish().map_err(|e| e.to_string())?;
    let copies = stats.copy.as_secs_f64() / stats.count as f64;
    let background = stats.background.as_secs_f64() / stats.count as f64;
    let stall = median(stalls.clone());
    let max_stall = stalls.iter().copied().fold(0.0, f64::max);
    let file = stats.last.ok_or("no checkpoint written")?;
    let mut opens = Vec::new();
    let mut builds = Vec::new();
    for _ in 0..a.restarts {
        if a.cold {
            std::fs::File::open(&file)
                .and_then(|f| f.sync_all())
                .and_then(|_| std::fs::write("/proc/sys/vm/drop_caches", "1"))
                .map_err(|e| format!("--cold: cannot drop the page cache ({e}); it needs root"))?;
        }
        let t = Instant::now();
        let ck = Checkpoint::open(&file).map_err(|e| e.to_string())?;
        let t1 = Instant::now();
        let back = ck.simulation().map_err(|e| e.to_string())?;
        let t2 = Instant::now();
        drop(ck);
        opens.push((t1 - t).as_secs_f64());
        builds.push((t2 - t1).as_secs_f64());
        if back.step != sim.step || back.len() != n {
            return Err("the restarted simulation is not the one saved".into());
        }
    }
    let (open, build) = (median(opens), median(builds));
    let gb = |b: usize, s: f64| b as f64 / 1e9 / s.max(1e-300);
    println!(
        "{label:<10} {n:>9} {:>9.1} {:>8.2} {:>8.1} {:>7.2} {:>8.1} {:>8.1} {:>7.2} {:>6.2} {:>6.1} {:>8.1} {:>8.1} {:>8.1} {:>7.3}",
        bytes as f64 / 1e6,
        step * 1e3,
        copy * 1e3,
        gb(state_bytes, copy),
        stall * 1e3,
        max_stall * 1e3,
        gb(bytes, stall),
        stall / copy,
        100.0 * stall / step,
        copies * 1e3,
        background * 1e3,
        open * 1e3,
        open + build,
    );
    println!(
        "{:<10} restart: map + check + verify CRCs {:.1} ms ({:.2} GB/s), build the simulation {:.1} ms; \
         checkpoint background {:.2} GB/s",
        "",
        open * 1e3,
        gb(bytes, open),
        build * 1e3,
        gb(bytes, background)
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

pub fn bench_checkpoint(a: CheckpointBenchArgs) -> Result<(), String> {
    println!(
        "talus bench-checkpoint: {} checkpoints {} steps apart per bed, each taken when the last one is on disk; \
         restart from the newest ({}); commit {}",
        a.checkpoints,
        a.steps,
        if a.cold {
            "page cache dropped before each restart"
        } else {
            "page cache warm"
        },
        crate::scale::git_commit()
    );
    println!(
        "{:<10} {:>9} {:>9} {:>8} {:>8} {:>7} {:>8} {:>8} {:>7} {:>6} {:>6} {:>8} {:>8} {:>8} {:>7}",
        "bed",
        "N",
        "file MB",
        "step ms",
        "copy ms",
        "copy GB/s",
        "stop ms",
        "max ms",
        "stop GB/s",
        "/copy",
        "%step",
        "in-map ms",
        "bg ms",
        "open ms",
        "restart s"
    );
    if !a.discs.is_empty() {
        let base = read_lammps_data(&a.base).map_err(|e| e.to_string())?;
        for &n in &a.discs {
            if !n.is_multiple_of(base.len()) {
                return Err(format!(
                    "--discs {n} is not a multiple of the base bed ({})",
                    base.len()
                ));
            }
            let sim = peer_sim(
                &base.tile_x(n / base.len()),
                Integrator::Verlet,
                0.1e-3,
                false,
                crate::bench::BenchModel::Hooke,
            )?;
            bench_one("discs", sim, &a)?;
        }
    }
    for &n in &a.polygons {
        bench_one("polygons", polygon_bed(n, Default::default())?, &a)?;
    }
    let _ = std::fs::remove_dir(&a.dir);
    Ok(())
}
