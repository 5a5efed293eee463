//! What a run reports of its insertion streams: a summary line per stream, and the
//! events that fell short. One source compiled for each dimension (`dim2.rs`, `dim3.rs`):
//! `super::engine` is the build's engine.
use super::engine::{Shortfall, Simulation};

/// A line per insertion stream: what it inserted of what it asked for, and what is next.
pub fn insertion_lines(sim: &Simulation) -> Vec<String> {
    sim.insertions()
        .iter()
        .enumerate()
        .map(|(k, ins)| {
            let c = &ins.counts;
            let next = match ins.next_step() {
                Some(s) => format!("next insertion at step {s}"),
                None => "done".into(),
            };
            format!(
                "insert[{k}]: {} particles of {} requested in {} insertions{} ({next})",
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
            )
        })
        .collect()
}

/// Insertion events that fell short since the last call.
pub fn take_shortfalls(sim: &mut Simulation) -> Vec<Shortfall> {
    sim.take_shortfalls()
}
