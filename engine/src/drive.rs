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

use talus_kernels::neighbor::MinImage;

use crate::store::ParticleStore;

/// A rigid prescribed motion.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
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
        let s = d.elapsed(t) - d.elapsed(self.t0[k]);
        let c = [d.centre[0] + d.velocity[0] * s, d.centre[1] + d.velocity[1] * s];
        let (sn, cs) = (d.omega * s).sin_cos();
        let r = self.rel[k];
        (
            [c[0] + cs * r[0] - sn * r[1], c[1] + sn * r[0] + cs * r[1]],
            self.angle0[k] + d.omega * s,
        )
    }

    /// Set the velocities of the driven bodies for a step of `dt` from time `t`: linear
    /// velocity from the current position to the exact pose at `t + dt`, spin `omega` (at
    /// full speed; while starting, the mean spin over the step). In a periodic cell
    /// (`image`) a body may have been wrapped: the step is the minimum image of the way to
    /// its pose.
    pub fn set_velocities(&self, ps: &mut ParticleStore, t: f64, dt: f64, image: Option<&MinImage>) {
        for k in 0..self.index.len() {
            let p = self.index[k] as usize;
            let d = &self.drives[self.drive[k] as usize];
            if !d.at_full_speed(t) && d.elapsed(t + dt) == d.elapsed(t) {
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
            ps.omega[0][p] = if d.at_full_speed(t) {
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
