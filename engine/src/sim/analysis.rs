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
use talus_kernels::analysis::rattlers::{
    coordination, ContactCounts, Count, Peeling, HELD_FRICTIONAL, HELD_FRICTIONLESS,
};
use talus_kernels::analysis::stress::{add_scaled, contact_virial, Tensor};
use talus_kernels::math::{norm2, scale, sub, Vector, DIM};

use super::analysis_passes::{grain_pass, mark_pass, pair_pass, GrainBlock, Grains, PairBlock, RimSide};
use super::Simulation;
use crate::contact_log::WallForce;
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
#[derive(Debug, Clone, Default)]
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
    /// Under a cell servo (`Simulation::set_cell_servo`): the cell's y length (m) and
    /// shear rate (1/s; 0 without shear) at the analysed state.
    pub cell: Option<(f64, f64)>,
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
    /// What the analysis worked in, kept for the next ([`Simulation::analyse_reusing`]).
    buffers: Buffers,
}

/// The analysis's working buffers: each grain's contacts, the peeling's, the bodies'
/// forces, and the passes' on the pool.
#[derive(Debug, Clone, Default)]
struct Buffers {
    counts: ContactCounts,
    peeling: Peeling,
    body_force: Vec<Vector>,
    /// Each thread's sides of pairs on particles other pieces of the log own.
    rims: Vec<Vec<RimSide>>,
    /// Each thread's first rattlers.
    queues: Vec<Vec<u32>>,
    pair_blocks: Vec<PairBlock>,
    grain_blocks: Vec<GrainBlock>,
}

impl Simulation {
    /// The analysis of the current state, from the contact forces of the step that led to
    /// it: that step must have been logged ([`Simulation::log_next_run`]).
    pub fn analyse(&mut self, region: Option<&Region>) -> Result<Analysis> {
        self.analyse_reusing(region, Analysis::default())
    }

