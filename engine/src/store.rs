//! The particle store: structure of arrays, one contiguous `Vec` per field.
//!
//! Hot fields (touched every step: positions, velocities, loads) are kept apart from cold
//! ones (mass properties, ids, material, flags), as Box2D v3 separates its body state
//! from the body record. Index = where a particle's data sits (it changes when the store
//! is reordered or compacted); id = what users and output files see (never changes).

use talus_kernels::integrate::verlet::{Inertia, Kinematics, Loads};

/// Per-particle flags.
pub mod flags {
    /// Does not move and does not respond to forces.
    pub const FIXED: u8 = 1;
    /// Moves with its prescribed velocity, does not respond to forces.
    pub const DRIVEN: u8 = 2;
}

/// Everything needed to create one disc.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParticleInit {
    pub id: u64,
    pub x: f64,
    pub y: f64,
    pub angle: f64,
    pub vx: f64,
    pub vy: f64,
    pub omega: f64,
    pub radius: f64,
    pub mass: f64,
    pub material: u16,
    pub ptype: u16,
    pub flags: u8,
}

/// Bytes the store holds per particle (its arrays at exact capacity): twelve `f64`, the
/// `u64` id, material and type (`u16`), flags (`u8`).
pub const BYTES_PER_PARTICLE: usize = 12 * 8 + 8 + 2 * 2 + 1;

/// How many of [`ParticleStore::f64_fields`] are hot (touched every step).
pub const HOT_F64: usize = 9;

#[derive(Debug, Default, Clone)]
pub struct ParticleStore {
    // Hot.
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub angle: Vec<f64>,
    pub vx: Vec<f64>,
    pub vy: Vec<f64>,
    pub omega: Vec<f64>,
    pub fx: Vec<f64>,
    pub fy: Vec<f64>,
    pub torque: Vec<f64>,
    // Cold.
    pub radius: Vec<f64>,
    /// Zero for fixed and driven particles (infinite mass). No mass array is kept: the
    /// mass is 1/inv_mass where it is finite (8 bytes per particle saved).
    pub inv_mass: Vec<f64>,
    pub inv_inertia: Vec<f64>,
    pub id: Vec<u64>,
    pub material: Vec<u16>,
    pub ptype: Vec<u16>,
    pub flags: Vec<u8>,
}

macro_rules! each_field {
    ($s:ident, $f:ident) => {
        $f!($s.x);
        $f!($s.y);
        $f!($s.angle);
        $f!($s.vx);
        $f!($s.vy);
        $f!($s.omega);
        $f!($s.fx);
        $f!($s.fy);
        $f!($s.torque);
        $f!($s.radius);
        $f!($s.inv_mass);
        $f!($s.inv_inertia);
        $f!($s.id);
        $f!($s.material);
        $f!($s.ptype);
        $f!($s.flags);
    };
}

impl ParticleStore {
    /// Is particle `p` a wall body (fixed or driven: infinite mass, moved by no force, such
    /// as a hopper's plates or a drum's segments) rather than a grain?
    #[inline]
    pub fn is_wall_body(&self, p: usize) -> bool {
        self.flags[p] != 0
    }

    /// How many particles are wall bodies.
    pub fn wall_bodies(&self) -> usize {
        self.flags.iter().filter(|&&f| f != 0).count()
    }

    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Run `f` with the loads (fx, fy, torque, cut to the particle count) taken out of the
    /// store, so that it can read the rest of the store while it writes them; they go back
    /// afterwards, whatever `f` returns.
    pub(crate) fn with_loads<R>(&mut self, f: impl FnOnce(&ParticleStore, [&mut [f64]; 3]) -> R) -> R {
        let n = self.len();
        let mut taken = [
            std::mem::take(&mut self.fx),
            std::mem::take(&mut self.fy),
            std::mem::take(&mut self.torque),
        ];
        let r = {
            let [a, b, c] = &mut taken;
            f(self, [&mut a[..n], &mut b[..n], &mut c[..n]])
        };
        [self.fx, self.fy, self.torque] = taken;
        r
    }

    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    pub fn reserve(&mut self, n: usize) {
        macro_rules! r {
            ($v:expr) => {
                $v.reserve(n)
            };
        }
        each_field!(self, r);
    }

    /// [`ParticleStore::reserve`] that reports a failed allocation (`n` comes from the
    /// input: a scenario's count) instead of aborting the process.
    pub fn try_reserve(&mut self, n: usize) -> Result<(), std::collections::TryReserveError> {
        macro_rules! r {
            ($v:expr) => {
                $v.try_reserve(n)?
            };
        }
        each_field!(self, r);
        Ok(())
    }

