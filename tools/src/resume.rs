//! `talus restart` and `talus inspect` on a checkpoint of this build's dimension.
//! Compiled once per dimension (`dim2.rs`, `dim3.rs`): `super::engine` and `super::io`
//! are the build's engine and io.
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::io::checkpoint::{fnv1a, Checkpoint};
use super::io::scenario::parse_scenario;
use super::io::stages::stage_plans;
use super::profile::apply_parallel;
use super::staging::{Staging, STAGE_RECORD};
use super::stepping::{checkpoint_settings, outflow_settings, output_settings, step_and_report, until_settings};
use crate::restart::{candidates, continued_run_dir, none_in, InspectArgs, RestartArgs};
use crate::run::{Defaults, RecordedStepping};

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
            until: scenario.run.until.map(until_settings),
            outflows: outflow_settings(&scenario.outflows),
            output: output_settings(&scenario.output, scenario.analysis.as_ref()),
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
    // A staged run goes on in the stage its checkpoint was in.
    let staging = if scenario.stages.is_empty() {
        None
    } else {
        let record = ck.text(STAGE_RECORD).ok_or_else(|| {
            ck.error(Some(STAGE_RECORD), "missing: the scenario has stages".into())
                .to_string()
        })?;
        let st = Staging::resume(record, step, |first| stage_plans(&scenario, first))
            .map_err(|e| ck.error(Some(STAGE_RECORD), e).to_string())?;
        Some(st)
    };
    drop(ck);
    step_and_report(&mut sim, &plan, staging, setup, &a.parallel)
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
        let elem = super::engine::Elem::from_code(e.elem).expect("checked when opened");
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
        for name in ["run.settings", "run.stage", "scenario.toml"] {
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
