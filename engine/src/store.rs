//! The particle store: structure of arrays, one contiguous `Vec` per field.
//!
//! Hot fields (touched every step: positions, velocities, loads) are kept apart from cold
//! ones (mass properties, ids, material, flags), as Box2D v3 separates its body state
//! from the body record. Index = where a particle's data sits (it changes when the store
//! is reordered or compacted); id = what users and output files see (never changes).

use talus_kernels::integrate::verlet::{Inertia, Kinematics, Loads};
use talus_kernels::math::{Vector, ANG, DIM};

/// Per-particle flags.
pub mod flags {
    /// Does not move and does not respond to forces.
    pub const FIXED: u8 = 1;
    /// Moves with its prescribed velocity, does not respond to forces.
    pub const DRIVEN: u8 = 2;
}

/// Everything needed to create one particle (a disc or polygon in 2D, a sphere in 3D).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParticleInit {
    /// Stable id (kept through reorders; what outputs show).
    pub id: u64,
    /// Centre (m; a polygon's centroid).
    pub pos: Vector,
    /// The orientation angle (2D; ignored in 3D).
    pub angle: f64,
    /// Velocity (m/s).
    pub vel: Vector,
    /// Angular velocity (rad/s): about z in 2D, one component per axis in 3D.
    pub omega: [f64; ANG],
    /// Radius (m; a polygon's bounding radius).
    pub radius: f64,
    /// Mass (kg); ignored for fixed and driven particles (infinite mass).
    pub mass: f64,
    /// Material index (into the simulation's materials).
    pub material: u16,
    /// The `type` column of outputs.
    pub ptype: u16,
    /// [`flags`] bits: `FIXED`, `DRIVEN`, or 0 for a free particle.
    pub flags: u8,
}

/// How many of [`ParticleStore::f64_fields`] are hot (touched every step): positions,
/// the angle, velocities, angular velocities, forces, torques.
pub const HOT_F64: usize = 3 * DIM + 2 * ANG + ANGLE_FIELDS;

/// The angle array: held in 2D only.
const ANGLE_FIELDS: usize = if DIM == 2 { 1 } else { 0 };

/// How many `f64` arrays the store holds: the hot ones, radius, inverse mass and inverse
/// moment of inertia.
pub const F64_FIELDS: usize = HOT_F64 + 3;

/// Loads arrays: forces per axis, then torques.
pub const LOADS: usize = DIM + ANG;

/// Bytes the store holds per particle (its arrays at exact capacity): the `f64` arrays, the
/// `u64` id, material and type (`u16`), flags (`u8`).
pub const BYTES_PER_PARTICLE: usize = F64_FIELDS * 8 + 8 + 2 * 2 + 1;

/// Moment of inertia over mass r^2: a disc's 1/2, a sphere's 2/5.
pub(crate) const INERTIA_FACTOR: f64 = if DIM == 2 { 0.5 } else { 0.4 };

/// The mass of a ball of radius `r`: a disc of areal `density` in 2D (pi r^2), a sphere
/// in 3D (4/3 pi r^3).
pub fn ball_mass(density: f64, r: f64) -> f64 {
    if DIM == 2 {
        density * std::f64::consts::PI * r * r
    } else {
        density * 4.0 / 3.0 * std::f64::consts::PI * r * r * r
    }
}

