//! `talus restart` (continue a run from a checkpoint) and `talus inspect` (show and verify
//! a checkpoint).
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use talus_io::checkpoint::{fnv1a, list, Checkpoint};
use talus_io::scenario::parse_scenario;

use crate::parallel_opts::ParallelArgs;
use crate::run::{step_and_report, Defaults, StepArgs, CHECKPOINT_PREFIX};

#[derive(Args)]
pub struct RestartArgs {
    /// A checkpoint file, or a folder of checkpoints: the newest complete one there.
    pub path: PathBuf,
    /// Refuse the checkpoint unless it was made from this scenario file.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// Continue the output series (.pvd, dump, energy.csv) in the output folder (the
    /// scenario's, or --out) instead of writing new ones in restart-STEP/: frames of steps
    /// before the restart step are kept, later ones (of a run that went further) dropped.
    #[arg(long)]
    pub append: bool,
    #[command(flatten)]
    pub stepping: StepArgs,
    /// Threads and force summation of the continued run. The deterministic strategy gives
    /// bitwise the states of an uninterrupted run for any thread count; the others only
    /// with the thread count of the first run.
    #[command(flatten)]
    pub parallel: ParallelArgs,
}

/// The checkpoint `path` names: the file itself, or the newest in a folder (an older one,
/// with a warning, if the newest cannot be read).
fn open(path: &Path) -> Result<Checkpoint, String> {
    if !path.is_dir() {
        return Checkpoint::open(path).map_err(|e| e.to_string());
    }
    let all = list(path, CHECKPOINT_PREFIX).map_err(|e| e.to_string())?;
    let mut errors = Vec::new();
    for p in all.iter().rev() {
        match Checkpoint::open(p) {
            Ok(c) => {
                for e in &errors {
                    eprintln!("talus: warning: skipped {e}");
                }
                return Ok(c);
            }
            Err(e) => errors.push(e.to_string()),
        }
    }
    Err(if errors.is_empty() {
        format!(
            "{}: no checkpoints ({CHECKPOINT_PREFIX}-STEP.talus) in this folder",
            path.display()
        )
    } else {
        format!("{}: no usable checkpoint: {}", path.display(), errors.join("; "))
    })
}

pub fn restart(a: RestartArgs) -> Result<(), String> {
    let t0 = Instant::now();
    let ck = open(&a.path)?;
    let text = ck
        .text("scenario.toml")
        .ok_or_else(|| {
            ck.error(Some("scenario.toml"), "missing or not UTF-8".into())
                .to_string()
        })?
        .to_string();
    if let Some(p) = &a.scenario {
        let given = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        if fnv1a(given.as_bytes()) != ck.header.scenario_hash {
            return Err(format!(
                "{}: checkpoint was not made from scenario {} (scenario hash {:#018x}, the file's is {:#018x}); \
                 nothing was run",
                ck.path.display(),
                p.display(),
                ck.header.scenario_hash,
                fnv1a(given.as_bytes())
            ));
        }
    }
    if fnv1a(text.as_bytes()) != ck.header.scenario_hash {
        return Err(ck
            .error(
                Some("scenario.toml"),
                "the scenario text does not match the header's hash".into(),
            )
            .to_string());
    }
    let scenario = parse_scenario(&text, &ck.path.join("scenario.toml")).map_err(|e| {
        ck.error(
            Some("scenario.toml"),
            format!("the scenario it carries does not parse: {e}"),
        )
        .to_string()
    })?;
    let mut sim = ck.simulation().map_err(|e| e.to_string())?;
    if let Some(saved) = ck.text("run.settings") {
        let get = |key: &str| {
            saved.lines().find_map(|l| {
                l.split_once(" = ")
                    .filter(|(k, _)| *k == key)
                    .map(|(_, v)| v.trim().to_string())
            })
        };
        let (threads, strategy) = (get("threads"), get("force_strategy"));
        let p = &a.parallel;
        let same_strategy = strategy.as_deref() == Some(p.force_strategy.as_str());
        let exact = same_strategy && (p.force_strategy == "deterministic" || threads == Some(p.threads.to_string()));
        if !exact {
            eprintln!(
                "talus: warning: the checkpointed run used {} threads and {} force summation, this one {} and {}: \
                 the continuation is bitwise that of an uninterrupted run only with deterministic summation, or \
                 with the same threads and strategy",
                threads.as_deref().unwrap_or("?"),
                strategy.as_deref().unwrap_or("?"),
                p.threads,
                p.force_strategy
            );
        }
    }
    a.parallel.apply(&mut sim)?;
    let setup = t0.elapsed();
    let step = sim.step;
    eprintln!(
        "talus: restarted from {} at step {step} (t = {:.6e} s) in {:.3} s",
        ck.path.display(),
        sim.time,
        setup.as_secs_f64()
    );
    let mut plan = a.stepping.plan(
        Defaults {
            steps: scenario.run.steps.saturating_sub(step),
            output: &scenario.output,
            dir: if a.append {
                scenario.output.dir.clone()
            } else {
                scenario.output.dir.join(format!("restart-{step}"))
            },
            checkpoint: &scenario.checkpoint,
            scenario_text: text,
            title: scenario.title.clone().unwrap_or_else(|| ck.path.display().to_string()),
            dt_note: format!("dt = {:.4e} s", sim.config.dt),
        },
        &a.parallel,
    );
    plan.append = a.append;
    drop(ck);
    step_and_report(&mut sim, &plan, setup, &a.parallel)
}

