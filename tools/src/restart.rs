//! `talus restart` (continue a run from a checkpoint) and `talus inspect` (show and verify
//! a checkpoint): their options, where the checkpoint is, and which build opens it (the
//! dimension its header records). The rest is `resume.rs`, compiled once per dimension.
use std::path::{Path, PathBuf};

use clap::Args;
use talus_io::checkpoint::{file_dimension, list};

use crate::parallel_opts::ParallelArgs;
use crate::run::{StepArgs, CHECKPOINT_PREFIX};
use crate::{dim2, dim3};

#[derive(Args)]
pub struct RestartArgs {
    /// A checkpoint file, or a folder: the newest complete checkpoint in it or in its
    /// subfolders (a run's output folder holds them in checkpoints/).
    pub path: PathBuf,
    /// Refuse the checkpoint unless it was made from this scenario file.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// Continue the output series (.pvd, dump, energy.csv, analysis.csv) in the folder of
    /// the run it continues (or --out) instead of writing new ones in restart-STEP/ there:
    /// frames of steps before the restart step are kept (with [analysis], of the restart
    /// step too: its analysis cannot be made again), later ones (of a run that went
    /// further) dropped. The restart's checkpoints go where the checkpoint came from (with --out:
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
pub fn candidates(dir: &Path) -> Result<Vec<PathBuf>, String> {
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
pub fn none_in(dir: &Path) -> String {
    format!(
        "{}: no checkpoints ({CHECKPOINT_PREFIX}-STEP.talus) in this folder or its subfolders",
        dir.display()
    )
}

/// The dimension of the checkpoint `path` names (a file, or in a folder the newest whose
/// header can be read, as the restart falls back past a damaged newest one); 2 where it
/// cannot tell (the 2D build's error then says why).
fn dimension_of(path: &Path) -> u32 {
    let found = if path.is_dir() {
        candidates(path)
            .unwrap_or_default()
            .iter()
            .rev()
            .find_map(|f| file_dimension(f))
    } else {
        file_dimension(path)
    };
    found.unwrap_or(2)
}

pub fn restart(a: RestartArgs) -> Result<(), String> {
    match dimension_of(&a.path) {
        3 => dim3::resume::restart(a),
        _ => dim2::resume::restart(a),
    }
}

pub fn inspect(a: InspectArgs) -> Result<(), String> {
    match dimension_of(&a.file) {
        3 => dim3::resume::inspect(a),
        _ => dim2::resume::inspect(a),
    }
}

/// The folder of the run that wrote the checkpoints in `ck_folder`, from what its run
/// settings recorded: the checkpoint folder's place in the run's folder (which holds after
/// the whole folder was moved), else the run's folder as it was. `None`: checkpoints of a
/// talus that did not record it.
pub fn continued_run_dir(ck_folder: &Path, run_dir: Option<String>, ck_in_run: Option<String>) -> Option<PathBuf> {
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
