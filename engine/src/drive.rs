//! Prescribed motion of bodies of infinite mass (flag DRIVEN): walls and boundaries that
//! turn or slide whatever the grains do, e.g. the ring of wall polygons of a rotating drum.
//! A drive is a rigid motion: its centre translates at `velocity` and the bodies turn about
//! it at `omega`. Poses are computed exactly from the time, not integrated, so a drum's
//! ring stays on its circle for any number of steps; the velocity given to a driven body
//! for a step is the one that carries it from its pose to the next exact pose (the
//! integrators then move it there), so the contact dashpots see that velocity.
//!
//! A drive may start later than time zero and reach its speed gradually: before `start`
//! its bodies rest; from `start` on its speed grows linearly to the full velocity and
//! omega over `ramp` seconds (0: at once), then stays. The poses are still exact: they
//! follow the integral of that speed profile.
//!
//! Instead of that constant speed a drive may follow laws of time ([`DriveLaws`], as
//! LIGGGHTS `fix move/mesh` `wiggle` and `riggle` move a mesh): its centre slid along a
//! direction by a displacement s(t) and its bodies turned about the centre by an angle
//! theta(t), each a velocity, a sine or a table of the time since `start`: a paddle that
//! swings, a plate that shakes, a drum that rocks.

use talus_kernels::neighbor::MinImage;

use crate::store::ParticleStore;
use crate::wall_motion::Displacement;

/// A rigid prescribed motion.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Drive {
    /// Centre the bodies turn about, at the time they are registered (m).
    pub centre: [f64; 2],
    /// Velocity of the centre at full speed (m/s).
    pub velocity: [f64; 2],
    /// Angular velocity at full speed (rad/s, counter-clockwise).
    pub omega: f64,
    /// Time (s) at which the motion starts; the bodies rest before it.
    pub start: f64,
    /// Seconds over which the speed grows linearly from zero to full after `start`.
    pub ramp: f64,
    /// Laws of time in place of the constant speed (then `velocity`, `omega` and `ramp`
    /// are zero).
    pub laws: Option<DriveLaws>,
}

/// A drive's motion as laws of the time since its start: the centre slid along a unit
/// direction by s(t) (m), the bodies turned about it by theta(t) (rad). The bodies move
/// by the change of the laws since they were registered (or since the start, where that
/// is later): where they are is the laws' values there, whatever a table's first value
/// (as a moving wall starts where it is); before the start they rest.
#[derive(Debug, Clone, PartialEq)]
pub struct DriveLaws {
    /// The unit direction and s(t); None: the centre stays.
    pub slide: Option<([f64; 2], Displacement)>,
    /// theta(t), counter-clockwise; None: no turn.
    pub turn: Option<Displacement>,
}

impl DriveLaws {
    /// The centre's shift and the angle turned at `tau` seconds after the start (0 before
    /// it).
    fn at(&self, tau: f64) -> ([f64; 2], f64) {
        let tau = tau.max(0.0);
        let shift = self.slide.as_ref().map_or([0.0; 2], |(d, law)| {
            let s = law.at(tau).0;
            [d[0] * s, d[1] * s]
        });
        (shift, self.turn.as_ref().map_or(0.0, |law| law.at(tau).0))
    }

    /// What is wrong with them, if anything: neither law given, a direction that is not a
    /// unit vector, a law [`Displacement::check`] refuses.
    pub fn check(&self) -> Result<(), String> {
        if self.slide.is_none() && self.turn.is_none() {
            return Err("laws without a slide or a turn".into());
        }
        if let Some((d, law)) = &self.slide {
            let unit = ((d[0] * d[0] + d[1] * d[1]) - 1.0).abs() < 1e-12;
            if !unit {
                return Err(format!("slide direction {d:?} is not a unit vector"));
            }
            law.check().map_err(|m| format!("slide: {m}"))?;
        }
        if let Some(law) = &self.turn {
            law.check().map_err(|m| format!("turn: {m}"))?;
        }
        Ok(())
    }
}

impl Drive {
    /// The distance factor of the speed profile: the time integral, from 0 to `t`, of the
    /// fraction of full speed (0 before `start`, rising linearly to 1 over `ramp`). A drive
    /// starting at 0 without a ramp gives `t` itself (for t >= 0), bit for bit.
    pub fn elapsed(&self, t: f64) -> f64 {
        let s = t - self.start;
        if s <= 0.0 {
            0.0
        } else if s < self.ramp {
            0.5 * s * s / self.ramp
        } else {
            s - 0.5 * self.ramp
        }
    }

