//! Progress lines for runs whose standard error is a file (a batch job's log), in the
//! manner of LAMMPS's thermo output: where a terminal shows the progress bar, a log gets a
//! line every so many seconds with the step, the simulated time, the energies, the contact
//! count, the recent rate and the time left, so that a long run is never silent for hours.
//! Compiled once per dimension (`dim2.rs`, `dim3.rs`).
use std::time::{Duration, Instant};

use super::engine::Simulation;

pub struct Thermo {
    interval: Duration,
    t0: Instant,
    start_step: u64,
    end: u64,
    /// The previous line's time and step (the rate is over the interval since).
    last: Instant,
    last_step: u64,
}

impl Thermo {
    /// Lines every `interval_s` seconds (0: after every batch of steps) for a run from the
    /// simulation's step to `end`.
    pub fn new(interval_s: f64, sim: &Simulation, end: u64) -> Thermo {
        let now = Instant::now();
        Thermo {
            interval: Duration::from_secs_f64(interval_s.max(0.0)),
            t0: now,
            start_step: sim.step,
            end,
            last: now,
            last_step: sim.step,
        }
    }

    pub fn header() -> String {
        format!(
            "{:>12} {:>14} {:>13} {:>13} {:>13} {:>9} {:>11} {:>10}",
            "step", "time/s", "kinetic/J", "rotational/J", "elastic/J", "contacts", "updates/s", "ETA"
        )
    }

    /// Whether the previous line was of an earlier step (the last line of a stopped run
    /// is not repeated).
    pub fn behind(&self, sim: &Simulation) -> bool {
        self.last_step != sim.step
    }

    /// Whether the interval since the previous line is over.
    pub fn due(&self) -> bool {
        self.last.elapsed() >= self.interval
    }

    /// The line for the current state; the rate is that since the previous line, the time
    /// left is extrapolated from the whole run so far.
    pub fn line(&mut self, sim: &Simulation) -> String {
        let now = Instant::now();
        let e = sim.energies();
        let dt = (now - self.last).as_secs_f64();
        let rate = if sim.step > self.last_step && dt > 0.0 {
            format!("{:.3e}", sim.len() as f64 * (sim.step - self.last_step) as f64 / dt)
        } else {
            "-".into()
        };
        let done = sim.step.saturating_sub(self.start_step);
        let eta = if done > 0 {
            let per_step = (now - self.t0).as_secs_f64() / done as f64;
            clock(per_step * self.end.saturating_sub(sim.step) as f64)
        } else {
            "-".into()
        };
        self.last = now;
        self.last_step = sim.step;
        format!(
            "{:>12} {:>14.6e} {:>13.6e} {:>13.6e} {:>13.6e} {:>9} {:>11} {:>10}",
            sim.step, sim.time, e.kinetic, e.rotational, e.elastic, e.contacts, rate, eta
        )
    }
}

/// Seconds as H:MM:SS.
fn clock(s: f64) -> String {
    let s = s.round() as u64;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::clock;

    #[test]
    fn clock_reads_hours_minutes_seconds() {
        assert_eq!(clock(0.4), "0:00:00");
        assert_eq!(clock(59.6), "0:01:00");
        assert_eq!(clock(3600.0 * 27.0 + 61.0), "27:01:01");
    }
}
