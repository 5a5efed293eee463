//! The sweep of `talus scale` (see `scale.rs`): every configuration set up and warmed,
//! then timed in rounds, the table, CSV and plot. Compiled once per dimension (`dim2.rs`,
//! `dim3.rs`): `super::engine` and `super::io` are the build's.
use std::fmt::Write as _;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::engine::pool::Phase;
use super::engine::topology::{placement_table, plan, Placement, Topology};
use super::engine::{ForceStrategy, Simulation};
use super::io::build::{build_default, build_file};
use super::profile::profile_table;
use crate::parallel_opts::check_thread_count;
use crate::plot::{speedup_plot, Series};
use crate::scale::{git_commit, ScaleArgs};

struct Row {
    placement: String,
    strategy: String,
    threads: usize,
    /// Median wall time of a timed run, and each round's.
    wall: f64,
    walls: Vec<f64>,
    ups: f64,
    /// Share of the step per phase (in Phase::ALL order), then in no phase.
    shares: Vec<f64>,
    wait: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub fn scale(a: ScaleArgs) -> Result<(), String> {
    let topo = match &a.topology {
        Some(t) => Topology::parse_synthetic(t)?,
        None => Topology::detect()?.0,
    };
    let placements: Vec<Placement> = a.placements.iter().map(|p| p.parse()).collect::<Result<_, _>>()?;
    let strategies: Vec<ForceStrategy> = a.strategies.iter().map(|s| s.parse()).collect::<Result<_, _>>()?;
    if a.threads.is_empty() {
        return Err("--threads: give at least one thread count".into());
    }
    if a.dry_run {
        println!("{}", topo.summary());
        print!("{}", topo.tree());
        println!();
        print!("{}", placement_table(&topo, &placements, &a.threads));
        return Ok(());
    }
    if a.topology.is_some() {
        return Err("--topology describes another machine: it can only be planned on (add --dry-run)".into());
    }
    // Every plan first: a bad combination fails before minutes of runs.
    for &t in &a.threads {
        check_thread_count(topo.pu_count(), t)?;
    }
    for p in &placements {
        for &t in &a.threads {
            plan(&topo, p, t)?;
        }
    }
    let beds = super::Beds::read(&a)?;
    let make = || -> Result<(Simulation, String), String> {
        match a.bed.as_deref() {
            Some(name) => beds.make(name, a.n),
            None => {
                let built = match &a.scenario {
                    Some(p) => build_file(p),
                    None => build_default(),
                }
                .map_err(|e| e.to_string())?;
                Ok((built.sim, built.title))
            }
        }
    };
    let commit = git_commit();
    // The reference first: one unpinned thread, deterministic, as `talus run` runs by
    // default (the serial run: a pool of one).
    let mut configs: Vec<(Option<(Placement, ForceStrategy)>, usize)> = vec![(None, 1)];
    for p in &placements {
        for s in &strategies {
            for &t in &a.threads {
                configs.push((Some((p.clone(), *s)), t));
            }
        }
    }
    let pb = ProgressBar::with_draw_target(
        Some((configs.len() * (a.repeats.max(1) + 1)) as u64),
        ProgressDrawTarget::stderr_with_hz(4),
    );
    pb.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} set-ups and timed runs  ETA {eta}  {msg}").expect("valid"),
    );
    // Every configuration is set up and warmed first; then the timed runs go round the
    // configurations, `repeats` times, each round starting one configuration later. A
    // shared machine whose speed drifts over minutes then slows every configuration
    // alike, and each speedup is the median of ratios of runs from the same round.
    let mut sims = Vec::new();
    let mut title = String::new();
    let mut n = 0;
    for (cfg, threads) in &configs {
        let (mut sim, t) = make()?;
        title = t;
        n = sim.len();
        let names = match cfg {
            Some((p, s)) => {
                let pins = plan(&topo, p, *threads)?;
                sim.set_parallel(&pins, *s).map_err(|e| e.to_string())?;
                (p.to_string(), s.to_string())
            }
            None => ("none".to_string(), "serial".to_string()),
        };
        pb.set_message(format!("set-up: {} {} {threads} thread(s)", names.0, names.1));
        sim.run(a.warmup).map_err(|e| e.to_string())?;
        sim.reset_times();
        pb.inc(1);
        sims.push((sim, names, Vec::new()));
    }
    for round in 0..a.repeats.max(1) {
        for k in 0..sims.len() {
            let c = (round + k) % sims.len();
            let (sim, (pname, sname), walls) = &mut sims[c];
            pb.set_message(format!(
                "round {}: {pname} {sname} {} thread(s)",
                round + 1,
                configs[c].1
            ));
            let t0 = Instant::now();
            sim.run(a.steps).map_err(|e| e.to_string())?;
            walls.push(t0.elapsed().as_secs_f64());
            pb.inc(1);
        }
    }
    let mut rows = Vec::new();
    let mut profiles = String::new();
    for ((sim, (pname, sname), walls), (_, threads)) in sims.into_iter().zip(&configs) {
        let p = sim.profile();
        let total = p.stepping.max(1e-300);
        if a.profile {
            let _ = writeln!(profiles, "\n{pname} {sname}, {threads} thread(s):");
            profiles.push_str(&profile_table(p));
        }
        let mut shares: Vec<f64> = Phase::ALL.iter().map(|&ph| p.wall_of(ph) / total).collect();
        shares.push(p.outside() / total);
        let wait = p.step_wait() / (total * p.threads as f64);
        let wall = median(walls.clone());
        rows.push(Row {
            placement: pname,
            strategy: sname,
            threads: *threads,
            wall,
            walls,
            ups: n as f64 * a.steps as f64 / wall,
            shares,
            wait,
        });
    }
    pb.finish_and_clear();
    // Speedup against the same placement and strategy on the fewest threads (times their
    // thread count): the median over the rounds of the ratio of the two runs' walls.
    let paired = |b: &Row, r: &Row| median(b.walls.iter().zip(&r.walls).map(|(x, y)| x / y).collect());
    let speedup_of = |r: &Row| {
        let b = rows
            .iter()
            .filter(|q| q.placement == r.placement && q.strategy == r.strategy)
            .min_by_key(|q| q.threads)
            .unwrap_or(r);
        paired(b, r) * b.threads as f64
    };
    // And against the serial run (the reference row).
    let serial = rows.iter().find(|r| r.strategy == "serial").expect("the reference row");
    let vs_serial = |r: &Row| paired(serial, r);
    let mut table = String::new();
    let _ = writeln!(
        table,
        "talus scale: {title}, N = {n}, {} timed steps x {} rounds (medians; speedups paired per round), commit {commit}",
        a.steps, a.repeats
    );
    let _ = writeln!(
        table,
        "machine: {}; vector build of the hot loops: {}",
        topo.summary(),
        talus_kernels::vector_build::Build::detect().name()
    );
    let names: Vec<&str> = Phase::ALL.iter().map(|p| p.name()).collect();
    let _ = write!(
        table,
        "{:<9} {:<14} {:>3} {:>9} {:>10} {:>7} {:>6} {:>9}",
        "placement", "strategy", "thr", "wall s", "upd/s", "speedup", "effic", "vs serial"
    );
    for nm in &names {
        let _ = write!(table, " {:>9}", format!("{nm}%"));
    }
    let _ = writeln!(table, " {:>9} {:>6}", "nophase%", "wait%");
    let mut csv =
        String::from("placement,strategy,threads,n,steps,wall_s,updates_per_s,speedup,efficiency,speedup_vs_serial");
    for nm in &names {
        let _ = write!(csv, ",{nm}_share");
    }
    csv.push_str(",no_phase_share,barrier_wait_share\n");
    for r in &rows {
        let speedup = speedup_of(r);
        let eff = speedup / r.threads as f64;
        let vs = vs_serial(r);
        let _ = write!(
            table,
            "{:<9} {:<14} {:>3} {:>9.3} {:>10.3e} {:>7.3} {:>6.3} {:>9.3}",
            r.placement, r.strategy, r.threads, r.wall, r.ups, speedup, eff, vs
        );
        for s in &r.shares {
            let _ = write!(table, " {:>9.1}", 100.0 * s);
        }
        let _ = writeln!(table, " {:>6.1}", 100.0 * r.wait);
        let _ = write!(
            csv,
            "{},{},{},{n},{},{:.6},{:.6e},{speedup:.4},{eff:.4},{vs:.4}",
            r.placement, r.strategy, r.threads, a.steps, r.wall, r.ups
        );
        for s in &r.shares {
            let _ = write!(csv, ",{s:.5}");
        }
        let _ = writeln!(csv, ",{:.5}", r.wait);
    }
    print!("{table}");
    print!("{profiles}");
    std::fs::create_dir_all(&a.out).map_err(|e| format!("{}: {e}", a.out.display()))?;
    let csv_path = a.out.join("scale.csv");
    std::fs::write(&csv_path, csv).map_err(|e| format!("{}: {e}", csv_path.display()))?;
    let mut series: Vec<Series> = Vec::new();
    for r in rows.iter().filter(|r| r.strategy != "serial") {
        let label = format!("{}, {}", r.placement, r.strategy);
        let point = (r.threads as f64, speedup_of(r));
        match series.iter_mut().find(|s| s.label == label) {
            Some(s) => s.points.push(point),
            None => series.push(Series {
                label,
                points: vec![point],
            }),
        }
    }
    let max_threads = a.threads.iter().copied().max().unwrap_or(1);
    let (png, svg) = (a.out.join("speedup.png"), a.out.join("speedup.svg"));
    speedup_plot(&format!("talus: {title}"), &series, max_threads, &png, &svg)?;
    println!("wrote {}, {} and {}", csv_path.display(), png.display(), svg.display());
    Ok(())
}
