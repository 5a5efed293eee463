//! Measurements of the current state: energies, contact counts, memory, the neighbour
//! search's counters. Read-only: they change nothing the step uses.
use super::*;

/// Energies and contact counts of the current state.
#[derive(Debug, Default, Clone, Copy)]
pub struct Energies {
    /// Translational kinetic energy of the free particles (J).
    pub kinetic: f64,
    /// Rotational kinetic energy of the free particles (J).
    pub rotational: f64,
    /// Energy stored in the touching contacts, normal and tangential springs (J).
    pub elastic: f64,
    /// Touching particle pairs.
    pub contacts: u64,
    /// Touching particle-wall pairs.
    pub wall_contacts: u64,
}

impl Energies {
    /// Kinetic, rotational and elastic energy together (J).
    pub fn total(&self) -> f64 {
        self.kinetic + self.rotational + self.elastic
    }
}

/// Bytes held by a simulation's arrays (capacity), by part ([`Simulation::memory_parts`]).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct MemoryParts {
    /// The particle store.
    pub particles: usize,
    /// The contact table: its slots (pairs, springs, chain links; polygon features and
    /// areas, rolling torques where kept), per-particle chain heads and the list of free
    /// slots, without the pairs kept out of them.
    pub contact_table: usize,
    /// The table's pairs without slots (3D: the far and the apart candidates, which do not
    /// touch).
    pub slotless_pairs: usize,
    /// The particle-wall contacts.
    pub wall_contacts: usize,
    /// The neighbour search method's arrays (boxes, sorted ends, cells, lists).
    pub neighbor_search: usize,
    /// The Gear predictor-corrector's derivatives (none with velocity Verlet).
    pub gear_history: usize,
    /// The polygons' vertices and edges (2D).
    pub shapes: usize,
}

impl MemoryParts {
    /// All parts together.
    pub fn total(&self) -> usize {
        self.particles
            + self.contact_table
            + self.slotless_pairs
            + self.wall_contacts
            + self.neighbor_search
            + self.gear_history
            + self.shapes
    }
}

impl Simulation {
    /// Kinetic energy of the free particles: translational and rotational (one pass over
    /// the particles; [`Simulation::energies`] also walks the contacts).
    pub fn kinetic_energies(&self) -> (f64, f64) {
        let ps = &self.particles;
        let (mut t, mut r) = (0.0, 0.0);
        for p in (0..ps.len()).filter(|&p| ps.inv_mass[p] > 0.0) {
            let (tp, rp) = kinetic_of(ps, p);
            t += tp;
            r += rp;
        }
        (t, r)
    }

    /// Energies of the current state and the number of touching pairs (3D: spheres).
    #[cfg(feature = "dim3")]
    pub fn energies(&self) -> Energies {
        use crate::walls::Surface;
        use talus_kernels::contact::sphere_sphere::elastic_energy;
        let ps = &self.particles;
        let model = self.config.normal_model;
        let at = |v: &[Vec<f64>; 3], p: usize| [v[0][p], v[1][p], v[2][p]];
        let sq = |v: [f64; 3]| v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        let (kinetic, rotational) = self.kinetic_energies();
        let mut e = Energies {
            kinetic,
            rotational,
            ..Default::default()
        };
        for (s, i, j) in self.contacts.iter() {
            let (i, j) = (i as usize, j as usize);
            let d = sq(self.separation(i, j)).sqrt();
            let (ri, rj) = (ps.radius[i], ps.radius[j]);
            let overlap = ri + rj - d;
            if overlap > 0.0 {
                let prm = self.params.get(ps.material[i], ps.material[j]);
                e.elastic += elastic_energy(prm, model, overlap, ri * rj / (ri + rj), self.contacts.xi[s]);
                e.contacts += 1;
            }
        }
        let wc = &self.wall_contacts;
        for k in 0..wc.len() {
            let p = wc.p[k] as usize;
            let wall = &self.walls[wc.w[k] as usize];
            let x = at(&ps.pos, p);
            let gap = match &wall.surface {
                Surface::Plane(pl) => pl.distance(x),
                Surface::Cylinder(cy) => cy.distance(x),
            };
            let overlap = ps.radius[p] - gap;
            if overlap > 0.0 {
                let prm = self.params.get(ps.material[p], wall.material);
                e.elastic += elastic_energy(prm, model, overlap, ps.radius[p], wc.xi[k]);
                e.wall_contacts += 1;
            }
        }
        e
    }