    /// At full speed from time `t` on?
    pub fn at_full_speed(&self, t: f64) -> bool {
        t - self.start >= self.ramp
    }

    /// What is wrong with the drive, if anything, with the checkpoint section that holds
    /// the wrong value: a value not finite, a negative ramp, laws beside a velocity, omega
    /// or ramp, laws [`DriveLaws::check`] refuses.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !self.centre.iter().chain(&self.velocity).all(|v| v.is_finite()) || !self.omega.is_finite() {
            return Err(("drives", "centre, velocity and omega must be finite".into()));
        }
        if !(self.start.is_finite() && self.ramp.is_finite() && self.ramp >= 0.0) {
            return Err((
                "drives.motion",
                format!(
                    "start {} must be finite, ramp {} finite and >= 0",
                    self.start, self.ramp
                ),
            ));
        }
        if let Some(laws) = &self.laws {
            if self.velocity != [0.0; 2] || self.omega != 0.0 || self.ramp != 0.0 {
                return Err(("drives.laws", "laws beside a velocity, omega or ramp".into()));
            }
            laws.check().map_err(|m| ("drives.laws", m))?;
        }
        Ok(())
    }
}

/// The driven bodies: particle index, drive, pose relative to the drive's centre at the
/// time of registration.
#[derive(Debug, Default, Clone)]
pub struct Driven {
    /// The drives, indexed by the number a body is registered under.
    pub drives: Vec<Drive>,
    /// Store index of each driven body.
    pub index: Vec<u32>,
    pub(crate) drive: Vec<u16>,
    pub(crate) rel: Vec<[f64; 2]>,
    pub(crate) angle0: Vec<f64>,
    pub(crate) t0: Vec<f64>,
}

impl Driven {
    /// Number of driven bodies.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether no body is driven.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Register particle `p` at pose (`x`, `angle`) at time `t` under drive `d`.
    pub fn add(&mut self, d: u16, p: u32, x: [f64; 2], angle: f64, t: f64) {
        let c = self.drives[d as usize].centre;
        self.index.push(p);
        self.drive.push(d);
        self.rel.push([x[0] - c[0], x[1] - c[1]]);
        self.angle0.push(angle);
        self.t0.push(t);
    }

    /// Exact pose (position, angle) of driven body `k` at time `t`.
    pub fn pose(&self, k: usize, t: f64) -> ([f64; 2], f64) {
        let d = &self.drives[self.drive[k] as usize];
        // The centre and the angle turned since the body was registered.
        let (c, turned) = match &d.laws {
            Some(laws) => {
                let ((c1, a1), (c0, a0)) = (laws.at(t - d.start), laws.at(self.t0[k] - d.start));
                ([d.centre[0] + (c1[0] - c0[0]), d.centre[1] + (c1[1] - c0[1])], a1 - a0)
            }
            None => {
                let s = d.elapsed(t) - d.elapsed(self.t0[k]);
                (
                    [d.centre[0] + d.velocity[0] * s, d.centre[1] + d.velocity[1] * s],
                    d.omega * s,
                )
            }
        };
        let (sn, cs) = turned.sin_cos();
        let r = self.rel[k];
        (
            [c[0] + cs * r[0] - sn * r[1], c[1] + sn * r[0] + cs * r[1]],
            self.angle0[k] + turned,
        )
    }

    /// Set the velocities of the driven bodies for a step of `dt` from time `t`: linear
    /// velocity from the current position to the exact pose at `t + dt`, spin `omega` (at
    /// full speed; while starting, and under laws, the mean spin over the step). In a
    /// periodic cell (`image`) a body may have been wrapped: the step is the minimum image
    /// of the way to its pose.
    pub fn set_velocities(&self, ps: &mut ParticleStore, t: f64, dt: f64, image: Option<&MinImage>) {
        for k in 0..self.index.len() {
            let p = self.index[k] as usize;
            let d = &self.drives[self.drive[k] as usize];
            let resting = match &d.laws {
                Some(_) => t + dt <= d.start,
                None => !d.at_full_speed(t) && d.elapsed(t + dt) == d.elapsed(t),
            };
            if resting {
                // Not started: at rest where it is (exactly, not within rounding).
                ps.vel[0][p] = 0.0;
                ps.vel[1][p] = 0.0;
                ps.omega[0][p] = 0.0;
                continue;
            }
            let (target, _) = self.pose(k, t + dt);
            let mut way = [target[0] - ps.pos[0][p], target[1] - ps.pos[1][p]];
            if let Some(mi) = image {
                way = mi.of(way);
            }
            ps.vel[0][p] = way[0] / dt;
            ps.vel[1][p] = way[1] / dt;
            ps.omega[0][p] = if let Some(laws) = &d.laws {
                (laws.at(t + dt - d.start).1 - laws.at(t - d.start).1) / dt
            } else if d.at_full_speed(t) {
                d.omega
            } else {
                d.omega * (d.elapsed(t + dt) - d.elapsed(t)) / dt
            };
        }
    }