/// The particles as structure of arrays (module doc), indexed by particle.
#[derive(Debug, Default, Clone)]
pub struct ParticleStore {
    // Hot: one array per axis (parry's per-axis layout: the kernels and the dimension
    // of the build, `talus_kernels::math::DIM`, decide how many).
    /// Centres (m; a polygon's centroid): one Vec per axis, indexed by particle.
    pub pos: [Vec<f64>; DIM],
    /// The orientation angle (2D; a sphere's orientation is not state, and in 3D this
    /// array stays empty).
    pub angle: Vec<f64>,
    /// Velocities (m/s): one Vec per axis.
    pub vel: [Vec<f64>; DIM],
    /// Angular velocities (rad/s): one Vec per component (1 in 2D, about z; 3 in 3D).
    pub omega: [Vec<f64>; ANG],
    /// Contact forces of the current step (N; gravity is applied apart): one Vec per axis.
    pub force: [Vec<f64>; DIM],
    /// Torques of the current step (N m): one Vec per component.
    pub torque: [Vec<f64>; ANG],
    // Cold.
    /// Radii (m; a polygon's bounding radius).
    pub radius: Vec<f64>,
    /// Zero for fixed and driven particles (infinite mass). No mass array is kept: the
    /// mass is 1/inv_mass where it is finite (8 bytes per particle saved).
    pub inv_mass: Vec<f64>,
    /// Inverse moments of inertia (1/(kg m^2)); zero for fixed and driven particles.
    pub inv_inertia: Vec<f64>,
    /// Stable ids (see the module doc).
    pub id: Vec<u64>,
    /// Material index of each particle.
    pub material: Vec<u16>,
    /// The `type` column of outputs.
    pub ptype: Vec<u16>,
    /// [`flags`] bits of each particle (0 for a free one).
    pub flags: Vec<u8>,
}

