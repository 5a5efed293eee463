//! `talus run`: build a scenario, step it with a progress bar, write output, summarise.
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use talus_engine::NeighborMethod;
use talus_engine::Simulation;
use talus_io::build::{build_default, build_file, Built};
use talus_io::checkpoint::fnv1a;
use talus_io::checkpointer::Checkpointer;
use talus_io::output::{OutputKinds, Outputs};

use crate::folder_lock::FolderLock;
use crate::parallel_opts::{phase_shares, profile_table, write_profile_csv, ParallelArgs};
use crate::signals;
use crate::thermo::Thermo;

#[derive(Args)]
pub struct RunArgs {
    /// Scenario file (TOML). Without it, the built-in default scenario runs
    /// (see `talus default-scenario`).
    pub scenario: Option<PathBuf>,
    /// Neighbour search (overrides [neighbor] method): sweep, quadtree, cells, verlet,
    /// hashing, dess, striped, bvh, brute, or auto (time a short trial of sweep, quadtree, cells and verlet on this
    /// scenario, then run the fastest).
    #[arg(long)]
    pub neighbor: Option<NeighborChoice>,
    #[command(flatten)]
    pub stepping: StepArgs,
    #[command(flatten)]
    pub parallel: ParallelArgs,
}

/// How long to run and what to write: shared by `talus run` and `talus restart`, each
/// option overriding the scenario's setting.
#[derive(Args)]
pub struct StepArgs {
    /// Number of steps, at least 1 (overrides [run] steps; `talus restart` runs this many
    /// more, by default up to the end step of the run it continues).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub steps: Option<u64>,
    /// Output folder, for everything the run writes: output series, and checkpoints in
    /// its `checkpoints/` unless [checkpoint] dir or --checkpoint-dir say otherwise
    /// (overrides [output] dir; a restart writes into the folder of the run it continues,
    /// see `talus restart --help`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write output every this many steps, at least 1 (overrides [output] every).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub every: Option<u64>,
    /// Write an energy row every this many steps (overrides [output] energy_every;
    /// default: with every frame), at least 1.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub energy_every: Option<u64>,
    /// Write no output files at all.
    #[arg(long)]
    pub no_output: bool,
    /// No progress bar, and no progress lines in a log.
    #[arg(long, short)]
    pub quiet: bool,
    /// When standard error is not a terminal (a log file), a progress line every this many
    /// seconds: step, simulated time, energies, contacts, updates/s, time left (0: every
    /// 50 steps at most).
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS", value_parser = seconds)]
    pub thermo: f64,
    /// Write a checkpoint every this many steps (overrides [checkpoint] every; 0: none).
    #[arg(long)]
    pub checkpoint_every: Option<u64>,
    /// Checkpoint folder (overrides [checkpoint] dir; relative to the current folder).
    #[arg(long)]
    pub checkpoint_dir: Option<PathBuf>,
    /// Keep the newest K checkpoints, at least 1 (overrides [checkpoint] keep).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub keep: Option<u64>,
}

/// A number of seconds: finite, not negative.
fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!("{s:?} is not a number of seconds (0 or more)")),
    }
}

/// The scenario's settings a [`Plan`] starts from.
pub struct Defaults<'a> {
    pub steps: u64,
    pub output: &'a talus_io::scenario::Output,
    /// Output folder when `--out` is not given.
    pub dir: PathBuf,
    /// The run's folder when `--out` is not given (see [`Plan::run_dir`]).
    pub run_dir: PathBuf,
    pub checkpoint: &'a talus_io::scenario::CheckpointSettings,
    /// Checkpoint folder when neither `--checkpoint-dir` nor `--out` is given (a restart:
    /// the folder of the checkpoint it continues); otherwise `[checkpoint] dir` in the
    /// output folder.
    pub checkpoint_dir: Option<PathBuf>,
    pub scenario_text: String,
    pub title: String,
    pub dt_note: String,
}

