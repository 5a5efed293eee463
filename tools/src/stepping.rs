//! The stepping of `talus run` and `talus restart`: build the scenario, step it with a
//! progress bar, write output and checkpoints, summarise. One source compiled for each
//! dimension (`dim2.rs`, `dim3.rs`), as the crates are: `super::engine` and `super::io`
//! are the build's engine and io.
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::engine::{NeighborMethod, Region, Simulation};
use super::io::build::{build_default, build_file, Built};
use super::io::checkpoint::fnv1a;
use super::io::checkpointer::Checkpointer;
use super::io::output::{AnalysisKinds, OutputKinds, Outputs};
use super::profile::{apply_parallel, phase_shares, profile_table, write_profile_csv};
use super::staging::{Staging, STAGE_RECORD};
use super::thermo::Thermo;
use super::{summary_extras, take_shortfalls};
use crate::parallel_opts::ParallelArgs;
use crate::run::{
    folder_settings, restart_hint, stepping_settings, AnalysisSettings, CheckpointSettings, Defaults, Locks,
    NeighborChoice, OutflowSettings, OutputSettings, Plan, RunArgs, UntilSettings, CHECKPOINT_PREFIX,
};
use crate::signals;

/// The longest a batch of steps should take: how long a signal may wait to be seen.
const BATCH_SECONDS: f64 = 0.1;

/// Insertion shortfalls reported as they happen (the rest only in the summary).
const MAX_SHORTFALL_LINES: u64 = 10;

/// The neighbour searches `--neighbor auto` tries (those this build has).
const AUTO_CANDIDATES: [&str; 4] = ["sweep", "quadtree", "cells", "verlet"];

fn build_scenario(a: &RunArgs) -> Result<Built, String> {
    match &a.scenario {
        Some(p) => build_file(p),
        None => build_default(),
    }
    .map_err(|e| e.to_string())
}

/// `--neighbor auto`: each candidate method runs a short trial on a fresh copy of the
/// scenario (with the run's threads), the fastest per step is picked. The trial does not
/// touch the run, which starts afresh. Returns the method and a line saying why.
fn pick_neighbor(a: &RunArgs, steps: u64) -> Result<(NeighborMethod, String), String> {
    let trial = (steps / 20).clamp(20, 200);
    let mut timed = Vec::new();
    for m in AUTO_CANDIDATES.iter().filter_map(|n| n.parse::<NeighborMethod>().ok()) {
        let mut sim = build_scenario(a)?.sim;
        sim.set_neighbor_method(m);
        apply_parallel(&a.parallel, &mut sim)?;
        // The first steps include the full search every method starts with.
        sim.run(trial / 4).map_err(|e| e.to_string())?;
        let t = Instant::now();
        sim.run(trial).map_err(|e| e.to_string())?;
        timed.push((m, t.elapsed().as_secs_f64() / trial as f64));
    }
    let best = timed
        .iter()
        .copied()
        .min_by(|x, y| x.1.total_cmp(&y.1))
        .expect("sweep is in every build");
    let list: Vec<String> = timed
        .iter()
        .map(|(m, t)| format!("{} {:.3} ms/step", m.name(), t * 1e3))
        .collect();
    Ok((
        best.0,
        format!(
            "neighbour search auto: {} over a {trial}-step trial each: picked {}",
            list.join(", "),
            best.0.name()
        ),
    ))
}

