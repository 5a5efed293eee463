//! The analysis of a state from the contact forces of the step that led to it (issue 20):
//! the Love-Weber stress of the assembly and of each grain, the coordination number with
//! and without rattlers, the force on each wall, Yade's unbalanced-force ratio, the
//! packing fraction of a region. The sums are the kernels' (`kernels/src/analysis/`);
//! this gathers them from the store and the [`ContactLog`].
//!
//! Grains are the particles that are not wall bodies (fixed or driven polygons in 2D): a
//! grain's contact with a wall body counts as a wall contact, as its contact with a wall,
//! its whole share of the stress the grain's, with the branch vector from the contact
//! point to the grain's centre ([`Simulation::wall_contact_point`],
//! [`Simulation::body_contact_branch`]).
use talus_kernels::analysis::rattlers::{coordination, rattlers, HELD_FRICTIONAL, HELD_FRICTIONLESS};
use talus_kernels::analysis::stress::{add_scaled, contact_virial, Tensor};
use talus_kernels::math::{norm2, scale, sub, Vector, DIM};

use super::Simulation;
use crate::contact_log::{ContactLog, WallForce};
use crate::error::{EngineError, Result};

/// A box of space (`min` below `max` on every axis), for the packing fraction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Region {
    /// Low corner (m).
    pub min: Vector,
    /// High corner (m).
    pub max: Vector,
}

impl Region {
    /// Whether `x` lies in the box: `min <= x < max` on every axis.
    pub fn contains(&self, x: Vector) -> bool {
        (0..DIM).all(|a| x[a] >= self.min[a] && x[a] < self.max[a])
    }

    /// Volume of the box (m^3; its area in 2D).
    pub fn volume(&self) -> f64 {
        (0..DIM).map(|a| self.max[a] - self.min[a]).product()
    }
}

/// What [`Simulation::analyse`] measures. Per-grain arrays are in store order, one entry
/// per particle (wall bodies get zeros).
#[derive(Debug, Clone)]
pub struct Analysis {
    /// Step of the analysed state.
    pub step: u64,
    /// Simulated time of that state (s).
    pub time: f64,
    /// The assembly's stress: the Love-Weber sum over every contact (pairs and walls)
    /// over the domain's volume (its area in 2D: a stress per unit depth). LAMMPS' sign:
    /// compression is negative.
    pub stress: Tensor,
    /// The domain's volume (its area in 2D) that `stress` is divided by.
    pub volume: f64,
    /// Each grain's stress: its share of the sum (half of each pair's, all of each wall
    /// contact's: LAMMPS' `compute stress/atom`) over the grain's own volume.
    pub grain_stress: Vec<Tensor>,
    /// Each grain's contacts: with grains, walls and wall bodies.
    pub contacts: Vec<u32>,
    /// Mean contacts between grains per grain, 2 C / N.
    pub coordination: f64,
    /// The same without rattlers (grains with fewer contacts than hold them, walls
    /// counted, removed until none is left: fewer than 2 where any material has friction,
    /// DIM + 1 where none has; `kernels/src/analysis/rattlers.rs`): the mechanical
    /// coordination number.
    pub coordination_held: f64,
    /// Number of rattlers left out of `coordination_held`.
    pub rattlers: usize,
    /// Per wall: the force the grains exert on it.
    pub wall_forces: Vec<Vector>,
    /// Per wall body (store order, the particles flagged as wall bodies): the force the
    /// grains exert on it.
    pub body_forces: Vec<(u64, Vector)>,
    /// Yade's unbalanced-force ratio: the mean over grains of the net force (contacts and
    /// gravity) over the mean contact force; NaN where no grain touches anything.
    pub unbalanced: f64,
    /// Translational and rotational kinetic energy of the grains.
    pub kinetic: f64,
    /// Rotational kinetic energy of the grains (J).
    pub rotational: f64,
    /// Their gravitational potential energy, -sum m g . x (zero at the origin).
    pub potential: f64,
    /// Volume of the grains whose centres lie in the region, over the region's volume.
    pub packing: Option<f64>,
    /// The stress in the region: the shares of the grains whose centres lie in it, over
    /// its volume (the domain's stress averages over empty space too).
    pub region_stress: Option<Tensor>,
}

