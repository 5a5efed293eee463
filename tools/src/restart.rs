//! `talus restart` (continue a run from a checkpoint) and `talus inspect` (show and verify
//! a checkpoint).
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use talus_io::checkpoint::{fnv1a, list, Checkpoint};
use talus_io::scenario::parse_scenario;

use crate::dim2::profile::apply_parallel;
use crate::dim2::stepping::{checkpoint_settings, output_settings, step_and_report};
use crate::parallel_opts::ParallelArgs;
use crate::run::{Defaults, RecordedStepping, StepArgs, CHECKPOINT_PREFIX};

#[derive(Args)]
pub struct RestartArgs {
    /// A checkpoint file, or a folder: the newest complete checkpoint in it or in its
    /// subfolders (a run's output folder holds them in checkpoints/).
    pub path: PathBuf,
    /// Refuse the checkpoint unless it was made from this scenario file.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// Continue the output series (.pvd, dump, energy.csv) in the folder of the run it
    /// continues (or --out) instead of writing new ones in restart-STEP/ there: frames of
    /// steps before the restart step are kept, later ones (of a run that went further)
    /// dropped. The restart's checkpoints go where the checkpoint came from (with --out:
    /// into its checkpoints/). Either way the run goes on with the intervals, kept count,
    /// output choice and end step it was started with (recorded in the checkpoint), unless
    /// given here.
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

/// The checkpoint files in `dir` and in its immediate subfolders (a run's folder holds
/// them in `checkpoints/`), oldest first.
fn candidates(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut all = list(dir, CHECKPOINT_PREFIX).map_err(|e| e.to_string())?;
    for entry in std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
    {
        if entry.path().is_dir() {
            all.extend(list(&entry.path(), CHECKPOINT_PREFIX).unwrap_or_default());
        }
    }
    // The names carry the step, zero-padded: their order is the steps'.
    all.sort_by(|a, b| a.file_name().cmp(&b.file_name()).then_with(|| a.cmp(b)));
    Ok(all)
}

/// No checkpoint in a folder.
fn none_in(dir: &Path) -> String {
    format!(
        "{}: no checkpoints ({CHECKPOINT_PREFIX}-STEP.talus) in this folder or its subfolders",
        dir.display()
    )
}

/// The checkpoint `path` names: the file itself, or the newest in a folder (an older one,
/// with a warning, if the newest cannot be read).
fn open(path: &Path) -> Result<Checkpoint, String> {
    if !path.is_dir() {
        return Checkpoint::open(path).map_err(|e| e.to_string());
    }
    let all = candidates(path)?;
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
        none_in(path)
    } else {
        format!("{}: no usable checkpoint: {}", path.display(), errors.join("; "))
    })
}

pub fn restart(mut a: RestartArgs) -> Result<(), String> {
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
    let saved = ck.text("run.settings").unwrap_or_default().to_string();
    let get = |key: &str| {
        saved.lines().find_map(|l| {
            l.split_once(" =")
                .filter(|(k, _)| *k == key)
                .map(|(_, v)| v.trim().to_string())
        })
    };
    if ck.text("run.settings").is_some() {
        let (threads, strategy) = (get("threads"), get("force_strategy"));
        let p = &a.parallel;
        let mine = p.force_strategy.as_str();
        let same_strategy = strategy.as_deref() == Some(mine);
        let exact = same_strategy && (mine == "deterministic" || threads == Some(p.threads.to_string()));
        if !exact {
            eprintln!(
                "talus: warning: the checkpointed run used {} threads and {} force summation, this one {} and {}: \
                 the continuation is bitwise that of an uninterrupted run only with deterministic summation, or \
                 with the same threads and strategy",
                threads.as_deref().unwrap_or("?"),
                strategy.as_deref().unwrap_or("?"),
                p.threads,
                mine
            );
        }
    }
    apply_parallel(&a.parallel, &mut sim)?;
    let setup = t0.elapsed();
    let step = sim.step;
    // The continued run's intervals and end step, unless the command line says otherwise.
    a.stepping.continue_from(&RecordedStepping::parse(&saved), step);
    eprintln!(
        "talus: restarted from {} at step {step} (t = {:.6e} s) in {:.3} s",
        ck.path.display(),
        sim.time,
        setup.as_secs_f64()
    );
    let ck_folder = match ck.path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let run_dir = continued_run_dir(&ck_folder, get("run_dir"), get("checkpoint_dir_in_run"))
        .unwrap_or_else(|| scenario.output.dir.clone());
    let mut plan = a.stepping.plan(
        Defaults {
            steps: scenario.run.steps.saturating_sub(step),
            output: output_settings(&scenario.output),
            dir: if a.append {
                run_dir.clone()
            } else {
                run_dir.join(format!("restart-{step}"))
            },
            run_dir,
            checkpoint: checkpoint_settings(&scenario.checkpoint),
            checkpoint_dir: Some(ck_folder),
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

/// The folder of the run that wrote the checkpoints in `ck_folder`, from what its run
/// settings recorded: the checkpoint folder's place in the run's folder (which holds after
/// the whole folder was moved), else the run's folder as it was. `None`: checkpoints of a
/// talus that did not record it.
fn continued_run_dir(ck_folder: &Path, run_dir: Option<String>, ck_in_run: Option<String>) -> Option<PathBuf> {
    if let Some(rel) = ck_in_run {
        let folder = std::path::absolute(ck_folder).ok()?;
        let rel = Path::new(&rel);
        if folder.ends_with(rel) {
            let mut up = folder.as_path();
            for _ in rel.components() {
                up = up.parent()?;
            }
            return Some(up.to_path_buf());
        }
    }
    run_dir.map(PathBuf::from)
}

#[derive(Args)]
pub struct InspectArgs {
    /// The checkpoint file, or a folder: the newest checkpoint in it or in its subfolders.
    pub file: PathBuf,
    /// Also print the scenario text and run settings the checkpoint carries.
    #[arg(long)]
    pub text: bool,
}

/// Print the header and the section table, verify every checksum, the padding and the
/// contents; an error (non-zero exit) if any of them is damaged.
pub fn inspect(a: InspectArgs) -> Result<(), String> {
    let file = if a.file.is_dir() {
        // The newest by name: a damaged one is what inspect is for, so no skipping here.
        candidates(&a.file)?.pop().ok_or_else(|| none_in(&a.file))?
    } else {
        a.file.clone()
    };
    let ck = Checkpoint::open_unverified(&file).map_err(|e| e.to_string())?;
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
    if !bad.is_empty() {
        return Err(format!(
            "{}: checksum mismatch in section(s) {}: the file was changed or damaged",
            ck.path.display(),
            bad.join(", ")
        ));
    }
    // What a restart checks beyond the checksums: the uncovered bytes, then the contents
    // (as strictly as a scenario), so that inspect passes exactly the files restart takes.
    ck.check_padding().map_err(|e| e.to_string())?;
    println!("  padding         all zero");
    ck.simulation().map_err(|e| e.to_string())?;
    println!("  contents        valid: a restart accepts this state");
    Ok(())
}