pub fn run(a: RunArgs) -> Result<(), String> {
    let t_setup = Instant::now();
    let built = build_scenario(&a)?;
    for w in &built.warnings {
        eprintln!("talus: warning: {w}");
    }
    let steps = a.stepping.steps.unwrap_or(built.steps);
    let mut sim = built.sim;
    match &a.neighbor {
        Some(NeighborChoice::Method(name)) => sim.set_neighbor_method(name.parse()?),
        Some(NeighborChoice::Auto) => {
            let (m, why) = pick_neighbor(&a, steps)?;
            eprintln!("talus: {why}");
            sim.set_neighbor_method(m);
        }
        None => {}
    }
    apply_parallel(&a.parallel, &mut sim)?;
    let plan = a.stepping.plan(
        Defaults {
            steps,
            until: built.until.map(until_settings),
            outflows: outflow_settings(&built.outflows),
            output: output_settings(&built.output, built.analysis.as_ref()),
            dir: built.output.dir.clone(),
            run_dir: built.output.dir.clone(),
            checkpoint: checkpoint_settings(&built.checkpoint),
            checkpoint_dir: None,
            scenario_text: built.scenario_text.clone(),
            title: built.title.clone(),
            dt_note: built.dt_note.clone(),
        },
        &a.parallel,
    );
    let setup = t_setup.elapsed();
    let staging = (!built.stages.is_empty()).then(|| Staging::new(built.stages, built.first_body_id, sim.step));
    step_and_report(&mut sim, &plan, staging, setup, &a.parallel)
}

/// The scenario's `[output]` and `[analysis]` for the plan.
pub fn output_settings(o: &super::io::scenario::Output, a: Option<&super::io::scenario::Analysis>) -> OutputSettings {
    OutputSettings {
        every: o.every,
        energy_every: o.energy_every,
        vtk: o.vtk,
        dump: o.dump,
        energy: o.energy,
        analysis: a.map(|a| AnalysisSettings {
            every: a.every,
            network: a.network,
            region: a.region.map(|r| (r.min.to_vec(), r.max.to_vec())),
        }),
    }
}

/// A region of the plan (its corners as plain numbers: the plan serves both dimensions).
fn region(min: &[f64], max: &[f64]) -> Region {
    Region {
        min: std::array::from_fn(|k| min[k]),
        max: std::array::from_fn(|k| max[k]),
    }
}

/// Whether the state meets `[run] until` (each quantity given below its threshold): what
/// was measured, if it does. The unbalanced-force ratio needs the step before logged; it
/// comes from the run's own analysis of the step where there is one (`out`).
fn settled_now(sim: &mut Simulation, u: &UntilSettings, out: Option<&mut Outputs>) -> Result<Option<String>, String> {
    let mut said = Vec::new();
    if let Some(limit) = u.kinetic {
        let (t, r) = sim.kinetic_energies();
        if t + r >= limit {
            return Ok(None);
        }
        said.push(format!("kinetic energy {:.4e} J < {limit:e}", t + r));
    }
    if let Some(limit) = u.unbalanced {
        let made = match out {
            Some(o) => o.analysis(sim).map_err(|e| e.to_string())?.map(|a| a.unbalanced),
            None => None,
        };
        let unbalanced = match made {
            Some(x) => x,
            None => sim.analyse(None).map_err(|e| e.to_string())?.unbalanced,
        };
        // NaN (no grain touching anything) is not settled.
        if unbalanced.is_nan() || unbalanced >= limit {
            return Ok(None);
        }
        said.push(format!("unbalanced force {unbalanced:.4e} < {limit:e}"));
    }
    if let Some(limit) = u.servo {
        // The largest relative error of the servos' loads, the walls' and the cell's (none:
        // nothing to wait for). A NaN (a cell's stress not measured yet) is kept by the
        // fold, as `f64::max` would not: not held.
        let error = |load: f64, target: f64| (load - target).abs() / target.abs().max(f64::MIN_POSITIVE);
        let walls = sim
            .wall_servos()
            .iter()
            .map(|sv| error(sv.load, sv.servo.target * sv.extent(&sim.walls)));
        let cell = sim.cell_servo().map(|(s, _, stress)| error(stress, s.servo.target));
        let worst = walls
            .chain(cell)
            .fold(0.0, |w, e| if e > w || e.is_nan() { e } else { w });
        if worst.is_nan() || worst >= limit {
            return Ok(None);
        }
        said.push(format!("servo loads within {worst:.4e} < {limit:e} of their targets"));
    }
    Ok(Some(said.join(", ")))
}

