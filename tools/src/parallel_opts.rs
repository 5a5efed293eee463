//! Thread options shared by `talus run`, `talus restart` and `talus scale` (the pool
//! they make and the profile it keeps: `profile.rs`).
use std::path::PathBuf;

use clap::Args;

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

/// More threads than this many per processing unit only wait for each other (and enough
/// of them exhaust the process's memory maps for thread stacks, an abort, not an error).
pub const MAX_THREADS_PER_PU: usize = 4;

/// Refuse more than [`MAX_THREADS_PER_PU`] threads per processing unit of a machine
/// with `pus` of them.
pub fn check_thread_count(pus: usize, threads: usize) -> Result<(), String> {
    let limit = MAX_THREADS_PER_PU * pus;
    if threads > limit {
        return Err(format!(
            "--threads {threads}: this machine has {pus} processing units; at most {MAX_THREADS_PER_PU} threads \
             per unit ({limit}) are allowed, more would only wait for each other"
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
}
