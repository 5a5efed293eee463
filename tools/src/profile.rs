//! The worker pool a run is put on and the profile it keeps (per phase and thread: busy
//! and barrier-wait times), as tables and CSV. Compiled once per dimension (`dim2.rs`,
//! `dim3.rs`): `super::engine` is the build's engine.
use std::fmt::Write as _;
use std::path::Path;

use super::engine::pool::Profile;
use super::engine::topology::{plan, Placement, Topology};
use super::engine::{ForceStrategy, Simulation};
use crate::parallel_opts::{check_thread_count, ParallelArgs};

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

/// Configure `sim` as `args` ask (a new simulation already runs on one unpinned thread,
/// deterministic).
pub fn apply_parallel(args: &ParallelArgs, sim: &mut Simulation) -> Result<(), String> {
    let placement: Placement = args.placement().parse()?;
    let strategy: ForceStrategy = args.force_strategy.parse()?;
    if args.threads == 0 {
        return Err("--threads must be at least 1".into());
    }
    if args.threads > 1 || placement != Placement::None || strategy != ForceStrategy::Deterministic {
        let (topo, _) = Topology::detect()?;
        check_thread_count(topo.pu_count(), args.threads)?;
        use_pool(sim, args.threads, &placement, strategy)?;
    }
    Ok(())
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
        // The analysis's waits are besides the step's, as its time is.
        if ph.in_step() {
            wait_total += wait;
        }
        let name = if ph.is_serial() {
            format!("{} (serial)", ph.name())
        } else if !ph.in_step() {
            format!("{} (besides)", ph.name())
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
        .map(|(ph, pr)| {
            // The analysis runs between steps: its time is besides the stepping time.
            let besides = if ph.in_step() { "" } else { " besides" };
            format!("{} {:.1}%{besides}", ph.name(), 100.0 * pr.wall / total)
        })
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