macro_rules! each_field {
    ($s:ident, $f:ident) => {
        for a in 0..DIM {
            $f!($s.pos[a]);
        }
        if DIM == 2 {
            $f!($s.angle);
        }
        for a in 0..DIM {
            $f!($s.vel[a]);
        }
        for a in 0..ANG {
            $f!($s.omega[a]);
        }
        for a in 0..DIM {
            $f!($s.force[a]);
        }
        for a in 0..ANG {
            $f!($s.torque[a]);
        }
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

    /// Number of particles.
    pub fn len(&self) -> usize {
        self.pos[0].len()
    }

    /// Run `f` with the loads (forces per axis, then torques, cut to the particle count)
    /// taken out of the store, so that it can read and write the rest of the store while
    /// it writes them (the force phase's waves kick and drift the particles whose loads are
    /// complete); they go back afterwards, whatever `f` returns.
    pub(crate) fn with_loads_mut<R>(&mut self, f: impl FnOnce(&mut ParticleStore, [&mut [f64]; LOADS]) -> R) -> R {
        let n = self.len();
        let mut force = std::mem::take(&mut self.force);
        let mut torque = std::mem::take(&mut self.torque);
        let r = {
            let mut loads = force.iter_mut().chain(torque.iter_mut()).map(|v| &mut v[..n]);
            let loads: [&mut [f64]; LOADS] = std::array::from_fn(|_| loads.next().expect("LOADS arrays"));
            f(self, loads)
        };
        (self.force, self.torque) = (force, torque);
        r
    }

    /// Whether the store holds no particle.
    pub fn is_empty(&self) -> bool {
        self.pos[0].is_empty()
    }

    /// Room for `n` more particles in every array.
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

    /// Append a particle; returns its index. Moment of inertia of a disc m r^2 / 2, of a
    /// sphere 2 m r^2 / 5 (a polygon's is set by the caller afterwards).
    pub fn push(&mut self, p: &ParticleInit) -> usize {
        let moving = p.flags & (flags::FIXED | flags::DRIVEN) == 0;
        let still = p.flags & flags::FIXED != 0;
        for a in 0..DIM {
            self.pos[a].push(p.pos[a]);
            self.vel[a].push(if still { 0.0 } else { p.vel[a] });
            self.force[a].push(0.0);
        }
        for a in 0..ANG {
            self.omega[a].push(if still { 0.0 } else { p.omega[a] });
            self.torque[a].push(0.0);
        }
        if DIM == 2 {
            self.angle.push(p.angle);
        }
        self.radius.push(p.radius);
        self.inv_mass.push(if moving { 1.0 / p.mass } else { 0.0 });
        self.inv_inertia.push(if moving {
            1.0 / (INERTIA_FACTOR * p.mass * p.radius * p.radius)
        } else {
            0.0
        });
        self.id.push(p.id);
        self.material.push(p.material);
        self.ptype.push(p.ptype);
        self.flags.push(p.flags);
        self.len() - 1
    }

    /// The `f64` arrays, the [`HOT_F64`] hot ones first: positions per axis, the angle (2D),
    /// velocities, angular velocities, forces, torques; then radius, inv_mass, inv_inertia.
    /// (In 2D: x, y, angle, vx, vy, omega, fx, fy, torque, radius, inv_mass, inv_inertia.)
    pub fn f64_fields(&self) -> [&Vec<f64>; F64_FIELDS] {
        let mut all = self.pos.iter();
        let angle: &[Vec<f64>] = std::slice::from_ref(&self.angle);
        let mut all = all
            .by_ref()
            .chain(angle.iter().take(ANGLE_FIELDS))
            .chain(&self.vel)
            .chain(&self.omega)
            .chain(&self.force)
            .chain(&self.torque)
            .chain([&self.radius, &self.inv_mass, &self.inv_inertia]);
        std::array::from_fn(|_| all.next().expect("F64_FIELDS arrays"))
    }

    /// [`ParticleStore::f64_fields`], writable.
    pub fn f64_fields_mut(&mut self) -> [&mut Vec<f64>; F64_FIELDS] {
        let angle: &mut [Vec<f64>] = std::slice::from_mut(&mut self.angle);
        let mut all = self
            .pos
            .iter_mut()
            .chain(angle.iter_mut().take(ANGLE_FIELDS))
            .chain(&mut self.vel)
            .chain(&mut self.omega)
            .chain(&mut self.force)
            .chain(&mut self.torque)
            .chain([&mut self.radius, &mut self.inv_mass, &mut self.inv_inertia]);
        std::array::from_fn(|_| all.next().expect("F64_FIELDS arrays"))
    }

    /// Views of the arrays for the Verlet kernels: degrees of freedom, loads, inverse
    /// masses, and the radii (for the position check).
    pub fn verlet_views(&mut self) -> (Kinematics<'_>, Loads<'_>, Inertia<'_>, &[f64]) {
        (
            Kinematics {
                pos: self.pos.each_mut().map(|v| v.as_mut_slice()),
                #[cfg(not(feature = "dim3"))]
                angle: &mut self.angle,
                vel: self.vel.each_mut().map(|v| v.as_mut_slice()),
                omega: self.omega.each_mut().map(|v| v.as_mut_slice()),
            },
            Loads {
                force: self.force.each_mut().map(|v| v.as_mut_slice()),
                torque: self.torque.each_mut().map(|v| v.as_mut_slice()),
            },
            Inertia {
                inv_mass: &self.inv_mass,
                inv_inertia: &self.inv_inertia,
            },
            &self.radius,
        )
    }

    /// Views for the Gear kernels, one array per degree of freedom (the axes, then the
    /// angular components): the values (the positions, and the angle in 2D; none for a
    /// sphere's rotations, whose orientation is not state), the rates (velocities, angular
    /// velocities), the loads (forces, torques) and the inverse masses (mass per axis,
    /// inertia per angular component).
    #[allow(clippy::type_complexity)]
    pub fn gear_views(
        &mut self,
    ) -> (
        [Option<&mut [f64]>; LOADS],
        [&mut [f64]; LOADS],
        [&mut [f64]; LOADS],
        [&[f64]; LOADS],
    ) {
        let angle: &mut [Vec<f64>] = std::slice::from_mut(&mut self.angle);
        let mut values = self
            .pos
            .iter_mut()
            .chain(angle.iter_mut().take(ANGLE_FIELDS))
            .map(|v| Some(v.as_mut_slice()));
        let mut rates = self.vel.iter_mut().chain(&mut self.omega).map(Vec::as_mut_slice);
        let mut loads = self.force.iter_mut().chain(&mut self.torque).map(Vec::as_mut_slice);
        (
            std::array::from_fn(|_| values.next().flatten()),
            std::array::from_fn(|_| rates.next().expect("LOADS rates")),
            std::array::from_fn(|_| loads.next().expect("LOADS loads")),
            std::array::from_fn(|k| {
                if k < DIM {
                    &self.inv_mass[..]
                } else {
                    &self.inv_inertia[..]
                }
            }),
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