    /// Energies of the current state and the number of touching pairs.
    #[cfg(not(feature = "dim3"))]
    pub fn energies(&self) -> Energies {
        let ps = &self.particles;
        let model = self.config.normal_model;
        let (kinetic, rotational) = self.kinetic_energies();
        let mut e = Energies {
            kinetic,
            rotational,
            ..Default::default()
        };
        for (s, i, j) in self.contacts.iter() {
            let (i, j) = (i as usize, j as usize);
            let prm = self.params.get(ps.material[i], ps.material[j]);
            if let Some(sh) = self.shapes.as_ref().filter(|sh| sh.is_polygon(i) || sh.is_polygon(j)) {
                // Polygons: the energy of F = E A / l for an overlap growing at a fixed
                // contact-line width w, E A^2 / (2 l w), plus the tangential spring.
                // j as its image nearest to i in a periodic cell.
                let (shift, dvx) = self.image_shift(i, j);
                let mut buf = Vec::new();
                let (a, b) = (polygon_body(ps, sh, i), polygon_image(ps, sh, j, shift, dvx, &mut buf));
                let xi = self.contacts.xi[s];
                if sh.is_polygon(i) && sh.is_polygon(j) {
                    if let Some(o) = overlap(a.vertices, b.vertices) {
                        let l = 2.0 * ps.radius[i] * ps.radius[j] / (ps.radius[i] + ps.radius[j]);
                        let w = o
                            .line
                            .map_or(l, |[a, b]| (b[0] - a[0]).hypot(b[1] - a[1]).max(1e-3 * l));
                        e.elastic += prm.kn * o.area * o.area / (2.0 * l * w) + 0.5 * prm.kt * xi * xi;
                        e.contacts += 1;
                    }
                } else {
                    // Disc and polygon: the linear law of the penetration depth (dt = 0:
                    // evaluate only, on a copy of the spring).
                    let (d, p) = if sh.is_polygon(j) { (&a, &b) } else { (&b, &a) };
                    let inv = ps.inv_mass[i] + ps.inv_mass[j];
                    if inv > 0.0 {
                        if let Some(c) = disc_polygon(prm, d, p, inv, &mut xi.clone(), 0.0, &mut ()) {
                            e.elastic += elastic_energy(prm, NormalModel::Hooke, c.overlap, 0.0, xi);
                            e.contacts += 1;
                        }
                    }
                }
                continue;
            }
            let sep = self.separation(i, j);
            let d = sep[0].hypot(sep[1]);
            let (ri, rj) = (ps.radius[i], ps.radius[j]);
            let overlap = ri + rj - d;
            if overlap > 0.0 {
                e.elastic += elastic_energy(prm, model, overlap, ri * rj / (ri + rj), self.contacts.xi[s]);
                e.contacts += 1;
            }
        }
        for k in 0..self.wall_contacts.len() {
            let p = self.wall_contacts.p[k] as usize;
            let wall = &self.walls[self.wall_contacts.w[k] as usize];
            if self.shapes.as_ref().is_some_and(|sh| sh.is_polygon(p)) {
                let a = self.wall_contacts.area[k];
                if a > 0.0 {
                    let prm = self.params.get(ps.material[p], wall.material);
                    e.elastic += prm.kn * a * a / (2.0 * ps.radius[p] * ps.radius[p]);
                    e.wall_contacts += 1;
                }
                continue;
            }
            let overlap = ps.radius[p] - wall.line.distance(ps.pos[0][p], ps.pos[1][p]);
            if overlap > 0.0 {
                let prm = self.params.get(ps.material[p], wall.material);
                e.elastic += elastic_energy(prm, model, overlap, ps.radius[p], self.wall_contacts.xi[k]);
                e.wall_contacts += 1;
            }
        }
        e
    }

    /// Coordination number: touching particle pairs per particle, counted from both sides
    /// (2 x pairs / N), as LAMMPS `compute contact/atom` does. Walls not counted.
    pub fn contacts_per_particle(&self) -> f64 {
        2.0 * self.energies().contacts as f64 / self.grains().max(1) as f64
    }

    /// Particles that are grains: all but the wall bodies (fixed or driven).
    pub fn grains(&self) -> usize {
        self.len() - self.particles.wall_bodies()
    }

    /// Candidate pairs in the contact table.
    pub fn candidate_pairs(&self) -> usize {
        self.contacts.len()
    }

    /// Candidate pairs in the table's slots, which the sphere loop reads: in 3D those that
    /// touch, and those that touched since the table's last compaction (in a periodic cell,
    /// every pair). `None` in 2D, whose loops read every candidate.
    pub fn slotted_pairs(&self) -> Option<usize> {
        super::near_pairs::FAR_PAIRS.then(|| self.contacts.slotted())
    }

    /// Bytes held by all per-particle and per-pair arrays (capacity).
    pub fn memory_bytes(&self) -> usize {
        self.memory_parts().total()
    }

    /// [`Simulation::memory_bytes`] by part, for the run summary: where a run's memory
    /// goes, without a profiler.
    pub fn memory_parts(&self) -> MemoryParts {
        #[cfg(not(feature = "dim3"))]
        let shapes = self.shapes.as_ref().map_or(0, |s| s.memory_bytes());
        #[cfg(feature = "dim3")]
        let shapes = 0;
        MemoryParts {
            particles: self.particles.memory_bytes(),
            contact_table: self.contacts.memory_bytes(),
            slotless_pairs: self.contacts.far.memory_bytes() + self.contacts.apart.memory_bytes(),
            wall_contacts: self.wall_contacts.memory_bytes(),
            neighbor_search: with_broad!(&self.broad, m => NeighborSearch::memory_bytes(&**m)),
            gear_history: self.gear.as_ref().map_or(0, |g| {
                g.a.iter()
                    .chain(&g.b)
                    .chain(&g.c)
                    .chain(&g.d)
                    .map(|a| a.capacity() * 8)
                    .sum()
            }),
            shapes,
        }
    }

    /// The sweep's counters (None for other methods).
    pub fn sweep_stats(&self) -> Option<talus_kernels::neighbor::sweep::SweepStats> {
        match &self.broad {
            Broad::Sweep(s) => Some(s.stats),
            _ => None,
        }
    }
}

/// Particle p's translational and rotational kinetic energies (p of finite mass).
/// Always inlined: the analysis's pass over the grains called it once a grain, and
/// recomputed the mass it divides out.
#[inline(always)]
pub(crate) fn kinetic_of(ps: &ParticleStore, p: usize) -> (f64, f64) {
    let v: f64 = (0..DIM).map(|a| ps.vel[a][p] * ps.vel[a][p]).sum();
    let w: f64 = (0..ANG).map(|k| ps.omega[k][p] * ps.omega[k][p]).sum();
    // One spin component (2D): multiplied in the order the energy series always had.
    let r = if ANG == 1 {
        0.5 * ps.inertia(p) * ps.omega[0][p] * ps.omega[0][p]
    } else {
        0.5 * ps.inertia(p) * w
    };
    (0.5 * ps.mass(p) * v, r)
}
