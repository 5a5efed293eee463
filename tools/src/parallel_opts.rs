//! Thread options shared by `talus run` and `talus scale`, and the per-phase profile table.
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;
use talus_engine::pool::Profile;
use talus_engine::topology::{plan, Placement, Topology};
use talus_engine::{ForceStrategy, Simulation};

#[derive(Args, Clone)]
pub struct ParallelArgs {
    /// Worker threads (the calling thread counts). Every phase runs on the worker pool;
    /// one thread is the pool of one.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Thread placement: compact, scatter, cores, none, or a list of PU numbers "0,2"
    /// (default: compact with more than one thread, none with one).
    #[arg(long)]
    pub placement: Option<String>,
    /// Force summation: deterministic (bitwise the same result for any thread count),
    /// per-thread (per-thread force arrays), mutex (a lock per particle).
    #[arg(long, default_value = "deterministic")]
    pub force_strategy: String,
    /// Print per-phase, per-thread busy and barrier-wait times at the end.
    #[arg(long)]
    pub profile: bool,
    /// Write that profile as CSV to this file.
    #[arg(long)]
    pub profile_csv: Option<PathBuf>,
}

/// Put the simulation on a pool of `threads` threads placed by `placement` on this machine.
pub fn use_pool(
    sim: &mut Simulation,
    threads: usize,
    placement: &Placement,
    strategy: ForceStrategy,
) -> Result<(), String> {
    let (topo, _) = Topology::detect()?;
    let pins = plan(&topo, placement, threads)?;
    sim.set_parallel(&pins, strategy).map_err(|e| e.to_string())
}

/// More threads than this many per processing unit only wait for each other (and enough
/// of them exhaust the process's memory maps for thread stacks, an abort, not an error).
pub const MAX_THREADS_PER_PU: usize = 4;

/// Refuse more than [`MAX_THREADS_PER_PU`] threads per processing unit of `topo`.
pub fn check_thread_count(topo: &Topology, threads: usize) -> Result<(), String> {
    let limit = MAX_THREADS_PER_PU * topo.pu_count();
    if threads > limit {
        return Err(format!(
            "--threads {threads}: this machine has {} processing units; at most {MAX_THREADS_PER_PU} threads \
             per unit ({limit}) are allowed, more would only wait for each other",
            topo.pu_count()
        ));
    }
    Ok(())
}

impl ParallelArgs {
    /// The placement asked for, or the default for the thread count.
    pub fn placement(&self) -> &str {
        match &self.placement {
            Some(p) => p,
            None if self.threads > 1 => "compact",
            None => "none",
        }
    }

    /// Configure `sim` as asked (a new simulation already runs on one unpinned thread,
    /// deterministic).
    pub fn apply(&self, sim: &mut Simulation) -> Result<(), String> {
        let placement: Placement = self.placement().parse()?;
        let strategy: ForceStrategy = self.force_strategy.parse()?;
        if self.threads == 0 {
            return Err("--threads must be at least 1".into());
        }
        if self.threads > 1 || placement != Placement::None || strategy != ForceStrategy::Deterministic {
            let (topo, _) = Topology::detect()?;
            check_thread_count(&topo, self.threads)?;
            use_pool(sim, self.threads, &placement, strategy)?;
        }
        Ok(())
    }
}

/// The per-phase table: wall time, share of the stepping time, per-thread busy and barrier
/// wait; the serial phases (thread 0 alone) marked, and the stepping time in no phase.
pub fn profile_table(p: &Profile) -> String {
    let mut s = String::new();
    let threads = p.threads;
    let step_total = p.stepping;
    let _ = writeln!(
        s,
        "{:<20} {:>8} {:>9} {:>6}  {:>24}  {:>24}  {:>6}",
        "phase", "calls", "wall s", "share", "busy s per thread", "barrier wait s per thread", "wait%"
    );
    let per_thread = |v: &[f64]| v.iter().map(|x| format!("{x:.3}")).collect::<Vec<_>>().join(" ");
    let mut wait_total = 0.0;
    for (ph, pr) in &p.phases {
        let wait: f64 = pr.wait.iter().sum();
        wait_total += wait;
        let name = if ph.is_serial() {
            format!("{} (serial)", ph.name())
        } else {
            ph.name().to_string()
        };
        let _ = writeln!(
            s,
            "{:<20} {:>8} {:>9.3} {:>5.1}%  {:>24}  {:>24}  {:>5.1}%",
            name,
            pr.calls,
            pr.wall,
            100.0 * pr.wall / step_total.max(1e-300),
            per_thread(&pr.busy),
            per_thread(&pr.wait),
            100.0 * wait / (pr.wall * threads as f64).max(1e-300)
        );
    }
    let _ = writeln!(
        s,
        "{:<20} {:>8} {:>9.3} {:>5.1}%  (clock reads and bookkeeping between the phases)",
        "in no phase",
        "",
        p.outside(),
        100.0 * p.outside() / step_total.max(1e-300)
    );
    let _ = writeln!(
        s,
        "barrier wait: {:.1}% of threads x step time ({} threads)",
        100.0 * wait_total / (step_total * threads as f64).max(1e-300),
        threads
    );
    s
}

/// One line: each phase's share of the stepping time, then the time in no phase.
pub fn phase_shares(p: &Profile) -> String {
    let total = p.stepping.max(1e-300);
    let mut parts: Vec<String> = p
        .phases
        .iter()
        .map(|(ph, pr)| format!("{} {:.1}%", ph.name(), 100.0 * pr.wall / total))
        .collect();
    parts.push(format!("in no phase {:.1}%", 100.0 * p.outside() / total));
    parts.join("  ")
}

/// The profile as CSV: one row per phase and thread.
pub fn write_profile_csv(p: &Profile, path: &Path) -> Result<(), String> {
    let mut s = String::from("phase,thread,calls,wall_s,busy_s,wait_s\n");
    for (ph, pr) in &p.phases {
        for t in 0..p.threads {
            let _ = writeln!(
                s,
                "{},{t},{},{:.9},{:.9},{:.9}",
                ph.name(),
                pr.calls,
                pr.wall,
                pr.busy[t],
                pr.wait[t]
            );
        }
    }
    std::fs::write(path, s).map_err(|e| format!("{}: {e}", path.display()))
}
