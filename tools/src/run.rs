//! `talus run`: its options, the plan they make with the scenario's settings, and which
//! build steps the scenario (2D, or 3D where the file says `dimension = 3`). The stepping
//! itself is `stepping.rs`, compiled once per dimension (`dim2.rs`, `dim3.rs`).
use std::path::{Path, PathBuf};

use clap::Args;

use crate::folder_lock::FolderLock;
use crate::parallel_opts::ParallelArgs;
use crate::{dim2, dim3};

#[derive(Args)]
pub struct RunArgs {
    /// Scenario file (TOML). Without it, the built-in default scenario runs
    /// (see `talus default-scenario`).
    pub scenario: Option<PathBuf>,
    /// Neighbour search (overrides [neighbor] method): sweep, quadtree (an octree in 3D,
    /// where "octree" names it too), cells, verlet, hashing, dess, striped, bvh, brute
    /// (3D: sweep, quadtree, cells, verlet, brute), or auto (time a short trial of sweep,
    /// quadtree, cells and verlet on this scenario, then run the fastest).
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

/// The scenario's `[output]`, as a [`Plan`] needs it.
pub struct OutputSettings {
    pub every: u64,
    pub energy_every: Option<u64>,
    pub vtk: bool,
    pub dump: bool,
    pub energy: bool,
    /// The scenario's `[analysis]`, if any.
    pub analysis: Option<AnalysisSettings>,
}

/// The scenario's `[analysis]`, as a [`Plan`] needs it (the region's corners as plain
/// numbers: this file serves both dimensions).
#[derive(Clone, Debug)]
pub struct AnalysisSettings {
    pub every: u64,
    pub network: bool,
    pub region: Option<(Vec<f64>, Vec<f64>)>,
}

/// The scenario's `[checkpoint]`, as a [`Plan`] needs it.
pub struct CheckpointSettings {
    pub every: u64,
    pub keep: usize,
    pub dir: PathBuf,
}

/// Which output series to write.
#[derive(Debug, Clone, Copy)]
pub struct Kinds {
    pub vtk: bool,
    pub dump: bool,
    pub energy: bool,
    /// `outflow.csv` (a run with `[[outflow]]` regions).
    pub outflow: bool,
}

/// `[run] until`, as a [`Plan`] needs it: stop at the first check (every `every` steps)
/// where the grains' kinetic energy and the unbalanced-force ratio, where given, are below
/// these.
#[derive(Clone, Copy, Debug)]
pub struct UntilSettings {
    pub kinetic: Option<f64>,
    pub unbalanced: Option<f64>,
    pub servo: Option<f64>,
    pub every: u64,
}

/// An `[[outflow]]` region, as a [`Plan`] needs it (corners as plain numbers).
#[derive(Clone, Debug)]
pub struct OutflowSettings {
    pub min: Vec<f64>,
    pub max: Vec<f64>,
    pub every: u64,
}

/// The scenario's settings a [`Plan`] starts from.
pub struct Defaults {
    pub steps: u64,
    pub until: Option<UntilSettings>,
    pub outflows: Vec<OutflowSettings>,
    pub output: OutputSettings,
    /// Output folder when `--out` is not given.
    pub dir: PathBuf,
    /// The run's folder when `--out` is not given (see [`Plan::run_dir`]).
    pub run_dir: PathBuf,
    pub checkpoint: CheckpointSettings,
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
    pub fn plan(&self, d: Defaults, parallel: &ParallelArgs) -> Plan {
        let o = d.output;
        let dir = self.out.clone().unwrap_or(d.dir);
        // A relative [checkpoint] dir is relative to the output folder (an absolute one
        // replaces it in the join).
        let checkpoint_dir = match (&self.checkpoint_dir, &self.out, d.checkpoint_dir) {
            (Some(c), _, _) => c.clone(),
            (None, None, Some(c)) => c,
            _ => dir.join(&d.checkpoint.dir),
        };
        let outflow_csv = !d.outflows.is_empty() && !self.no_output;
        Plan {
            steps: self.steps.unwrap_or(d.steps),
            until: d.until,
            outflows: d.outflows,
            every: self.every.unwrap_or(o.every).max(1),
            energy_every: self
                .energy_every
                .or(o.energy_every)
                .unwrap_or(self.every.unwrap_or(o.every))
                .max(1),
            run_dir: self.out.clone().unwrap_or(d.run_dir),
            dir,
            kinds: Kinds {
                vtk: o.vtk && !self.no_output,
                dump: o.dump && !self.no_output,
                energy: o.energy && !self.no_output,
                outflow: outflow_csv,
            },
            analysis: o.analysis.filter(|_| !self.no_output),
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

/// `--neighbor`: a method (by its name: the build that runs the scenario knows its
/// methods), or a trial to pick one.
#[derive(Clone, Debug)]
pub enum NeighborChoice {
    Auto,
    Method(String),
}

impl std::str::FromStr for NeighborChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(if s == "auto" {
            NeighborChoice::Auto
        } else {
            NeighborChoice::Method(s.to_string())
        })
    }
}

/// What a run summary says beside the common lines: a line per insertion stream, and the
/// polygon narrow phase's statistics (2D).
#[derive(Debug, Default)]
pub struct SummaryExtras {
    pub insertions: Vec<String>,
    pub narrow_phase: Option<String>,
}

/// `talus run`: the scenario's dimension picks the build (a file that cannot be read or
/// parsed goes to the 2D build, whose error names the problem).
pub fn run(a: RunArgs) -> Result<(), String> {
    let dimension = a.scenario.as_ref().and_then(|p| {
        let text = std::fs::read_to_string(p).ok()?;
        talus_io::scenario::scenario_dimension(&text, p).ok()
    });
    match dimension {
        Some(3) => dim3::stepping::run(a),
        _ => dim2::stepping::run(a),
    }
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
    /// Stop earlier once settled (`[run] until`).
    pub until: Option<UntilSettings>,
    /// Regions that take grains out (`[[outflow]]`).
    pub outflows: Vec<OutflowSettings>,
    pub every: u64,
    pub energy_every: u64,
    /// Output folder.
    pub dir: PathBuf,
    /// The run's folder: the output folder of `talus run`; for a restart, the folder of the
    /// run it continues (its output goes there, or into restart-STEP/ in it).
    pub run_dir: PathBuf,
    pub kinds: Kinds,
    /// `[analysis]` (None: no analysis, or no output at all).
    pub analysis: Option<AnalysisSettings>,
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

/// Checkpoint files are named `checkpoint-STEP.talus`.
pub const CHECKPOINT_PREFIX: &str = "checkpoint";

/// The locks of the folders a run writes into, each taken once.
#[derive(Default)]
pub struct Locks(Vec<(PathBuf, FolderLock)>);

impl Locks {
    pub fn take(&mut self, dir: &Path) -> Result<(), String> {
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
pub fn restart_hint(plan: &Plan) -> PathBuf {
    let run = std::path::absolute(&plan.run_dir).unwrap_or_else(|_| plan.run_dir.clone());
    let ck = std::path::absolute(&plan.checkpoint_dir).unwrap_or_else(|_| plan.checkpoint_dir.clone());
    // One level down is as far as `restart` looks.
    if ck == run || ck.parent() == Some(run.as_path()) {
        plan.run_dir.clone()
    } else {
        plan.checkpoint_dir.clone()
    }
}