impl StepArgs {
    /// The plan: these options over the scenario's settings.
    pub fn plan(&self, d: Defaults<'_>, parallel: &ParallelArgs) -> Plan {
        let o = d.output;
        let dir = self.out.clone().unwrap_or(d.dir);
        // A relative [checkpoint] dir is relative to the output folder (an absolute one
        // replaces it in the join).
        let checkpoint_dir = match (&self.checkpoint_dir, &self.out, d.checkpoint_dir) {
            (Some(c), _, _) => c.clone(),
            (None, None, Some(c)) => c,
            _ => dir.join(&d.checkpoint.dir),
        };
        Plan {
            steps: self.steps.unwrap_or(d.steps),
            every: self.every.unwrap_or(o.every).max(1),
            energy_every: self
                .energy_every
                .or(o.energy_every)
                .unwrap_or(self.every.unwrap_or(o.every))
                .max(1),
            run_dir: self.out.clone().unwrap_or(d.run_dir),
            dir,
            kinds: OutputKinds {
                vtk: o.vtk && !self.no_output,
                dump: o.dump && !self.no_output,
                energy: o.energy && !self.no_output,
            },
            checkpoint_every: self.checkpoint_every.unwrap_or(d.checkpoint.every),
            checkpoint_dir,
            keep: self.keep.map_or(d.checkpoint.keep, |k| k as usize),
            scenario_text: d.scenario_text,
            run_settings: run_settings(parallel),
            quiet: self.quiet,
            thermo: self.thermo,
            title: d.title,
            dt_note: d.dt_note,
            append: false,
        }
    }
}

/// `--neighbor`: a method, or a trial to pick one.
#[derive(Clone, Copy, Debug)]
pub enum NeighborChoice {
    Auto,
    Method(NeighborMethod),
}

impl std::str::FromStr for NeighborChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "auto" {
            Ok(NeighborChoice::Auto)
        } else {
            s.parse()
                .map(NeighborChoice::Method)
                .map_err(|e| format!("{e}, or auto"))
        }
    }
}

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
    for m in [
        NeighborMethod::Sweep,
        NeighborMethod::Quadtree,
        NeighborMethod::Cells,
        NeighborMethod::Verlet,
    ] {
        let mut sim = build_scenario(a)?.sim;
        sim.set_neighbor_method(m);
        a.parallel.apply(&mut sim)?;
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
        .expect("three methods");
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
    match a.neighbor {
        Some(NeighborChoice::Method(m)) => sim.set_neighbor_method(m),
        Some(NeighborChoice::Auto) => {
            let (m, why) = pick_neighbor(&a, steps)?;
            eprintln!("talus: {why}");
            sim.set_neighbor_method(m);
        }
        None => {}
    }
    a.parallel.apply(&mut sim)?;
    let plan = a.stepping.plan(
        Defaults {
            steps,
            output: &built.output,
            dir: built.output.dir.clone(),
            run_dir: built.output.dir.clone(),
            checkpoint: &built.checkpoint,
            checkpoint_dir: None,
            scenario_text: built.scenario_text.clone(),
            title: built.title.clone(),
            dt_note: built.dt_note.clone(),
        },
        &a.parallel,
    );
    let setup = t_setup.elapsed();
    step_and_report(&mut sim, &plan, setup, &a.parallel)
}

/// The run settings a checkpoint records (for `talus inspect`; a restart takes its own).
pub fn run_settings(p: &ParallelArgs) -> String {
    format!(
        "threads = {}\nplacement = {}\nforce_strategy = {}\ntalus = {}\n",
        p.threads,
        p.placement(),
        p.force_strategy,
        env!("CARGO_PKG_VERSION")
    )
}

/// What to do with a ready simulation: how many steps, what to write where.
pub struct Plan {
    pub steps: u64,
    pub every: u64,
    pub energy_every: u64,
    /// Output folder.
    pub dir: PathBuf,
    /// The run's folder: the output folder of `talus run`; for a restart, the folder of the
    /// run it continues (its output goes there, or into restart-STEP/ in it).
    pub run_dir: PathBuf,
    pub kinds: OutputKinds,
    /// 0: no checkpoints.
    pub checkpoint_every: u64,
    pub checkpoint_dir: PathBuf,
    pub keep: usize,
    pub scenario_text: String,
    pub run_settings: String,
    pub quiet: bool,
    /// Seconds between progress lines when standard error is not a terminal.
    pub thermo: f64,
    pub title: String,
    pub dt_note: String,
    /// Continue the output series already in `dir` (a restart) instead of starting them.
    pub append: bool,
}

/// The longest a batch of steps should take: how long a signal may wait to be seen.
const BATCH_SECONDS: f64 = 0.1;

/// Insertion shortfalls reported as they happen (the rest only in the summary).
const MAX_SHORTFALL_LINES: u64 = 10;

/// Checkpoint files are named `checkpoint-STEP.talus`.
pub const CHECKPOINT_PREFIX: &str = "checkpoint";