    /// Append a disc; returns its index. Moment of inertia of a disc: m r^2 / 2.
    pub fn push(&mut self, p: &ParticleInit) -> usize {
        let moving = p.flags & (flags::FIXED | flags::DRIVEN) == 0;
        let (vx, vy, om) = if p.flags & flags::FIXED != 0 {
            (0.0, 0.0, 0.0)
        } else {
            (p.vx, p.vy, p.omega)
        };
        self.x.push(p.x);
        self.y.push(p.y);
        self.angle.push(p.angle);
        self.vx.push(vx);
        self.vy.push(vy);
        self.omega.push(om);
        self.fx.push(0.0);
        self.fy.push(0.0);
        self.torque.push(0.0);
        self.radius.push(p.radius);
        self.inv_mass.push(if moving { 1.0 / p.mass } else { 0.0 });
        self.inv_inertia.push(if moving {
            2.0 / (p.mass * p.radius * p.radius)
        } else {
            0.0
        });
        self.id.push(p.id);
        self.material.push(p.material);
        self.ptype.push(p.ptype);
        self.flags.push(p.flags);
        self.len() - 1
    }

    /// The `f64` arrays, the [`HOT_F64`] hot ones (positions, velocities, loads) first:
    /// x, y, angle, vx, vy, omega, fx, fy, torque, radius, inv_mass, inv_inertia.
    pub fn f64_fields(&self) -> [&Vec<f64>; 12] {
        [
            &self.x,
            &self.y,
            &self.angle,
            &self.vx,
            &self.vy,
            &self.omega,
            &self.fx,
            &self.fy,
            &self.torque,
            &self.radius,
            &self.inv_mass,
            &self.inv_inertia,
        ]
    }

    /// [`ParticleStore::f64_fields`], writable.
    pub fn f64_fields_mut(&mut self) -> [&mut Vec<f64>; 12] {
        [
            &mut self.x,
            &mut self.y,
            &mut self.angle,
            &mut self.vx,
            &mut self.vy,
            &mut self.omega,
            &mut self.fx,
            &mut self.fy,
            &mut self.torque,
            &mut self.radius,
            &mut self.inv_mass,
            &mut self.inv_inertia,
        ]
    }

    /// Views of the arrays for the Verlet kernels: degrees of freedom, loads, inverse
    /// masses, and the radii (for the position check).
    pub fn verlet_views(&mut self) -> (Kinematics<'_>, Loads<'_>, Inertia<'_>, &[f64]) {
        (
            Kinematics {
                pos: [&mut self.x, &mut self.y],
                angle: &mut self.angle,
                vel: [&mut self.vx, &mut self.vy],
                omega: [&mut self.omega],
            },
            Loads {
                force: [&mut self.fx, &mut self.fy],
                torque: [&mut self.torque],
            },
            Inertia {
                inv_mass: &self.inv_mass,
                inv_inertia: &self.inv_inertia,
            },
            &self.radius,
        )
    }

    /// Views for the Gear kernels: positions (x, y, angle), velocities, loads (fx, fy,
    /// torque) and inverse masses (mass, inertia).
    #[allow(clippy::type_complexity)]
    pub fn gear_views(
        &mut self,
    ) -> (
        [&mut Vec<f64>; 3],
        [&mut Vec<f64>; 3],
        [&mut Vec<f64>; 3],
        [&Vec<f64>; 2],
    ) {
        (
            [&mut self.x, &mut self.y, &mut self.angle],
            [&mut self.vx, &mut self.vy, &mut self.omega],
            [&mut self.fx, &mut self.fy, &mut self.torque],
            [&self.inv_mass, &self.inv_inertia],
        )
    }

    /// Mass of particle `p` (infinite for fixed or driven ones).
    pub fn mass(&self, p: usize) -> f64 {
        1.0 / self.inv_mass[p]
    }

    /// Moment of inertia of particle `p` (infinite for fixed or driven ones).
    pub fn inertia(&self, p: usize) -> f64 {
        1.0 / self.inv_inertia[p]
    }

    /// Reorder or compact: `map[old] = new` index, or `u32::MAX` to drop the particle.
    /// The kept new indices must be exactly 0..kept.
    pub fn remap(&mut self, map: &[u32]) {
        let kept = map.iter().filter(|&&m| m != u32::MAX).count();
        let mut src = vec![u32::MAX; kept];
        for (old, &new) in map.iter().enumerate() {
            if new != u32::MAX {
                src[new as usize] = old as u32;
            }
        }
        macro_rules! g {
            ($v:expr) => {
                $v = src.iter().map(|&o| $v[o as usize]).collect()
            };
        }
        each_field!(self, g);
    }

    /// Bytes held by the store (capacity).
    pub fn memory_bytes(&self) -> usize {
        let mut b = 0;
        macro_rules! m {
            ($v:expr) => {
                b += $v.capacity() * std::mem::size_of_val(&$v.first().copied().unwrap_or_default())
            };
        }
        each_field!(self, m);
        b
    }

    /// Index of the particle with this id (linear search: ids are for users, not loops).
    pub fn index_of(&self, id: u64) -> Option<usize> {
        self.id.iter().position(|&i| i == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The memory estimate of a scenario's particles starts from this constant: it must be
    /// what the arrays really hold.
    #[test]
    fn bytes_per_particle_is_what_the_arrays_hold() {
        let mut s = ParticleStore::default();
        s.try_reserve(1000).unwrap();
        assert_eq!(s.memory_bytes(), 1000 * BYTES_PER_PARTICLE);
        assert!(
            s.try_reserve(usize::MAX / 2).is_err(),
            "an impossible reservation is an error"
        );
    }
}
