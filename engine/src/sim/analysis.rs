//! The analysis of a state from the contact forces of the step that led to it (issue 20):
//! the Love-Weber stress of the assembly and of each grain, the coordination number with
//! and without rattlers, the force on each wall, Yade's unbalanced-force ratio, the
//! packing fraction of a region. The sums are the kernels' (`kernels/src/analysis/`);
//! this gathers them from the store and the [`ContactLog`].
//!
//! Grains are the particles that are not wall bodies (fixed or driven polygons in 2D): a
//! grain's contact with a wall body counts as a wall contact, as its contact with a wall.
use talus_kernels::analysis::rattlers::{coordination, rattlers, HELD_FRICTIONAL, HELD_FRICTIONLESS};
use talus_kernels::analysis::stress::{add_scaled, contact_virial, Tensor};
use talus_kernels::math::{add, norm2, scale, sub, Vector, ANG, DIM};

use super::Simulation;
use crate::contact_log::ContactLog;
use crate::error::{EngineError, Result};

/// A box of space (`min` below `max` on every axis), for the packing fraction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Region {
    pub min: Vector,
    pub max: Vector,
}

impl Region {
    pub fn contains(&self, x: Vector) -> bool {
        (0..DIM).all(|a| x[a] >= self.min[a] && x[a] < self.max[a])
    }

    pub fn volume(&self) -> f64 {
        (0..DIM).map(|a| self.max[a] - self.min[a]).product()
    }
}

/// What [`Simulation::analyse`] measures. Per-grain arrays are in store order, one entry
/// per particle (wall bodies get zeros).
#[derive(Debug, Clone)]
pub struct Analysis {
    pub step: u64,
    pub time: f64,
    /// The assembly's stress: the Love-Weber sum over every contact (pairs and walls)
    /// over the domain's volume (its area in 2D: a stress per unit depth). LAMMPS' sign:
    /// compression is negative.
    pub stress: Tensor,
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
    pub rattlers: usize,
    /// Per wall: the force the grains exert on it.
    pub wall_forces: Vec<Vector>,
    /// Per wall body (store order, the particles flagged as wall bodies): the force the
    /// grains exert on it.
    pub body_forces: Vec<(u64, Vector)>,
    /// Yade's unbalanced-force ratio: the mean over grains of the net force (contacts and
    /// gravity) over the mean contact force; 0 without contacts.
    pub unbalanced: f64,
    /// Translational and rotational kinetic energy of the grains.
    pub kinetic: f64,
    pub rotational: f64,
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
            let v = contact_virial(sub(x(i), x(j)), c.c.f);
            add_scaled(&mut total, 1.0, &v);
            force_sum += norm2(c.c.f).sqrt();
            if !bodies {
                add_scaled(&mut grain_stress[i], 0.5, &v);
                add_scaled(&mut grain_stress[j], 0.5, &v);
                contacts[i] += 1;
                contacts[j] += 1;
                continue;
            }
            for (p, q) in [(i, j), (j, i)] {
                if grain(p) {
                    add_scaled(&mut grain_stress[p], 0.5, &v);
                    contacts[p] += 1;
                    if !grain(q) {
                        fixed[p] += 1;
                    }
                }
            }
            match (grain(i), grain(j)) {
                (true, true) => grain_pairs.push((c.i, c.j)),
                (true, false) => body_force[j] = sub(body_force[j], c.c.f),
                (false, true) => body_force[i] = add(body_force[i], c.c.f),
                (false, false) => {}
            }
        }
        let mut wall_forces = vec![[0.0; DIM]; self.walls.len()];
        for c in &log.walls {
            let p = c.p as usize;
            let wall = &self.walls[c.wall as usize];
            // The contact point: on the wall's normal through the centre, halfway into
            // the overlap (a ball's exactly; a polygon's at its mean depth).
            let xp = x(p);
            let r = scale(wall.distance(xp) + 0.5 * c.c.overlap, wall.normal_at(xp));
            let v = contact_virial(r, c.c.f);
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
        let (mut net, mut kinetic, mut rotational) = (0.0, 0.0, 0.0);
        for p in (0..n).filter(|&p| grain(p)) {
            let m = ps.mass(p);
            let f: Vector = std::array::from_fn(|a| ps.force[a][p] + m * g[a]);
            net += norm2(f).sqrt();
            let v: Vector = std::array::from_fn(|a| ps.vel[a][p]);
            let w: [f64; ANG] = std::array::from_fn(|k| ps.omega[k][p]);
            kinetic += 0.5 * m * norm2(v);
            rotational += 0.5 * ps.inertia(p) * norm2(w);
        }
        let found = log.pair_count() + log.walls.len();
        let unbalanced = if found == 0 || grain_count == 0 {
            0.0
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
            packing,
            region_stress,
        }
    }
}
