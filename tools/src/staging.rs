//! The stages of a run as it is stepped: which stage, since which step, and the record a
//! checkpoint keeps of it ("run.stage") so that a restart goes on in the same stage.
//! Compiled once per dimension (`dim2.rs`, `dim3.rs`).
use super::engine::Simulation;
pub use super::io::stages::STAGE_RECORD;
use super::io::stages::{StagePlan, StageRecord};
use super::stepping::until_settings;
use crate::run::UntilSettings;

/// A staged run's progress. A stage's changes are made just before its first step, so
/// a checkpoint written at the step where one stage ended holds the state before the
/// next one's changes (and says so: `began` is its step): a restart from it makes them.
pub struct Staging {
    plans: Vec<StagePlan>,
    current: usize,
    /// The step the current stage began at.
    began: u64,
    /// Its changes are made.
    entered: bool,
    first_body_id: u64,
    /// One line per stage ended in this run: its name, steps and why it ended.
    pub ended: Vec<String>,
}

impl Staging {
    /// A run from its first stage, at `step`.
    pub fn new(plans: Vec<StagePlan>, first_body_id: u64, step: u64) -> Staging {
        Staging {
            plans,
            current: 0,
            began: step,
            entered: false,
            first_body_id,
            ended: Vec::new(),
        }
    }

    /// A restart at `step` from the record its checkpoint kept; `plans` from the scenario
    /// and the record's first body id ([`Staging::first_body_id`]).
    pub fn resume(record: &str, step: u64, plans: impl FnOnce(u64) -> Vec<StagePlan>) -> Result<Staging, String> {
        let Some(StageRecord {
            stage: current,
            began,
            first_body_id: first,
        }) = StageRecord::parse(record)
        else {
            return Err(format!(
                "{STAGE_RECORD}: no stage, began and first_body_id in {record:?}"
            ));
        };
        let plans = plans(first);
        let Some(plan) = plans.get(current as usize) else {
            return Err(format!("{STAGE_RECORD}: stage {current} of {}", plans.len()));
        };
        if began > step || began + plan.steps < step {
            return Err(format!(
                "{STAGE_RECORD}: stage `{}` began at step {began} and runs at most {} steps; the checkpoint is at step {step}",
                plan.name, plan.steps
            ));
        }
        Ok(Staging {
            current: current as usize,
            began,
            entered: step > began,
            first_body_id: first,
            plans,
            ended: Vec::new(),
        })
    }

    /// What a checkpoint keeps (the section [`STAGE_RECORD`]).
    pub fn record(&self) -> Vec<u8> {
        StageRecord {
            stage: self.current as u64,
            began: self.began,
            first_body_id: self.first_body_id,
        }
        .text()
        .into_bytes()
    }

    fn plan(&self) -> &StagePlan {
        &self.plans[self.current]
    }

    /// The current stage's name.
    pub fn name(&self) -> &str {
        &self.plan().name
    }

    /// Make the current stage's changes, if not made yet: what it changed, then.
    pub fn enter(&mut self, sim: &mut Simulation) -> Result<Option<String>, String> {
        if self.entered {
            return Ok(None);
        }
        self.plan().begin(sim)?;
        self.entered = true;
        Ok(Some(self.plan().describe()))
    }

    /// The step the current stage ends at, at the latest.
    pub fn stage_end(&self) -> u64 {
        self.began.saturating_add(self.plan().steps)
    }

    /// The step the last stage ends at, at the latest.
    pub fn last_end(&self) -> u64 {
        self.plans[self.current + 1..]
            .iter()
            .fold(self.stage_end(), |e, p| e.saturating_add(p.steps))
    }

    /// The current stage's `until`.
    pub fn until(&self) -> Option<UntilSettings> {
        self.plan().until.map(until_settings)
    }

    /// The current stage ended at `step` (`why`: settled, or its steps run): on to the
    /// next. False where it was the last.
    pub fn advance(&mut self, step: u64, why: Option<&str>) -> bool {
        self.ended.push(format!(
            "`{}`: steps {} to {step}{}",
            self.name(),
            self.began,
            why.map_or(String::new(), |w| format!(", settled: {w}"))
        ));
        if self.current + 1 == self.plans.len() {
            return false;
        }
        self.current += 1;
        self.began = step;
        self.entered = false;
        true
    }
}