impl Simulation {
    /// The analysis of the current state, from the contact forces of the step that led to
    /// it: that step must have been logged ([`Simulation::log_next_run`]).
    pub fn analyse(&self, region: Option<&Region>) -> Result<Analysis> {
        let log = self.contact_log().ok_or_else(|| {
            EngineError::Setup(format!(
                "no contact forces were logged for step {}: analysis needs log_next_run before the run that ends there",
                self.step
            ))
        })?;
        Ok(self.analyse_log(log, region))
    }

    /// Where a wall contact acts: on the wall's normal through the particle's centre,
    /// halfway into the overlap for a disc or sphere (exact), at the wall for a polygon
    /// (its overlap's centroid lies within the overlap's depth of it).
    pub fn wall_contact_point(&self, c: &WallForce) -> Vector {
        let ps = &self.particles;
        let p = c.p as usize;
        let x: Vector = std::array::from_fn(|a| ps.pos[a][p]);
        let wall = &self.walls[c.wall as usize];
        #[cfg(not(feature = "dim3"))]
        let round = self.shapes.as_ref().is_none_or(|s| !s.is_polygon(p));
        #[cfg(feature = "dim3")]
        let round = true;
        // A polygon's `overlap` is its overlap's area: no depth to halve.
        let depth = if round { 0.5 * c.c.overlap } else { 0.0 };
        sub(x, scale(wall.distance(x) + depth, wall.normal_at(x)))
    }

    /// The branch vector of grain `g`'s contact with a wall body (the force `f` on the
    /// grain, `overlap` its depth): from the contact point, on the grain's surface against
    /// the force, halfway into the overlap, to the centre. Exact for a disc without
    /// friction; the body's own geometry is not consulted, so with friction (the force
    /// tilted by up to its friction angle) and for a polygon grain (its bounding radius)
    /// it is an estimate.
    pub fn body_contact_branch(&self, g: usize, f: Vector, overlap: f64) -> Vector {
        let len = norm2(f).sqrt();
        if len == 0.0 {
            return [0.0; DIM];
        }
        let rho = self.particles.radius[g] - 0.5 * overlap.max(0.0);
        scale(rho / len, f)
    }