/// The scenario's `[[outflow]]` regions for the plan.
pub fn outflow_settings(o: &[super::io::scenario::Outflow]) -> Vec<OutflowSettings> {
    o.iter()
        .map(|o| OutflowSettings {
            min: o.region.min.to_vec(),
            max: o.region.max.to_vec(),
            every: o.every,
        })
        .collect()
}

/// The scenario's `[run] until` for the plan.
pub fn until_settings(u: super::io::scenario::Until) -> UntilSettings {
    UntilSettings {
        kinetic: u.kinetic,
        unbalanced: u.unbalanced,
        servo: u.servo,
        every: u.every,
    }
}

/// The scenario's `[checkpoint]` for the plan.
pub fn checkpoint_settings(c: &super::io::scenario::CheckpointSettings) -> CheckpointSettings {
    CheckpointSettings {
        every: c.every,
        keep: c.keep,
        dir: c.dir.clone(),
    }
}

/// Step `sim` by the plan (through its stages, where it has them), writing output and
/// checkpoints at multiples of their intervals (in absolute steps, so that a restarted
/// run writes at the same steps), then print the summary.
pub fn step_and_report(
    sim: &mut Simulation,
    plan: &Plan,
    mut staging: Option<Staging>,
    setup: Duration,
    parallel: &ParallelArgs,
) -> Result<(), String> {
    let t_setup = Instant::now();
    // From here on Ctrl-C and SIGTERM end the run after the current step, with a final
    // checkpoint and the summary (installed before any temporary file exists).
    signals::install()?;
    let any_output =
        plan.kinds.vtk || plan.kinds.dump || plan.kinds.energy || plan.kinds.outflow || plan.analysis.is_some();
    // 0: no analysis.
    let analysis_every = plan.analysis.as_ref().map_or(0, |a| a.every);
    // The folders are locked before anything is written into them: a second run into
    // them is refused. Declared first, so that they are released last, after the
    // checkpoint writer has finished.
    let mut locks = Locks::default();
    if any_output {
        locks.take(&plan.dir)?;
    }
    if plan.checkpoint_every > 0 {
        locks.take(&plan.checkpoint_dir)?;
    }
    let kinds = OutputKinds {
        vtk: plan.kinds.vtk,
        dump: plan.kinds.dump,
        energy: plan.kinds.energy,
        outflow: plan.kinds.outflow,
        analysis: plan.analysis.as_ref().map(|a| AnalysisKinds {
            network: a.network,
            region: a.region.as_ref().map(|(min, max)| region(min, max)),
        }),
    };
    // A continued run rewrites the files of its first step, the same again, except with
    // [analysis]: what was analysed there came from the contact forces of the step before
    // it, which a restart cannot log again, so the files of that step are kept as the run
    // that wrote the checkpoint left them (it wrote them before the checkpoint).
    let keep_first = plan.append && analysis_every > 0;
    let mut out = if any_output {
        let o = if plan.append {
            Outputs::resume(&plan.dir, kinds, sim.step, keep_first)
        } else {
            Outputs::create(&plan.dir, kinds)
        };
        Some(o.map_err(|e| e.to_string())?)
    } else {
        None
    };
    // The stages may end the run earlier: by their steps, or where the last one settles.
    let cap = sim.step + plan.steps;
    let end = staging.as_ref().map_or(cap, |st| st.last_end().min(cap));
    let new_checkpointer = |sim: &Simulation, staging: &Option<Staging>| {
        let mut extras = vec![
            ("scenario.toml", plan.scenario_text.clone().into_bytes()),
            (
                "run.settings",
                format!(
                    "{}{}{}",
                    plan.run_settings,
                    stepping_settings(plan, end),
                    folder_settings(plan)
                )
                .into_bytes(),
            ),
        ];
        if let Some(st) = staging {
            extras.push((STAGE_RECORD, st.record()));
        }
        Checkpointer::new(
            &plan.checkpoint_dir,
            CHECKPOINT_PREFIX,
            plan.keep,
            fnv1a(plan.scenario_text.as_bytes()),
            extras,
            sim,
        )
        .map_err(|e| e.to_string())
    };
    let mut ckpt = if plan.checkpoint_every > 0 {
        Some(new_checkpointer(sim, &staging)?)
    } else {
        None
    };
    let setup = setup + t_setup.elapsed();
    // `[run] until` or the stages may end the run earlier (the checkpoints keep the
    // planned end).
    let mut end = end;
    let mut settled = None;
    let outflows: Vec<(Region, u64)> = plan
        .outflows
        .iter()
        .map(|o| (region(&o.min, &o.max), o.every))
        .collect();
    // Per outflow: grains and mass taken out by this run.
    let mut outflown = vec![(0u64, 0.0f64); outflows.len()];
    let walls = sim.particles.wall_bodies();
    let counted = if walls > 0 {
        format!("{} particles and {walls} wall bodies", sim.len() - walls)
    } else {
        format!("{} particles", sim.len())
    };
    eprintln!("talus: {} ({counted}, {})", plan.title, plan.dt_note);

    let steps = plan.steps;
    let start_step = sim.step;
    let pb = if plan.quiet {
        ProgressBar::hidden()
    } else {
        let pb = ProgressBar::with_draw_target(Some(steps), ProgressDrawTarget::stderr_with_hz(4));
        pb.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} steps  {per_sec}  ETA {eta}  {msg}")
                .expect("valid template"),
        );
        pb
    };
    // A log instead of a terminal: no progress bar can show there, so progress lines.
    let mut thermo = (!plan.quiet && !std::io::stderr().is_terminal()).then(|| Thermo::new(plan.thermo, sim, end));
    let mut io_time = Duration::ZERO;
    let write = |sim: &mut Simulation, out: &mut Option<Outputs>, io: &mut Duration, frame: bool, energy: bool| {
        if let Some(o) = out {
            let t = Instant::now();
            if frame {
                o.write_frame(sim).map_err(|e| e.to_string())?;
            }
            if energy {
                o.write_energy(sim).map_err(|e| e.to_string())?;
            }
            *io += t.elapsed();
        }
        Ok::<(), String>(())
    };
    // The first frame and energy row: always for a new series; for a continued one only
    // where the uninterrupted run has them (an output step, or the end), so that run +
    // restart --append give its files byte for byte from any checkpoint.
    let at_end = sim.step == end;
    write(
        sim,
        &mut out,
        &mut io_time,
        !plan.append || (!keep_first && (sim.step.is_multiple_of(plan.every) || at_end)),
        !plan.append || (!keep_first && (sim.step.is_multiple_of(plan.energy_every) || at_end)),
    )?;
    if let Some(th) = &mut thermo {
        eprintln!("{}", Thermo::header());
        eprintln!("{}", th.line(sim));
    }
    // The first frame is written before the clock starts: it is not part of the run.
    io_time = Duration::ZERO;
    let t0 = Instant::now();
    let next_multiple = |s: u64, k: u64| s.checked_div(k).map_or(u64::MAX, |q| (q + 1) * k);
    let mut last_checkpoint = None;
    // Seconds per step, measured: batches are cut to about BATCH_SECONDS.
    let mut per_step = 0.0f64;
    // Particle-steps computed (the count grows where particles are poured in).
    let mut updates = 0.0f64;
    let mut shortfalls = 0u64;
    // Steps run in batches (fused kicks inside a batch), up to the next output or
    // checkpoint and at most 50 steps so that the progress bar moves, and at most about
    // BATCH_SECONDS of steps, after which a signal is seen: an interrupted run stops on a
    // whole step soon after the signal, however large the system.
    while sim.step < end && !signals::stop_requested() {
        // A stage's changes, just before its first step.
        if let Some(st) = &mut staging {
            if let Some(what) = st.enter(sim)? {
                let name = st.name().to_string();
                pb.suspend(|| eprintln!("talus: step {}: stage `{name}` begins: {what}", sim.step));
            }
        }
        let until = staging.as_ref().map_or(plan.until, Staging::until);
        let until_every = until.map_or(0, |u| u.every);
        let stage_end = staging.as_ref().map_or(u64::MAX, Staging::stage_end);
        let by_time = if per_step > 0.0 {
            ((BATCH_SECONDS / per_step) as u64).max(1)
        } else {
            1
        };
        let stop = next_multiple(sim.step, plan.every)
            .min(next_multiple(sim.step, plan.energy_every))
            .min(next_multiple(sim.step, plan.checkpoint_every))
            .min(next_multiple(sim.step, analysis_every))
            .min(next_multiple(sim.step, until_every))
            .min(
                outflows
                    .iter()
                    .map(|o| next_multiple(sim.step, o.1))
                    .min()
                    .unwrap_or(u64::MAX),
            )
            .min(end)
            .min(stage_end)
            .min(sim.step + by_time.min(50));
        let batch = stop - sim.step;
        // The analysis reads the contact forces of the step before it: that step (the
        // batch's last) is logged where an analysis or, with analysis on, a frame follows.
        let analysis_due = analysis_every > 0 && (stop.is_multiple_of(analysis_every) || stop == end);
        let until_check = until_every > 0 && stop.is_multiple_of(until_every);
        let unbalanced_check = until_check && until.is_some_and(|u| u.unbalanced.is_some());
        // With [analysis], also every frame and every settle check (which may end the
        // run: its end has the analysis).
        let analysing = analysis_every > 0 && (stop.is_multiple_of(plan.every) || until_check);
        if analysis_due || unbalanced_check || analysing {
            sim.log_next_run();
        }
        let tb = Instant::now();
        let ran = match sim.run(batch) {
            Ok(()) => {
                per_step = tb.elapsed().as_secs_f64() / batch as f64;
                updates += sim.len() as f64 * batch as f64;
                batch
            }
            Err(e) => {
                pb.abandon();
                let saved = match ckpt.take().map(|c| c.finish()) {
                    Some(Ok(st)) => st
                        .last
                        .map(|p| format!("; newest checkpoint {}", p.display()))
                        .unwrap_or_default(),
                    Some(Err(ce)) => format!("; checkpoint writing also failed: {ce}"),
                    None => String::new(),
                };
                // What was written so far stays: every writer flushes per frame.
                return Err(format!("{e} (output so far is in {}{saved})", plan.dir.display()));
            }
        };
        // Insertions that fell short (LAMMPS: "Less insertions than requested"): the first
        // few are reported as they happen, all of them in the summary.
        for f in take_shortfalls(sim) {
            shortfalls += 1;
            if shortfalls <= MAX_SHORTFALL_LINES {
                pb.suspend(|| {
                    eprintln!(
                        "talus: warning: step {}: insert[{}] placed {} of {} particles (no room left in its region){}",
                        f.step,
                        f.stream,
                        f.inserted,
                        f.requested,
                        if shortfalls == MAX_SHORTFALL_LINES {
                            "; further shortfalls are only counted in the summary"
                        } else {
                            ""
                        }
                    )
                });
            }
        }
        // Grains in an outflow region go first: what follows (the settle test, frames,
        // checkpoints) sees the state without them, in this run and in a restart of it.
        for (k, (region, every)) in outflows.iter().enumerate() {
            if sim.step.is_multiple_of(*every) {
                let (removed, mass) = sim.remove_in_region(region);
                outflown[k].0 += removed;
                outflown[k].1 += mass;
                if let Some(o) = &mut out {
                    let interval = *every as f64 * sim.config.dt;
                    o.write_outflow(sim, k, removed, mass, interval)
                        .map_err(|e| e.to_string())?;
                }
            }
        }
        let settled_now = match until.filter(|_| until_check && sim.step < end.min(stage_end)) {
            Some(u) => settled_now(sim, &u, out.as_mut())?,
            None => None,
        };
        match (&mut staging, settled_now) {
            (None, Some(why)) => {
                pb.suspend(|| eprintln!("talus: settled at step {}: {why}", sim.step));
                settled = Some(why);
                end = sim.step;
            }
            (Some(st), why) if why.is_some() || sim.step == stage_end => {
                if let Some(w) = &why {
                    pb.suspend(|| eprintln!("talus: stage `{}` settled at step {}: {w}", st.name(), sim.step));
                }
                end = if st.advance(sim.step, why.as_deref()) {
                    st.last_end().min(cap)
                } else {
                    sim.step
                };
                if let Some(c) = &mut ckpt {
                    c.set_extra(STAGE_RECORD, st.record());
                }
            }
            _ => {}
        }
        // An early end writes what the run's end writes: the analysis too, where the
        // step was logged.
        let analysis_due = analysis_due || (analysis_every > 0 && sim.step == end && sim.contact_log().is_some());
        let frame = sim.step.is_multiple_of(plan.every) || sim.step == end;
        let energy = sim.step.is_multiple_of(plan.energy_every) || sim.step == end;
        write(sim, &mut out, &mut io_time, frame, energy)?;
        if let Some(o) = out.as_mut().filter(|_| analysis_due) {
            let t = Instant::now();
            o.write_analysis(sim).map_err(|e| e.to_string())?;
            io_time += t.elapsed();
        }
        if let Some(c) = &mut ckpt {
            if sim.step.is_multiple_of(plan.checkpoint_every) {
                c.write(sim).map_err(|e| e.to_string())?;
                last_checkpoint = Some(sim.step);
            }
        }
        pb.inc(ran);
        if let Some(th) = &mut thermo {
            if th.due() || sim.step == end {
                eprintln!("{}", th.line(sim));
            }
        }
    }
    let interrupted = (sim.step < end).then(|| signals::stopped_by().unwrap_or(0));
    if interrupted.is_some() {
        pb.abandon();
        signals::mark_interrupted();
        if let Some(th) = thermo.as_mut().filter(|th| th.behind(sim)) {
            eprintln!("{}", th.line(sim));
        }
        // The final checkpoint, even where the run writes none otherwise: the point of
        // stopping cleanly is to be able to go on.
        if last_checkpoint != Some(sim.step) {
            if ckpt.is_none() {
                locks.take(&plan.checkpoint_dir)?;
                ckpt = Some(new_checkpointer(sim, &staging)?);
            }
            if let Some(c) = &mut ckpt {
                c.write(sim).map_err(|e| e.to_string())?;
            }
        }
    } else {
        pb.finish_and_clear();
    }
    let wall = t0.elapsed().as_secs_f64();
    let ckpt_stats = match ckpt {
        Some(c) => Some(c.finish().map_err(|e| e.to_string())?),
        None => None,
    };
    let compute = wall - io_time.as_secs_f64() - ckpt_stats.as_ref().map_or(0.0, |c| c.stall.as_secs_f64());
    // Wall bodies (fixed or driven: hopper plates, drum segments) are not grains: the
    // counts per particle are per grain.
    let n = sim.grains();
    let wall_bodies = sim.len() - n;
    let done = sim.step - start_step;
    let e = sim.energies();
    let prof = sim.profile();
    println!("talus run summary");
    println!("  scenario            {}", plan.title);
    if wall_bodies > 0 {
        println!("  particles           {n} (and {wall_bodies} wall bodies)");
    } else {
        println!("  particles           {n}");
    }
    let periodic: Vec<&str> = sim
        .periodic_axes()
        .iter()
        .zip(["x", "y", "z"])
        .filter_map(|(&p, name)| p.then_some(name))
        .collect();
    if !periodic.is_empty() {
        let shear = match sim.shear_rate() {
            0.0 => String::new(),
            r => format!("; Lees-Edwards shear at {r} / s"),
        };
        println!(
            "  periodic            along {} (grains wrapped into the domain){shear}",
            periodic.join(", ")
        );
    }
    if let Some((s, speed, stress)) = sim.cell_servo() {
        let l = sim.config.domain_max[1] - sim.config.domain_min[1];
        println!(
            "  cell servo          y length {l:.6e} m (within {:.4e}..{:.4e}), growing at {speed:.3e} m/s; \
             normal stress {stress:.4e} against {:.4e} at the last measurement (every {} steps)",
            s.min_length, s.max_length, s.servo.target, s.every
        );
    }
    if !sim.wall_motions().is_empty() {
        let walls: Vec<String> = sim.wall_motions().iter().map(|m| format!("wall{}", m.wall)).collect();
        println!(
            "  moving walls        {} (their contacts listed again {} times as they moved)",
            walls.join(", "),
            sim.wall_relists()
        );
    }
    for t in sim.wall_tilts() {
        let (angle, rate) = t.angle(sim.time);
        println!(
            "  tilted wall         wall{} about {:?}: at {:.4} deg, turning at {:.4} deg/s",
            t.wall,
            t.pivot,
            angle.to_degrees(),
            rate.to_degrees()
        );
    }
    for sv in sim.wall_servos() {
        let target = if sv.across.is_empty() {
            format!("target {} N", sv.servo.target)
        } else {
            let force = sv.servo.target * sv.extent(&sim.walls);
            format!("target {force:.6e} N, a stress of {} over the face", sv.servo.target)
        };
        println!(
            "  servo               wall{}: load {:.6e} N ({target}), moved {:.6e} m",
            sv.wall, sv.load, sv.s
        );
    }
    let table = sim.pair_table();
    if table.has_extras() {
        let cohesion = table.extras.iter().map(|e| e.cohesion).fold(0.0, f64::max);
        let rolling = table.extras.iter().map(|e| e.rolling_friction).fold(0.0, f64::max);
        let (law, sizes) = (table.rolling.name(), table.cohesion.name());
        println!(
            "  contact extras      cohesion ({sizes}) up to {cohesion:e}, rolling friction ({law}) up to {rolling}"
        );
    }
    println!(
        "  steps               {done} ({}), now at step {}",
        plan.dt_note, sim.step
    );
    for (k, (removed, mass)) in outflown.iter().enumerate() {
        println!("  outflow[{k}]          {removed} grains out ({mass:.6e} kg)");
    }
    if let Some(why) = &settled {
        println!("  settled             {why} (the run's [run] until)");
    }
    if let Some(st) = &staging {
        for line in &st.ended {
            println!("  stage               {line}");
        }
    }
    for line in summary_extras(sim).insertions {
        println!("  inserted            {line}");
    }
    println!("  simulated time      {:.6e} s", sim.time);
    println!(
        "  wall time           {wall:.3} s (setup {:.3} s, output {:.3} s)",
        setup.as_secs_f64(),
        io_time.as_secs_f64()
    );
    println!(
        "  particle-updates/s  {:.3e} (N x steps / wall seconds without output and checkpoints: {:.3e})",
        updates / wall,
        updates / compute.max(1e-300)
    );
    println!("  phases              {}", phase_shares(prof));
    let near = sim.slotted_pairs().map_or(String::new(), |m| {
        format!("; {m} in slots, {:.2} per particle", m as f64 / n.max(1) as f64)
    });
    println!(
        "  neighbour updates   {} by {} ({} candidate pairs now, {:.2} per particle{near})",
        sim.neighbor_updates,
        sim.neighbor_method().name(),
        sim.candidate_pairs(),
        sim.candidate_pairs() as f64 / n.max(1) as f64
    );
    println!(
        "  contacts            {} pairs, {:.3} per particle (2 x pairs / N), {} with walls",
        e.contacts,
        2.0 * e.contacts as f64 / n.max(1) as f64,
        e.wall_contacts
    );
    println!(
        "  energy              kinetic {:.6e} J  rotational {:.6e} J  elastic {:.6e} J",
        e.kinetic, e.rotational, e.elastic
    );
    if let Some(line) = summary_extras(sim).narrow_phase {
        println!("  narrow phase        {line}");
    }
    println!("  memory              {}", memory_line(sim, n));
    match &out {
        Some(o) => {
            let files: Vec<String> = o.files().iter().map(|f| f.display().to_string()).collect();
            let frames = if plan.kinds.vtk { " (+ .vtu frames)" } else { "" };
            println!("  output              {}{frames}", files.join(", "));
        }
        None => println!("  output              none"),
    }
    if ckpt_stats.is_none() {
        println!("  checkpoints         none");
    }
    if let Some(c) = &ckpt_stats {
        let gb = c.bytes as f64 / 1e9;
        let step_s = prof.stepping / done.max(1) as f64;
        println!(
            "  checkpoints         {} written ({:.3} GB), run stalled {:.3} s in all ({:.2} GB/s; longest stop {:.1} ms = {:.1} steps), \
             background {:.3} s; in {}, newest {}",
            c.count,
            gb,
            c.stall.as_secs_f64(),
            gb / c.stall.as_secs_f64().max(1e-300),
            c.max_stall.as_secs_f64() * 1e3,
            c.max_stall.as_secs_f64() / step_s.max(1e-300),
            c.background.as_secs_f64(),
            plan.checkpoint_dir.display(),
            c.last.as_ref().map_or("none".into(), |p| p.display().to_string())
        );
    }
    if let Some(sig) = interrupted {
        let newest = ckpt_stats.as_ref().and_then(|c| c.last.clone());
        println!(
            "  stopped             by {} at step {} of {end}; final checkpoint {}",
            signals::name(sig),
            sim.step,
            newest.as_ref().map_or("none".into(), |p| p.display().to_string())
        );
        eprintln!(
            "talus: stopped by {} at step {}; continue with: talus restart {}",
            signals::name(sig),
            sim.step,
            restart_hint(plan).display()
        );
    }
    println!(
        "  threads             {} ({} force summation; {} build of the hot loops)",
        sim.threads(),
        sim.force_strategy(),
        talus_kernels::vector_build::Build::detect().name()
    );
    if parallel.profile {
        println!("profile (per phase and thread; wait = time at the closing barrier, wake-up included)");
        print!("{}", profile_table(prof));
    }
    if let Some(path) = &parallel.profile_csv {
        write_profile_csv(prof, path)?;
        println!("  profile CSV         {}", path.display());
    }
    Ok(())
}

/// The summary's memory line: the arrays' bytes per particle, and by part (those of half
/// a byte per particle or more), so that a user tuning a large run sees what to cut.
fn memory_line(sim: &Simulation, n: usize) -> String {
    let m = sim.memory_parts();
    let per = |b: usize| b as f64 / n.max(1) as f64;
    let parts: Vec<String> = [
        ("particle store", m.particles),
        ("contact table", m.contact_table),
        ("pairs without slots", m.slotless_pairs),
        ("wall contacts", m.wall_contacts),
        ("neighbour search", m.neighbor_search),
        ("Gear history", m.gear_history),
        ("polygon shapes", m.shapes),
    ]
    .iter()
    .filter(|(_, b)| per(*b) >= 0.5)
    .map(|(name, b)| format!("{name} {:.0}", per(*b)))
    .collect();
    format!(
        "{:.0} bytes per particle (arrays): {}",
        per(m.total()),
        parts.join(", ")
    )
}