    /// [`Simulation::analyse`], in the buffers of an earlier analysis: a run analysing at an
    /// interval hands back the last one (at 10^6 discs, fresh buffers' pages faulted in
    /// cost a third of the analysis).
    pub fn analyse_reusing(&mut self, region: Option<&Region>, earlier: Analysis) -> Result<Analysis> {
        if self.contact_log().is_none() {
            return Err(EngineError::Setup(format!(
                "no contact forces were logged for step {}: analysis needs log_next_run before the run that ends there",
                self.step
            )));
        }
        self.analyse_log(region, earlier)
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
        let depth = if round { 0.5 * c.overlap } else { 0.0 };
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

    fn analyse_log(&mut self, region: Option<&Region>, earlier: Analysis) -> Result<Analysis> {
        let ps = &self.particles;
        let log = self.contact_log.as_ref().expect("a log of this step");
        let n = ps.len();
        let x = |p: usize| -> Vector { std::array::from_fn(|a| ps.pos[a][p]) };
        // Wall bodies are few or none: without them every particle is a grain.
        let bodies = ps.wall_bodies() > 0;
        let on = Grains {
            ps,
            materials: &self.materials,
            bodies,
            image: self.min_image(),
            prefetch: crate::cache_size::prefetch_pays(n, super::analysis_passes::SECOND_BYTES),
        };
        let grain = |p: usize| on.grain(p);
        let Analysis {
            mut grain_stress,
            mut contacts,
            mut buffers,
            ..
        } = earlier;
        let frictional = self.materials.iter().any(|m| m.contact.mu > 0.0);
        let need = if frictional { HELD_FRICTIONAL } else { HELD_FRICTIONLESS };
        let Buffers {
            counts,
            peeling,
            body_force,
            rims,
            queues,
            pair_blocks,
            grain_blocks,
        } = &mut buffers;
        // Each grain's stress, and its contacts, for the rattlers and the coordination
        // numbers: zeroed by the pieces of the log that own them.
        grain_stress.resize(n, [[0.0; DIM]; DIM]);
        counts.of.resize(n, Count::default());
        let pool = &mut self.workers.pool;
        pair_pass(
            pool,
            &on,
            &log.runs,
            &mut grain_stress,
            &mut counts.of,
            pair_blocks,
            rims,
        )?;
        let mut total = [[0.0; DIM]; DIM];
        let (mut force_sum, mut grain_pairs) = (0.0, 0);
        for b in pair_blocks.iter() {
            add_scaled(&mut total, 1.0, &b.total);
            force_sum += b.force_sum;
            grain_pairs += b.grain_pairs;
        }
        // A grain against a wall body: a wall contact of the grain's.
        body_force.clear();
        body_force.resize(if bodies { n } else { 0 }, [0.0; DIM]);
        if bodies {
            for c in log.pairs() {
                let (i, j) = (c.i as usize, c.j as usize);
                if grain(i) != grain(j) {
                    let (g, b, f) = if grain(i) {
                        (i, j, c.f)
                    } else {
                        (j, i, scale(-1.0, c.f))
                    };
                    let v = contact_virial(self.body_contact_branch(g, f, c.overlap), f);
                    add_scaled(&mut total, 1.0, &v);
                    add_scaled(&mut grain_stress[g], on.inverse_volume(g), &v);
                    counts.add_fixed(g as u32);
                    body_force[b] = sub(body_force[b], f);
                }
            }
        }
        let mut wall_forces = vec![[0.0; DIM]; self.walls.len()];
        for c in &log.walls {
            let p = c.p as usize;
            let v = contact_virial(sub(x(p), self.wall_contact_point(c)), c.f);
            add_scaled(&mut total, 1.0, &v);
            add_scaled(&mut grain_stress[p], on.inverse_volume(p), &v);
            counts.add_fixed(c.p);
            force_sum += norm2(c.f).sqrt();
            let w = &mut wall_forces[c.wall as usize];
            *w = sub(*w, c.f);
        }
        // The rattlers: a grain's contacts with grains, walls and bodies hold it; the
        // bodies are kept.
        let mut grain_count = n;
        if bodies {
            for p in (0..n).filter(|&p| !grain(p)) {
                counts.keep(p as u32);
                grain_count -= 1;
            }
        }
        // Each grain's contacts, and the peeling's first rattlers, on the pool; the
        // peeling's cascade on one thread beside the pass over the grains, from the pairs
        // between grains again where more than two contacts hold a grain (no friction: it
        // lists them itself).
        contacts.resize(n, 0);
        let pool = &mut self.workers.pool;
        mark_pass(pool, &counts.of, need, &mut contacts, peeling.marks(n), queues)?;
        let grain_pairs_of_log = log.pairs().filter(|c| on.between_grains(c.i as usize, c.j as usize));
        let queued = queues.iter().map(Vec::as_slice);
        let pairs_of_log = grain_pairs_of_log.map(|c| (c.i, c.j));
        let cascade = || peeling.cascade(counts, need, 2 * grain_pairs, pairs_of_log, queued);
        let gravity = self.config.gravity;
        let pool = &mut self.workers.pool;
        let peeled = grain_pass(pool, &on, gravity, region, &grain_stress, grain_blocks, cascade)?;
        if bodies {
            (0..n).filter(|&p| !grain(p)).for_each(|p| contacts[p] = 0);
        }
        let (mut net, mut potential, mut kinetic, mut rotational) = (0.0, 0.0, 0.0, 0.0);
        let (mut packed, mut region_sum) = (0.0, [[0.0; DIM]; DIM]);
        for b in grain_blocks.iter() {
            net += b.net;
            potential += b.potential;
            kinetic += b.kinetic;
            rotational += b.rotational;
            packed += b.packed;
            add_scaled(&mut region_sum, 1.0, &b.region_sum);
        }
        let packing = region.map(|r| packed / r.volume());
        let region_stress = region.map(|_| region_sum);
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
        Ok(Analysis {
            step: self.step,
            time: self.time,
            stress,
            volume: domain.volume(),
            cell: self
                .cell_servo
                .map(|_| (domain.max[1] - domain.min[1], self.shear_rate())),
            grain_stress,
            contacts,
            coordination: coordination(grain_pairs, grain_count),
            coordination_held: coordination(peeled.held_pairs, grain_count - peeled.rattlers),
            rattlers: peeled.rattlers,
            wall_forces,
            body_forces: (0..n)
                .filter(|&p| !grain(p))
                .map(|p| (self.particles.id[p], body_force[p]))
                .collect(),
            unbalanced,
            kinetic,
            rotational,
            potential,
            packing,
            region_stress,
            buffers,
        })
    }
}