    fn analyse_log(&self, log: &ContactLog, region: Option<&Region>) -> Analysis {
        let ps = &self.particles;
        let n = ps.len();
        let x = |p: usize| -> Vector { std::array::from_fn(|a| ps.pos[a][p]) };
        // Wall bodies are few or none: without them every particle is a grain and the
        // grains need no numbering of their own.
        let bodies = ps.wall_bodies() > 0;
        let grain = |p: usize| !bodies || !ps.is_wall_body(p);
        // Each grain's stress times volume first, divided by its volume at the end.
        let mut grain_stress = vec![[[0.0; DIM]; DIM]; n];
        let mut total = [[0.0; DIM]; DIM];
        let mut contacts = vec![0u32; n];
        let mut fixed = vec![0u32; n];
        let mut grain_pairs = Vec::with_capacity(if bodies { log.pair_count() } else { 0 });
        let mut body_force = vec![[0.0; DIM]; if bodies { n } else { 0 }];
        let mut force_sum = 0.0;
        for c in log.pairs() {
            let (i, j) = (c.i as usize, c.j as usize);
            force_sum += norm2(c.c.f).sqrt();
            match (grain(i), grain(j)) {
                (true, true) => {
                    // The branch from j to i, by the minimum image in a periodic cell.
                    let v = contact_virial(scale(-1.0, self.separation(i, j)), c.c.f);
                    add_scaled(&mut total, 1.0, &v);
                    add_scaled(&mut grain_stress[i], 0.5, &v);
                    add_scaled(&mut grain_stress[j], 0.5, &v);
                    contacts[i] += 1;
                    contacts[j] += 1;
                    if bodies {
                        grain_pairs.push((c.i, c.j));
                    }
                }
                (gi, gj) if gi || gj => {
                    // A grain against a wall body: a wall contact of the grain's.
                    let (g, b, f) = if gi { (i, j, c.c.f) } else { (j, i, scale(-1.0, c.c.f)) };
                    let v = contact_virial(self.body_contact_branch(g, f, c.c.overlap), f);
                    add_scaled(&mut total, 1.0, &v);
                    add_scaled(&mut grain_stress[g], 1.0, &v);
                    contacts[g] += 1;
                    fixed[g] += 1;
                    body_force[b] = sub(body_force[b], f);
                }
                _ => {}
            }
        }
        let mut wall_forces = vec![[0.0; DIM]; self.walls.len()];
        for c in &log.walls {
            let p = c.p as usize;
            let v = contact_virial(sub(x(p), self.wall_contact_point(c)), c.c.f);
            add_scaled(&mut total, 1.0, &v);
            add_scaled(&mut grain_stress[p], 1.0, &v);
            contacts[p] += 1;
            fixed[p] += 1;
            force_sum += norm2(c.c.f).sqrt();
            let w = &mut wall_forces[c.wall as usize];
            *w = sub(*w, c.c.f);
        }
        // The rattlers, over the grains numbered apart where there are wall bodies.
        let frictional = self.materials.iter().any(|m| m.contact.mu > 0.0);
        let need = if frictional { HELD_FRICTIONAL } else { HELD_FRICTIONLESS };
        let (grain_count, rattler, pairs) = if bodies {
            let grains: Vec<usize> = (0..n).filter(|&p| grain(p)).collect();
            let mut index = vec![u32::MAX; n];
            for (k, &p) in grains.iter().enumerate() {
                index[p] = k as u32;
            }
            let pairs: Vec<(u32, u32)> = grain_pairs
                .iter()
                .map(|&(i, j)| (index[i as usize], index[j as usize]))
                .collect();
            let held: Vec<u32> = grains.iter().map(|&p| fixed[p]).collect();
            (grains.len(), rattlers(grains.len(), &pairs, &held, need), pairs)
        } else {
            let pairs: Vec<(u32, u32)> = log.pairs().map(|c| (c.i, c.j)).collect();
            (n, rattlers(n, &pairs, &fixed, need), pairs)
        };
        let volume_of = |p: usize| ps.mass(p) / self.materials[ps.material[p] as usize].density;
        let inv_volume = |p: usize| ps.inv_mass[p] * self.materials[ps.material[p] as usize].density;
        let g = self.config.gravity;
        let net: f64 = (0..n)
            .filter(|&p| grain(p))
            .map(|p| {
                let m = ps.mass(p);
                let f: Vector = std::array::from_fn(|a| ps.force[a][p] + m * g[a]);
                norm2(f).sqrt()
            })
            .sum();
        let (kinetic, rotational) = self.kinetic_energies();
        let potential: f64 = (0..n)
            .filter(|&p| grain(p))
            .map(|p| -ps.mass(p) * (0..DIM).map(|a| g[a] * ps.pos[a][p]).sum::<f64>())
            .sum();
        let found = log.pair_count() + log.walls.len();
        // Grains without a contact (a bed in free fall) are not balanced: no number, as
        // Yade gives none; no grains at all: nothing unbalanced.
        let unbalanced = if grain_count == 0 {
            0.0
        } else if found == 0 {
            f64::NAN
        } else {
            (net / grain_count as f64) / (force_sum / found as f64)
        };
        let domain = Region {
            min: self.config.domain_min,
            max: self.config.domain_max,
        };
        let mut stress = [[0.0; DIM]; DIM];
        add_scaled(&mut stress, 1.0 / domain.volume(), &total);
        let inside = |r: Region| (0..n).filter(move |&p| grain(p) && r.contains(x(p)));
        let packing = region.map(|r| inside(*r).map(volume_of).sum::<f64>() / r.volume());
        let region_stress = region.map(|r| {
            let mut s = [[0.0; DIM]; DIM];
            inside(*r).for_each(|p| add_scaled(&mut s, 1.0 / r.volume(), &grain_stress[p]));
            s
        });
        for (p, s) in grain_stress.iter_mut().enumerate() {
            if grain(p) {
                let v = *s;
                *s = [[0.0; DIM]; DIM];
                add_scaled(s, inv_volume(p), &v);
            }
        }
        Analysis {
            step: self.step,
            time: self.time,
            stress,
            volume: domain.volume(),
            grain_stress,
            contacts,
            coordination: coordination(grain_count, &pairs, None),
            coordination_held: coordination(grain_count, &pairs, Some(&rattler)),
            rattlers: rattler.iter().filter(|&&r| r).count(),
            wall_forces,
            body_forces: (0..n)
                .filter(|&p| !grain(p))
                .map(|p| (ps.id[p], body_force[p]))
                .collect(),
            unbalanced,
            kinetic,
            rotational,
            potential,
            packing,
            region_stress,
        }
    }
}