#[derive(Args)]
pub struct InspectArgs {
    /// The checkpoint file.
    pub file: PathBuf,
    /// Also print the scenario text and run settings the checkpoint carries.
    #[arg(long)]
    pub text: bool,
}

/// Print the header and the section table, verify every checksum; an error (non-zero exit)
/// if any section is damaged.
pub fn inspect(a: InspectArgs) -> Result<(), String> {
    let ck = Checkpoint::open_unverified(&a.file).map_err(|e| e.to_string())?;
    let h = &ck.header;
    println!("checkpoint {}", ck.path.display());
    println!(
        "  format version  {} (dimension {}, byte order native)",
        h.version, h.dimension
    );
    println!("  particles       {}", h.particles);
    println!("  step            {}", h.step);
    println!("  simulated time  {:.9e} s", h.time);
    println!("  scenario hash   {:#018x}", h.scenario_hash);
    println!("  settings digest {:#018x}", h.settings_hash);
    println!("  file size       {} bytes, {} sections", h.file_bytes, h.sections);
    println!(
        "  {:<20} {:>5} {:>12} {:>14} {:>12}  {:>10}",
        "section", "type", "elements", "offset", "bytes", "crc32"
    );
    let t = Instant::now();
    let checked = ck.verify();
    let dt = t.elapsed().as_secs_f64();
    let mut bad = Vec::new();
    for (e, ok) in &checked {
        let elem = talus_engine::Elem::from_code(e.elem).expect("checked when opened");
        println!(
            "  {:<20} {:>5} {:>12} {:>14} {:>12}  {:08x} {}",
            e.name(),
            elem.name(),
            e.len as usize / elem.size(),
            e.offset,
            e.len,
            e.crc,
            if *ok { "ok" } else { "DAMAGED" }
        );
        if !ok {
            bad.push(e.name().to_string());
        }
    }
    println!(
        "  checksums       {} of {} sections verified in {:.3} s ({:.2} GB/s)",
        checked.len() - bad.len(),
        checked.len(),
        dt,
        h.file_bytes as f64 / 1e9 / dt.max(1e-300)
    );
    if a.text {
        for name in ["run.settings", "scenario.toml"] {
            if let Some(t) = ck.text(name) {
                println!("--- {name}\n{t}");
            }
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}: checksum mismatch in section(s) {}: the file was changed or damaged",
            ck.path.display(),
            bad.join(", ")
        ))
    }
}