    /// Follow a renumbering of the particles (`map[old] = new` or `u32::MAX`).
    pub fn remap(&mut self, map: &[u32]) {
        let keep: Vec<usize> = (0..self.index.len())
            .filter(|&k| map[self.index[k] as usize] != u32::MAX)
            .collect();
        self.index = keep.iter().map(|&k| map[self.index[k] as usize]).collect();
        self.drive = keep.iter().map(|&k| self.drive[k]).collect();
        self.rel = keep.iter().map(|&k| self.rel[k]).collect();
        self.angle0 = keep.iter().map(|&k| self.angle0[k]).collect();
        self.t0 = keep.iter().map(|&k| self.t0[k]).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Under laws a body rests until the start, then its centre slides by s(t) along the
    /// direction and it turns about the centre by theta(t); a body registered late moves
    /// by the change since then.
    #[test]
    fn laws_give_the_pose_from_the_start() {
        let dir = [0.6, 0.8];
        let sine = Displacement::Sine {
            amplitude: 1e-3,
            frequency: 5.0,
            phase: 0.0,
        };
        let turn = Displacement::Table(vec![[0.0, 0.0], [0.1, 0.5], [0.2, 0.2]]);
        let laws = DriveLaws {
            slide: Some((dir, sine.clone())),
            turn: Some(turn.clone()),
        };
        laws.check().unwrap();
        let mut driven = Driven::default();
        driven.drives.push(Drive {
            centre: [1.0, 2.0],
            start: 0.05,
            laws: Some(laws),
            ..Drive::default()
        });
        driven.add(0, 7, [1.5, 2.0], 0.25, 0.0);
        driven.add(0, 8, [1.0, 2.0], 0.0, 0.1);
        assert_eq!(driven.pose(0, 0.03), ([1.5, 2.0], 0.25), "at rest before the start");
        for t in [0.07, 0.15, 0.3] {
            let (s, th) = (sine.at(t - 0.05).0, turn.at(t - 0.05).0);
            let (x, a) = driven.pose(0, t);
            let c = [1.0 + dir[0] * s, 2.0 + dir[1] * s];
            let want = [c[0] + 0.5 * th.cos(), c[1] + 0.5 * th.sin()];
            assert!(
                (x[0] - want[0]).abs() < 1e-15 && (x[1] - want[1]).abs() < 1e-15,
                "{t}: {x:?} {want:?}"
            );
            assert!((a - (0.25 + th)).abs() < 1e-15);
            // Registered at 0.1 at the centre: it slides by the change since 0.1.
            let (x, a) = driven.pose(1, t);
            let s1 = s - sine.at(0.05).0;
            assert!((x[0] - (1.0 + dir[0] * s1)).abs() < 1e-15 && (x[1] - (2.0 + dir[1] * s1)).abs() < 1e-15);
            assert!((a - (th - turn.at(0.05).0)).abs() < 1e-15);
        }
        let bad = DriveLaws {
            slide: Some(([1.0, 1.0], Displacement::Velocity(1.0))),
            turn: None,
        };
        assert!(bad.check().unwrap_err().contains("not a unit vector"));
        assert!(DriveLaws {
            slide: None,
            turn: None
        }
        .check()
        .is_err());
        // A drive's own check: laws beside a constant speed, an empty table.
        let turning = |law: Displacement, omega: f64| Drive {
            omega,
            laws: Some(DriveLaws {
                slide: None,
                turn: Some(law),
            }),
            ..Drive::default()
        };
        assert_eq!(turning(Displacement::Velocity(1.0), 0.0).check(), Ok(()));
        assert_eq!(
            turning(Displacement::Velocity(1.0), 2.0).check().unwrap_err().0,
            "drives.laws"
        );
        let empty = turning(Displacement::Table(Vec::new()), 0.0).check().unwrap_err();
        assert!(empty.1.contains("turn: a table of 0 points"), "{empty:?}");
    }
}