/// Step `sim` by the plan, writing output and checkpoints at multiples of their
/// intervals (in absolute steps, so that a restarted run writes at the same steps), then
/// print the summary.
pub fn step_and_report(
    sim: &mut Simulation,
    plan: &Plan,
    setup: Duration,
    parallel: &ParallelArgs,
) -> Result<(), String> {
    let t_setup = Instant::now();
    // From here on Ctrl-C and SIGTERM end the run after the current step, with a final
    // checkpoint and the summary (installed before any temporary file exists).
    signals::install()?;
    let any_output = plan.kinds.vtk || plan.kinds.dump || plan.kinds.energy;
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
    let mut out = if any_output {
        let o = if plan.append {
            Outputs::resume(&plan.dir, plan.kinds, sim.step)
        } else {
            Outputs::create(&plan.dir, plan.kinds)
        };
        Some(o.map_err(|e| e.to_string())?)
    } else {
        None
    };
    let end = sim.step + plan.steps;
    let new_checkpointer = |sim: &Simulation| {
        Checkpointer::new(
            &plan.checkpoint_dir,
            CHECKPOINT_PREFIX,
            plan.keep,
            fnv1a(plan.scenario_text.as_bytes()),
            vec![
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
            ],
            sim,
        )
        .map_err(|e| e.to_string())
    };
    let mut ckpt = if plan.checkpoint_every > 0 {
        Some(new_checkpointer(sim)?)
    } else {
        None
    };
    let setup = setup + t_setup.elapsed();
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
    let write = |sim: &Simulation, out: &mut Option<Outputs>, io: &mut Duration, frame: bool, energy: bool| {
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
        !plan.append || sim.step.is_multiple_of(plan.every) || at_end,
        !plan.append || sim.step.is_multiple_of(plan.energy_every) || at_end,
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
        let by_time = if per_step > 0.0 {
            ((BATCH_SECONDS / per_step) as u64).max(1)
        } else {
            1
        };
        let stop = next_multiple(sim.step, plan.every)
            .min(next_multiple(sim.step, plan.energy_every))
            .min(next_multiple(sim.step, plan.checkpoint_every))
            .min(end)
            .min(sim.step + by_time.min(50));
        let batch = stop - sim.step;
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
        for f in sim.take_shortfalls() {
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
        let frame = sim.step.is_multiple_of(plan.every) || sim.step == end;
        let energy = sim.step.is_multiple_of(plan.energy_every) || sim.step == end;
        write(sim, &mut out, &mut io_time, frame, energy)?;
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
                ckpt = Some(new_checkpointer(sim)?);
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
    println!(
        "  steps               {done} ({}), now at step {}",
        plan.dt_note, sim.step
    );
    for (k, ins) in sim.insertions().iter().enumerate() {
        let c = &ins.counts;
        let next = match ins.next_step() {
            Some(s) => format!("next insertion at step {s}"),
            None => "done".into(),
        };
        println!(
            "  inserted            insert[{k}]: {} particles of {} requested in {} insertions{} ({next})",
            c.inserted,
            c.requested,
            c.events,
            if c.short_events > 0 {
                format!(
                    ", {} short by {} in all (the region was full)",
                    c.short_events,
                    c.requested - c.inserted
                )
            } else {
                String::new()
            }
        );
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
    println!(
        "  neighbour updates   {} by {} ({} candidate pairs now, {:.2} per particle)",
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
    if sim.shapes.is_some() {
        let ns = sim.narrow;
        let pct = |x: u64| 100.0 * x as f64 / ns.candidates.max(1) as f64;
        println!(
            "  narrow phase        {} candidate pair checks with a polygon: {:.1}% rejected by the bounding circles, \
             {:.1}% by the centre-line projections, {:.1}% by the separating line ({:.2} moves per search), \
             {:.1}% found apart ({:.1}% by the gap left from their last closest-feature walk, the rest by a walk: \
             {:.2} feature pairs per walk, {} fallbacks), {:.1}% touching \
             ({:.1}% of the polygon overlaps tracked from their crossing edges, the rest clipped; \
             {} redone with exact signs, {} in expansion arithmetic)",
            ns.candidates,
            pct(ns.circle_rejected),
            pct(ns.projection_rejected),
            pct(ns.line_rejected),
            ns.line_iterations as f64 / (ns.projection_tested - ns.projection_rejected).max(1) as f64,
            pct(ns.separated),
            pct(ns.gap_skips),
            ns.walk_steps as f64 / (ns.separated - ns.gap_skips + ns.touching).max(1) as f64,
            ns.fallbacks,
            pct(ns.touching),
            100.0 * ns.tracked as f64 / (ns.tracked + ns.clipped).max(1) as f64,
            ns.accurate,
            ns.exact
        );
    }
    println!(
        "  memory              {:.0} bytes per particle (arrays)",
        sim.memory_bytes() as f64 / n.max(1) as f64
    );
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
        "  threads             {} ({} force summation)",
        sim.threads(),
        sim.force_strategy()
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

/// The locks of the folders a run writes into, each taken once.
#[derive(Default)]
struct Locks(Vec<(PathBuf, FolderLock)>);

impl Locks {
    fn take(&mut self, dir: &Path) -> Result<(), String> {
        let key = std::path::absolute(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        if !self.0.iter().any(|(k, _)| *k == key) {
            let lock = FolderLock::take(dir)?;
            self.0.push((key, lock));
        }
        Ok(())
    }
}

/// How a checkpoint's run was stepped and what it wrote, recorded in its run settings so
/// that `talus restart` (with `--append`: byte for byte) continues it as it was run, with
/// the intervals and the end step its command line gave, not the scenario's.
pub fn stepping_settings(plan: &Plan, end: u64) -> String {
    let k = plan.kinds;
    format!(
        "end_step = {end}\nevery = {}\nenergy_every = {}\ncheckpoint_every = {}\nkeep = {}\noutput = {}\n",
        plan.every,
        plan.energy_every,
        plan.checkpoint_every,
        plan.keep,
        if k.vtk || k.dump || k.energy { "on" } else { "none" }
    )
}

/// The [`stepping_settings`] a checkpoint recorded, where it did.
#[derive(Default)]
pub struct RecordedStepping {
    pub end_step: Option<u64>,
    pub every: Option<u64>,
    pub energy_every: Option<u64>,
    pub checkpoint_every: Option<u64>,
    pub keep: Option<u64>,
    pub no_output: bool,
}

impl RecordedStepping {
    /// Read from a checkpoint's run settings (`key = value` lines; absent keys: None).
    pub fn parse(settings: &str) -> RecordedStepping {
        let get = |key: &str| {
            settings.lines().find_map(|l| {
                l.split_once(" = ")
                    .filter(|(k, _)| *k == key)
                    .map(|(_, v)| v.trim().to_string())
            })
        };
        let num = |key: &str| get(key).and_then(|v| v.parse::<u64>().ok());
        RecordedStepping {
            end_step: num("end_step"),
            every: num("every").filter(|&e| e >= 1),
            energy_every: num("energy_every").filter(|&e| e >= 1),
            checkpoint_every: num("checkpoint_every"),
            keep: num("keep").filter(|&k| k >= 1),
            no_output: get("output").as_deref() == Some("none"),
        }
    }
}

impl StepArgs {
    /// Fill what the command line left open from what the continued run recorded; `steps`
    /// runs up to the recorded end step from `step` (when it lies ahead).
    pub fn continue_from(&mut self, r: &RecordedStepping, step: u64) {
        self.every = self.every.or(r.every);
        self.energy_every = self.energy_every.or(r.energy_every);
        self.checkpoint_every = self.checkpoint_every.or(r.checkpoint_every);
        self.keep = self.keep.or(r.keep);
        self.no_output |= r.no_output;
        if self.steps.is_none() {
            self.steps = r.end_step.filter(|&e| e > step).map(|e| e - step);
        }
    }
}

/// Where a checkpoint's run wrote, recorded in its run settings so that `talus restart`
/// continues in the same folders: the run's folder (absolute) and the checkpoint folder
/// relative to it (which still holds when the whole folder is moved or copied).
pub fn folder_settings(plan: &Plan) -> String {
    let run = std::path::absolute(&plan.run_dir).unwrap_or_else(|_| plan.run_dir.clone());
    let ck = std::path::absolute(&plan.checkpoint_dir).unwrap_or_else(|_| plan.checkpoint_dir.clone());
    let mut s = format!("run_dir = {}\n", run.display());
    if let Ok(rel) = ck.strip_prefix(&run) {
        s += &format!("checkpoint_dir_in_run = {}\n", rel.display());
    }
    s
}

/// The folder to give `talus restart` to continue this run: the run's folder when the
/// checkpoints are in it (the restart finds them there), else the checkpoint folder.
fn restart_hint(plan: &Plan) -> PathBuf {
    let run = std::path::absolute(&plan.run_dir).unwrap_or_else(|_| plan.run_dir.clone());
    let ck = std::path::absolute(&plan.checkpoint_dir).unwrap_or_else(|_| plan.checkpoint_dir.clone());
    // One level down is as far as `restart` looks.
    if ck == run || ck.parent() == Some(run.as_path()) {
        plan.run_dir.clone()
    } else {
        plan.checkpoint_dir.clone()
    }
}
