//! The simulation: the particle store, the broad phase, the contact table, walls and the
//! integrator, stepped through explicit phases:
//!
//! predict -> check (who left its enlarged box, who left the domain) -> neighbour update
//! (only when needed, or every step) -> forces (pairs, walls) -> correct.
//!
//! Each phase is one pass over flat arrays, timed separately; the worker pool of a later
//! issue runs the same phases on several threads.
use std::time::Instant;

use talus_kernels::contact::disc_disc::{disc_disc_touching, disc_overlap};
use talus_kernels::contact::disc_wall::disc_wall;
use talus_kernels::contact::law::elastic_energy;
use talus_kernels::contact::ContactParams;
use talus_kernels::integrate::gear::{self, GearDof};
use talus_kernels::integrate::verlet::{self, Check};
use talus_kernels::neighbor::{
    inside, BoundingVolumes, BruteForce, Dess, DiscBoxes, LinkedCells, NeighborSearch, Quadtree, SpatialHash,
    StripedSort, SweepAndPrune, VerletLists,
};

use crate::contacts::{ContactTable, FREE};
use crate::drive::{Drive, Driven};
use crate::error::{EngineError, Result};
use crate::insert::{InsertSpec, Inserter, Shortfall};
use crate::material::{Material, PairTable};
use crate::parallel::{ForceStrategy, Parallel};
use crate::pool::Profile;
use crate::shapes::{PolygonShape, Shapes};
use crate::store::{ParticleInit, ParticleStore};
use crate::walls::{Wall, WallContacts};
use talus_kernels::contact::disc_disc::ContactForce;
use talus_kernels::contact::polygon_polygon::{disc_polygon, polygon_polygon, Body, PolyOutcome};
use talus_kernels::contact::polygon_wall::polygon_wall;
use talus_kernels::geometry::overlap::Tier;
use talus_kernels::geometry::overlap::{overlap, OverlapScratch};
use talus_kernels::geometry::polygon::to_world;
use talus_kernels::geometry::projection::projections_apart;
use talus_kernels::geometry::separating_line::separating_line;

/// Time integration scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Integrator {
    /// Velocity Verlet (kick-drift-kick), second order, symplectic.
    Verlet,
    /// Gear's 6-value predictor-corrector.
    Gear,
}

/// Broad-phase method (all behind `talus_kernels::neighbor::NeighborSearch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NeighborMethod {
    /// Incremental sort-and-sweep.
    Sweep,
    /// Incrementally migrated quadtree over the domain (Watanabe, Krengel & Matuttis).
    Quadtree,
    /// Linked cells, half shell.
    Cells,
    /// Verlet lists with an automatic skin.
    Verlet,
    /// Spatial hashing (Perkins' Hashing2).
    Hashing,
    /// Double-Ended Spatial Sorting (Perkins).
    Dess,
    /// Sort-and-sweep in horizontal strips (Perkins' striping).
    Striped,
    /// Bounding-volume hierarchy rebuilt every step (reference).
    Bvh,
    /// O(N^2) reference, for tests and tiny systems.
    Brute,
}

impl NeighborMethod {
    pub const ALL: [NeighborMethod; 9] = [
        NeighborMethod::Sweep,
        NeighborMethod::Quadtree,
        NeighborMethod::Cells,
        NeighborMethod::Verlet,
        NeighborMethod::Hashing,
        NeighborMethod::Dess,
        NeighborMethod::Striped,
        NeighborMethod::Bvh,
        NeighborMethod::Brute,
    ];

    pub fn name(self) -> &'static str {
        match self {
            NeighborMethod::Sweep => "sweep",
            NeighborMethod::Quadtree => "quadtree",
            NeighborMethod::Cells => "cells",
            NeighborMethod::Verlet => "verlet",
            NeighborMethod::Hashing => "hashing",
            NeighborMethod::Dess => "dess",
            NeighborMethod::Striped => "striped",
            NeighborMethod::Bvh => "bvh",
            NeighborMethod::Brute => "brute",
        }
    }
}

impl std::str::FromStr for NeighborMethod {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        NeighborMethod::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| {
            format!(
                "unknown neighbour method {s:?} (expected sweep, quadtree, cells, verlet, hashing, dess, striped, bvh or brute)"
            )
        })
    }
}

#[derive(Debug, Clone)]
pub struct Config {
    pub dt: f64,
    pub gravity: [f64; 2],
    /// Hard bounds: a particle centre outside them is an error of the run.
    pub domain_min: [f64; 2],
    pub domain_max: [f64; 2],
    pub integrator: Integrator,
    pub neighbor: NeighborMethod,
    /// Verlet skin (absolute length): boxes are enlarged by it on every side.
    pub margin: f64,
    /// Update the broad phase every step instead of only when a particle left its box.
    pub every_step: bool,
    /// Renumber particles along a Morton curve every this many steps (0 = only at start).
    pub sort_every: u64,
    /// Cheap tests run on candidate pairs of polygons before the exact one.
    pub rejection: Rejection,
}

/// The cheap rejection tests a candidate pair of polygons goes through before the
/// closest-feature walk (Chen & Matuttis 2013, App. B); each level includes the ones
/// before it. Pairs that touched at the last step skip them (they almost surely still
/// touch, and the overlap kernel starts with the projection anyway).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Rejection {
    /// Bounding circles only.
    #[default]
    Circle,
    /// Then the projection of the corners on the centre line (App. B.1).
    Projection,
    /// Then the iterated separating line (App. B.2), at most
    /// [`SEPARATING_LINE_ITERATIONS`] moves of the line.
    SeparatingLine,
}

/// Iterations of the separating-line search (Chen & Matuttis found 1-4 to settle most
/// of the pairs it can settle).
pub const SEPARATING_LINE_ITERATIONS: u32 = 4;

/// Wall-clock time spent in each phase, accumulated over the run (seconds).
#[derive(Debug, Default, Clone, Copy)]
pub struct PhaseTimes {
    pub predict: f64,
    /// The check of positions against the enlarged boxes and the domain, plus the
    /// broad-phase updates (`neighbor_update` of it).
    pub neighbor: f64,
    /// The broad-phase updates alone (sweep plus contact-table changes).
    pub neighbor_update: f64,
    pub forces: f64,
    pub correct: f64,
    pub other: f64,
}

impl PhaseTimes {
    pub fn total(&self) -> f64 {
        self.predict + self.neighbor + self.forces + self.correct + self.other
    }
}

/// Energies and contact counts of the current state.
#[derive(Debug, Default, Clone, Copy)]
pub struct Energies {
    pub kinetic: f64,
    pub rotational: f64,
    pub elastic: f64,
    /// Touching particle pairs.
    pub contacts: u64,
    /// Touching particle-wall pairs.
    pub wall_contacts: u64,
}

impl Energies {
    pub fn total(&self) -> f64 {
        self.kinetic + self.rotational + self.elastic
    }
}

/// History of the Gear predictor for the three degrees of freedom (x, y, angle):
/// acceleration and the third to fifth derivatives.
#[derive(Debug, Default, Clone)]
struct GearHistory {
    a: [Vec<f64>; 3],
    b: [Vec<f64>; 3],
    c: [Vec<f64>; 3],
    d: [Vec<f64>; 3],
}

impl GearHistory {
    fn arrays(&mut self) -> impl Iterator<Item = &mut Vec<f64>> {
        self.a
            .iter_mut()
            .chain(&mut self.b)
            .chain(&mut self.c)
            .chain(&mut self.d)
    }

    /// The three degrees of freedom (x, y, angle) as views for the Gear kernels.
    fn dofs<'a>(&'a mut self, pos: [&'a mut Vec<f64>; 3], vel: [&'a mut Vec<f64>; 3]) -> [GearDof<'a>; 3] {
        let [a0, a1, a2] = &mut self.a;
        let [b0, b1, b2] = &mut self.b;
        let [c0, c1, c2] = &mut self.c;
        let [d0, d1, d2] = &mut self.d;
        let [x0, x1, x2] = pos;
        let [v0, v1, v2] = vel;
        let dof = |x, v, a, b, c, d| GearDof { x, v, a, b, c, d };
        [
            dof(x0, v0, a0, b0, c0, d0),
            dof(x1, v1, a1, b1, c1, d1),
            dof(x2, v2, a2, b2, c2, d2),
        ]
    }
}

#[derive(Debug, Clone)]
enum Broad {
    Sweep(Box<SweepAndPrune>),
    Quadtree(Box<Quadtree>),
    Cells(Box<LinkedCells>),
    Verlet(Box<VerletLists>),
    Hashing(Box<SpatialHash>),
    Dess(Box<Dess>),
    Striped(Box<StripedSort>),
    Bvh(Box<BoundingVolumes>),
    Brute(Box<BruteForce>),
}

/// Entries a quadtree leaf of the simulation holds before it splits (Watanabe et al.
/// split at the second; see `talus neighbors --leaf-capacity`).
pub const QUADTREE_LEAF: u32 = 4;

/// A borrowed list of pairs (i < j).
type PairList<'a> = &'a [(u32, u32)];

impl Broad {
    fn new(method: NeighborMethod, config: &Config) -> Broad {
        match method {
            NeighborMethod::Sweep => Broad::Sweep(Box::default()),
            // The tree's root is the domain: particles cannot leave it. Leaves of up to
            // QUADTREE_LEAF entries: measured faster than the paper's one (BENCHMARKS.md,
            // issue 5).
            NeighborMethod::Quadtree => Broad::Quadtree(Box::new(Quadtree::with_capacity(
                Some([
                    config.domain_min[0],
                    config.domain_max[0],
                    config.domain_min[1],
                    config.domain_max[1],
                ]),
                QUADTREE_LEAF,
            ))),
            NeighborMethod::Cells => Broad::Cells(Box::default()),
            NeighborMethod::Verlet => Broad::Verlet(Box::default()),
            NeighborMethod::Hashing => Broad::Hashing(Box::default()),
            NeighborMethod::Dess => Broad::Dess(Box::default()),
            NeighborMethod::Striped => Broad::Striped(Box::default()),
            NeighborMethod::Bvh => Broad::Bvh(Box::default()),
            NeighborMethod::Brute => Broad::Brute(Box::default()),
        }
    }
}

/// `$e` with `$m` bound to the method, whichever it is (static dispatch: the trait's
/// methods are generic over the box source).
macro_rules! with_broad {
    ($b:expr, $m:ident => $e:expr) => {
        match $b {
            Broad::Sweep($m) => $e,
            Broad::Quadtree($m) => $e,
            Broad::Cells($m) => $e,
            Broad::Verlet($m) => $e,
            Broad::Hashing($m) => $e,
            Broad::Dess($m) => $e,
            Broad::Striped($m) => $e,
            Broad::Bvh($m) => $e,
            Broad::Brute($m) => $e,
        }
    };
}

mod state;
mod state_check;
pub use state::{Elem, Section, SectionSource, SETTINGS_SECTIONS};

/// Not `Clone`: it may own a pool of threads.
#[derive(Debug)]
pub struct Simulation {
    pub config: Config,
    pub particles: ParticleStore,
    pub contacts: ContactTable,
    pub walls: Vec<Wall>,
    pub wall_contacts: WallContacts,
    pub materials: Vec<Material>,
    params: PairTable,
    broad: Broad,
    gear: Option<GearHistory>,
    pub step: u64,
    pub time: f64,
    pub times: PhaseTimes,
    /// Broad-phase updates done (incremental or full).
    pub neighbor_updates: u64,
    needs_rebuild: bool,
    /// Pair-set changes of the methods other than the sweep (buffers kept between steps).
    adds: Vec<(u32, u32)>,
    removes: Vec<(u32, u32)>,
    primed: bool,
    /// Touching pairs found by the last force phase.
    pub last_contacts: u64,
    /// Polygon shapes (None while every particle is a disc: the disc paths stay as they are).
    pub shapes: Option<Shapes>,
    /// What the narrow phase of polygon pairs did, accumulated over the run.
    pub narrow: NarrowStats,
    overlap_scratch: Box<OverlapScratch>,
    /// The worker pool and its buffers (None: the serial code paths).
    par: Option<Box<Parallel>>,
    /// Bodies moved by prescribed motions (drum walls, moving boundaries).
    pub driven: Driven,
    /// Insertion streams (particles poured in over time) and what they have done.
    inserts: Vec<Inserter>,
    /// The id the next inserted particle gets (at least one more than any id present).
    next_id: u64,
    /// Insertion events that fell short since the caller last took them.
    shortfalls: Vec<Shortfall>,
}

/// Work of the narrow phase on pairs with a polygon: how many candidate pairs each stage
/// settled.
#[derive(Debug, Default, Clone, Copy)]
pub struct NarrowStats {
    /// Candidate pairs with at least one polygon, summed over the steps.
    pub candidates: u64,
    /// Rejected by the bounding-circle test.
    pub circle_rejected: u64,
    /// Polygon pairs that went through the projection test (not touching at the last step).
    pub projection_tested: u64,
    /// Rejected by the projection on the centre line.
    pub projection_rejected: u64,
    /// Rejected by the separating-line search.
    pub line_rejected: u64,
    /// Moves of the line in the separating-line search, summed over the pairs it ran on.
    pub line_iterations: u64,
    /// Found apart by the closest-feature walk.
    pub separated: u64,
    /// Overlapping (overlap polygon computed; disc-polygon contacts included).
    pub touching: u64,
    /// Feature pairs visited by the walks.
    pub walk_steps: u64,
    /// Walks that did not settle (came back to a feature pair: overlapping polygons whose
    /// nearby features prove nothing) and fell back to brute force.
    pub fallbacks: u64,
    /// Polygon-polygon overlaps computed in f64 with exact signs and accurately evaluated
    /// orientations: the f64 fast path could not vouch for 1e-10 of the area (mostly shallow
    /// contacts). Not kept in checkpoints: a restarted run counts from 0.
    pub accurate: u64,
    /// Polygon-polygon overlaps computed in expansion arithmetic: even exact signs could
    /// not vouch for the area (slivers along nearly parallel edges, coincident edges). Not
    /// kept in checkpoints either.
    pub exact: u64,
    /// Polygon-polygon overlaps taken from the cached crossing edges (no clipping).
    pub tracked: u64,
    /// Polygon-polygon overlaps that were clipped (new contacts, crossings that moved on).
    pub clipped: u64,
    /// Of the pairs counted in `separated`, those settled without a walk: the gap left
    /// from their last walk exceeded the step's motion.
    pub gap_skips: u64,
}

impl NarrowStats {
    /// Add another thread's counts.
    pub fn add(&mut self, o: &NarrowStats) {
        self.candidates += o.candidates;
        self.circle_rejected += o.circle_rejected;
        self.projection_tested += o.projection_tested;
        self.projection_rejected += o.projection_rejected;
        self.line_rejected += o.line_rejected;
        self.line_iterations += o.line_iterations;
        self.separated += o.separated;
        self.touching += o.touching;
        self.walk_steps += o.walk_steps;
        self.fallbacks += o.fallbacks;
        self.accurate += o.accurate;
        self.exact += o.exact;
        self.tracked += o.tracked;
        self.clipped += o.clipped;
        self.gap_skips += o.gap_skips;
    }
}

impl Simulation {
    /// A simulation of the given particles. The particles are renumbered along a Morton
    /// curve (their ids stay), and the forces of the initial state are computed.
    pub fn new(config: Config, materials: Vec<Material>, walls: Vec<Wall>, particles: &[ParticleInit]) -> Result<Self> {
        Self::new_with_shapes(config, materials, walls, particles, &[])
    }

    /// A simulation of discs and convex polygons: `shapes[k]` is the shape of
    /// `particles[k]` (`None` or a missing entry: a disc). A polygon's radius is its
    /// bounding radius and its moment of inertia comes from its shape.
    pub fn new_with_shapes(
        config: Config,
        materials: Vec<Material>,
        walls: Vec<Wall>,
        particles: &[ParticleInit],
        shapes: &[Option<PolygonShape>],
    ) -> Result<Self> {
        check_config(&config, &materials, &walls)?;
        let broad = Broad::new(config.neighbor, &config);
        let mut sim = Simulation {
            params: PairTable::new(&materials),
            gear: (config.integrator == Integrator::Gear).then(GearHistory::default),
            config,
            particles: ParticleStore::default(),
            contacts: ContactTable::new(0),
            walls,
            wall_contacts: WallContacts::default(),
            materials,
            broad,
            step: 0,
            time: 0.0,
            times: PhaseTimes::default(),
            neighbor_updates: 0,
            needs_rebuild: true,
            adds: Vec::new(),
            removes: Vec::new(),
            primed: false,
            last_contacts: 0,
            shapes: None,
            narrow: NarrowStats::default(),
            overlap_scratch: Box::default(),
            par: None,
            driven: Driven::default(),
            inserts: Vec::new(),
            next_id: 1,
            shortfalls: Vec::new(),
        };
        sim.add_particles_with_shapes(particles, shapes)?;
        sim.reorder();
        sim.prime()?;
        Ok(sim)
    }

    pub fn len(&self) -> usize {
        self.particles.len()
    }

    pub fn is_empty(&self) -> bool {
        self.particles.is_empty()
    }

    /// Append particles. They join the pair set at the next broad-phase update (at once,
    /// since their stored box is empty); a large batch triggers a full rebuild instead.
    pub fn add_particles(&mut self, new: &[ParticleInit]) -> Result<()> {
        self.add_particles_with_shapes(new, &[])
    }

    /// Append discs and polygons (`shapes[k]` for `new[k]`, as in `new_with_shapes`).
    pub fn add_particles_with_shapes(&mut self, new: &[ParticleInit], shapes: &[Option<PolygonShape>]) -> Result<()> {
        self.append(new, shapes)?;
        // Gear needs the accelerations of the new particles: recompute the forces.
        self.primed = false;
        Ok(())
    }

    /// Append particles: the store, the shapes, the neighbour search (which takes them in
    /// at its next update), the contact table's chains and the Gear history grow.
    fn append(&mut self, new: &[ParticleInit], shapes: &[Option<PolygonShape>]) -> Result<()> {
        let nmat = self.materials.len();
        for p in new {
            if let Err(msg) = check_radius(p.radius, &self.config) {
                return Err(EngineError::Setup(format!("particle id {}: {msg}", p.id)));
            }
            let ok = p.mass > 0.0 && p.mass.is_finite();
            if !ok {
                return Err(EngineError::Setup(format!(
                    "particle id {}: mass {} must be positive and finite",
                    p.id, p.mass
                )));
            }
            if p.material as usize >= nmat {
                return Err(EngineError::Setup(format!(
                    "particle id {}: material {} does not exist",
                    p.id, p.material
                )));
            }
            if !self.in_domain(p.x, p.y) {
                return Err(EngineError::Setup(format!(
                    "particle id {} at ({}, {}) is outside the domain {:?}..{:?}",
                    p.id, p.x, p.y, self.config.domain_min, self.config.domain_max
                )));
            }
        }
        let before = self.len();
        if self.shapes.is_none() && shapes.iter().any(|s| s.is_some()) {
            let mut sh = Shapes::new();
            (0..before).for_each(|_| sh.push(None));
            self.shapes = Some(sh);
            self.contacts.enable_polygon_state();
        }
        self.particles.try_reserve(new.len()).map_err(|e| {
            EngineError::Setup(format!(
                "cannot allocate the particle store for {} more particles ({} bytes each): {e}",
                new.len(),
                crate::store::BYTES_PER_PARTICLE
            ))
        })?;
        if let Some(par) = &mut self.par {
            par.untouched = true;
        }
        for (k, p) in new.iter().enumerate() {
            let shape = shapes.get(k).and_then(|s| s.as_ref());
            let idx = match shape {
                Some(sh) => {
                    let q = self.particles.push(&ParticleInit {
                        radius: sh.radius,
                        ..*p
                    });
                    // I = m J / A for a body of uniform areal density.
                    if self.particles.inv_mass[q] > 0.0 {
                        self.particles.inv_inertia[q] = sh.area / (p.mass * sh.polar_moment);
                    }
                    q
                }
                None => self.particles.push(p),
            };
            if let Some(all) = &mut self.shapes {
                all.push(shape);
                let r = all.range(idx);
                let ps = &self.particles;
                to_world(
                    &all.body[r.clone()],
                    [ps.x[idx], ps.y[idx]],
                    ps.angle[idx],
                    &mut all.world[r],
                );
            }
            with_broad!(&mut self.broad, m => NeighborSearch::push_particle(&mut **m));
        }
        self.contacts.grow_particles(self.len());
        if let Some(g) = &mut self.gear {
            let n = self.particles.len();
            g.arrays().for_each(|a| a.resize(n, 0.0));
        }
        if new.len() * 4 > before {
            self.needs_rebuild = true;
        }
        if let Some(m) = new.iter().map(|p| p.id).max() {
            self.next_id = self.next_id.max(m.saturating_add(1));
        }
        Ok(())
    }

    /// Pour particles in over time (see [`crate::insert`]): from the next step on, the
    /// stream inserts at its scheduled steps (events before the current step are skipped).
    /// Returns the stream's index.
    pub fn add_insertion(&mut self, spec: InsertSpec) -> Result<usize> {
        let c = &self.config;
        let setup = |m: String| EngineError::Setup(format!("insertion: {m}"));
        spec.check(c.domain_min, c.domain_max, self.materials.len())
            .map_err(setup)?;
        for r in [spec.radius.min(), spec.radius.max()] {
            check_radius(r, c).map_err(setup)?;
        }
        // A shape specification that cannot make polygons is a setup error, not one of
        // the run: draw a few.
        let mut rng = crate::generate::rng(spec.seed);
        for _ in 0..16 {
            let r = spec.radius.max();
            if let Some(v) = crate::generate::polygon_vertices(&spec.shape, r, &mut rng) {
                PolygonShape::new(&v).map_err(|e| setup(e.to_string()))?;
            }
        }
        let mut ins = Inserter::new(spec);
        ins.skip_to(self.step);
        self.inserts.push(ins);
        Ok(self.inserts.len() - 1)
    }

    /// The insertion streams and their counts.
    pub fn insertions(&self) -> &[Inserter] {
        &self.inserts
    }

    /// The insertion events that fell short since the last call (the region was too full
    /// for all the particles asked for), oldest first.
    pub fn take_shortfalls(&mut self) -> Vec<Shortfall> {
        std::mem::take(&mut self.shortfalls)
    }

    /// Is some insertion stream due before the next step?
    fn insertion_due(&self) -> bool {
        self.inserts.iter().any(|i| i.next_step() == Some(self.step))
    }

    /// Do the insertion events due before the next step now, stream by stream (each sees
    /// the particles of the ones before); `run` does them itself, so calling this first
    /// changes nothing but lets the caller see the particles as they were inserted. The
    /// state must be synchronised (it is between calls of `run`).
    pub fn insert_due(&mut self) -> Result<()> {
        let t = Instant::now();
        for s in 0..self.inserts.len() {
            if self.inserts[s].next_step() == Some(self.step) {
                self.insert_event(s)?;
            }
        }
        self.times.other += t.elapsed().as_secs_f64();
        Ok(())
    }

    /// One event of stream `s`.
    fn insert_event(&mut self, s: usize) -> Result<()> {
        let ins = &self.inserts[s];
        let want = ins
            .spec
            .scheduled(ins.counts.events, self.config.dt)
            .min(ins.remaining());
        let mut placed = None;
        if want > 0 {
            // Bounding circles of everything whose box meets the region, and ids above all
            // present (particles may have been added by hand).
            let (lo, hi) = (ins.spec.region_min, ins.spec.region_max);
            let ps = &self.particles;
            let mut obstacles = Vec::new();
            let mut next_id = self.next_id;
            for p in 0..ps.len() {
                let (x, y, r) = (ps.x[p], ps.y[p], ps.radius[p]);
                if x + r >= lo[0] && x - r <= hi[0] && y + r >= lo[1] && y - r <= hi[1] {
                    obstacles.push([x, y, r]);
                }
                next_id = next_id.max(ps.id[p].saturating_add(1));
            }
            let density = self.materials[ins.spec.material as usize].density;
            let p = crate::insert::place(ins, want, &obstacles, &self.walls, density, next_id)
                .map_err(|e| EngineError::Setup(format!("insertion stream {s} at step {}: {e}", self.step)))?;
            self.next_id = next_id;
            placed = Some(p);
        }
        let got = placed.as_ref().map_or(0, |p| p.inits.len() as u64);
        let c = &mut self.inserts[s].counts;
        c.events += 1;
        c.requested += want;
        c.inserted += got;
        if got < want {
            c.short_events += 1;
            self.shortfalls.push(Shortfall {
                stream: s,
                step: self.step,
                requested: want,
                inserted: got,
            });
        }
        let Some(p) = placed.filter(|p| !p.inits.is_empty()) else {
            return Ok(());
        };
        let before = self.len();
        self.append(&p.inits, &p.shapes)?;
        // Nothing touches a new particle: its force is zero, so what `prime` would give it
        // (Gear: its acceleration is gravity) is set directly, and the others keep theirs.
        if let Some(gh) = &mut self.gear {
            let (ps, g) = (&self.particles, self.config.gravity);
            for q in before..ps.len() {
                let gm = if ps.inv_mass[q] > 0.0 { 1.0 } else { 0.0 };
                gh.a[0][q] = ps.fx[q] * ps.inv_mass[q] + gm * g[0];
                gh.a[1][q] = ps.fy[q] * ps.inv_mass[q] + gm * g[1];
                gh.a[2][q] = ps.torque[q] * ps.inv_inertia[q];
            }
        }
        Ok(())
    }

    /// Put the particles with these ids under a prescribed rigid motion (they must carry
    /// the DRIVEN flag: infinite mass). Their poses follow `drive` exactly from now on.
    pub fn drive_particles(&mut self, drive: Drive, ids: &[u64]) -> Result<()> {
        let d = self.driven.drives.len();
        if d >= u16::MAX as usize {
            return Err(EngineError::Setup("too many drives".into()));
        }
        self.driven.drives.push(drive);
        for &id in ids {
            let p = self
                .particles
                .index_of(id)
                .ok_or_else(|| EngineError::Setup(format!("drive: no particle with id {id}")))?;
            if self.particles.flags[p] & crate::store::flags::DRIVEN == 0 {
                return Err(EngineError::Setup(format!(
                    "drive: particle id {id} must have the DRIVEN flag (infinite mass)"
                )));
            }
            let ps = &self.particles;
            self.driven
                .add(d as u16, p as u32, [ps.x[p], ps.y[p]], ps.angle[p], self.time);
        }
        Ok(())
    }

    /// Remove particles by index (e.g. leaving through an outlet). The store is compacted;
    /// the broad phase, contact table and wall contacts are renumbered, not rebuilt.
    pub fn remove_particles(&mut self, indices: &[usize]) {
        let n = self.len();
        let mut map = vec![0u32; n];
        for &p in indices {
            map[p] = u32::MAX;
        }
        let mut k = 0u32;
        for m in map.iter_mut() {
            if *m != u32::MAX {
                *m = k;
                k += 1;
            }
        }
        self.remap(&map);
    }

    /// Renumber the particles along a Morton (Z-order) curve of their positions, so that
    /// neighbours sit close in memory (LAMMPS `atom_modify sort` does the same).
    pub fn reorder(&mut self) {
        let n = self.len();
        if n < 2 {
            return;
        }
        let (lo, hi) = (self.config.domain_min, self.config.domain_max);
        let scale = [65535.0 / (hi[0] - lo[0]), 65535.0 / (hi[1] - lo[1])];
        let mut keyed: Vec<(u32, u32)> = (0..n)
            .map(|p| {
                let cx = ((self.particles.x[p] - lo[0]) * scale[0]).clamp(0.0, 65535.0) as u32;
                let cy = ((self.particles.y[p] - lo[1]) * scale[1]).clamp(0.0, 65535.0) as u32;
                (spread_bits(cx) | (spread_bits(cy) << 1), p as u32)
            })
            .collect();
        keyed.sort_unstable();
        let mut map = vec![0u32; n];
        for (new, &(_, old)) in keyed.iter().enumerate() {
            map[old as usize] = new as u32;
        }
        self.remap(&map);
    }

    fn remap(&mut self, map: &[u32]) {
        let t = Instant::now();
        self.particles.remap(map);
        let n = self.particles.len();
        with_broad!(&mut self.broad, m => NeighborSearch::renumber(&mut **m, map));
        self.contacts.remap(map, n);
        self.wall_contacts.remap(map);
        if let Some(sh) = &mut self.shapes {
            sh.remap(map);
        }
        self.driven.remap(map);
        if let Some(g) = &mut self.gear {
            for a in g.arrays() {
                let mut na = vec![0.0; n];
                for (old, &new) in map.iter().enumerate() {
                    if new != u32::MAX {
                        na[new as usize] = a[old];
                    }
                }
                *a = na;
            }
        }
        if let Some(par) = &mut self.par {
            par.untouched = true;
        }
        self.times.other += t.elapsed().as_secs_f64();
    }

    fn in_domain(&self, x: f64, y: f64) -> bool {
        let (lo, hi) = (self.config.domain_min, self.config.domain_max);
        x >= lo[0] && x <= hi[0] && y >= lo[1] && y <= hi[1]
    }

    /// Compute the forces of the current state without advancing any spring: needed once
    /// before the first step (and after particles were added).
    pub fn prime(&mut self) -> Result<()> {
        let g = self.config.gravity;
        let ps = &mut self.particles;
        ps.fx
            .iter_mut()
            .chain(&mut ps.fy)
            .chain(&mut ps.torque)
            .for_each(|f| *f = 0.0);
        self.check_positions()?;
        self.update_neighbors()?;
        self.forces(0.0)?;
        if let Some(gh) = &mut self.gear {
            let ps = &self.particles;
            for p in 0..ps.len() {
                let gm = if ps.inv_mass[p] > 0.0 { 1.0 } else { 0.0 };
                gh.a[0][p] = ps.fx[p] * ps.inv_mass[p] + gm * g[0];
                gh.a[1][p] = ps.fy[p] * ps.inv_mass[p] + gm * g[1];
                gh.a[2][p] = ps.torque[p] * ps.inv_inertia[p];
            }
        }
        self.primed = true;
        Ok(())
    }

    /// Advance one time step.
    pub fn step(&mut self) -> Result<()> {
        self.run(1)
    }

    /// Advance `steps` time steps. Within the batch the second half kick of one step is
    /// fused with the first half kick of the next (one pass over the particles instead of
    /// two); the state returned is synchronised, and bitwise the same as `steps` calls of
    /// [`Simulation::step`].
    pub fn run(&mut self, steps: u64) -> Result<()> {
        if let Some(par) = &self.par {
            // Another pool made since this one may have moved the calling thread.
            par.pool.pin_caller()?;
        }
        if !self.primed {
            self.prime()?;
        }
        for k in 0..steps {
            let mut pending = k > 0;
            if self.insertion_due() {
                // Particles are inserted in a synchronised state: the pending half kick
                // first (bitwise what the fused kick would do), so that a batch split at
                // an insertion, or a restart there, gives the same trajectory.
                if pending {
                    self.finish_kick()?;
                    pending = false;
                }
                self.insert_due()?;
            }
            if let Err(e) = self.advance(pending) {
                // Keep the state synchronised; the first error is the one to report. The
                // bodies may have moved without the gap budgets being charged: drop them.
                let _ = self.finish_kick();
                self.contacts.forget_gaps();
                return Err(e);
            }
        }
        if steps > 0 {
            self.finish_kick()?;
        }
        Ok(())
    }

    /// One step up to the forces; the Verlet second half kick is left pending.
    fn advance(&mut self, pending_kick: bool) -> Result<()> {
        if self.config.sort_every > 0 && self.step > 0 && self.step.is_multiple_of(self.config.sort_every) {
            self.reorder();
        }
        if let Some(par) = &mut self.par {
            if par.untouched {
                let t = Instant::now();
                par.first_touch(&mut self.particles)?;
                self.times.other += t.elapsed().as_secs_f64();
            }
        }
        let dt = self.config.dt;
        let t0 = Instant::now();
        if !self.driven.is_empty() {
            self.driven.set_velocities(&mut self.particles, self.time, dt);
        }
        let left = match self.config.integrator {
            Integrator::Verlet => self.kick_drift_check(pending_kick)?,
            Integrator::Gear => {
                self.predict();
                self.check_positions()?
            }
        };
        if let Some(sh) = &mut self.shapes {
            let ps = &self.particles;
            match &mut self.par {
                Some(par) => par.update_world(sh, &ps.x, &ps.y, &ps.angle)?,
                None => sh.update_world(&ps.x, &ps.y, &ps.angle),
            }
        }
        let t1 = Instant::now();
        if left || self.config.every_step || self.needs_rebuild {
            self.update_neighbors()?;
        }
        let t2 = Instant::now();
        self.forces(dt)?;
        let t3 = Instant::now();
        if self.config.integrator == Integrator::Gear {
            self.correct()?;
        }
        let t4 = Instant::now();
        self.times.predict += (t1 - t0).as_secs_f64();
        self.times.neighbor += (t2 - t1).as_secs_f64();
        self.times.forces += (t3 - t2).as_secs_f64();
        self.times.correct += (t4 - t3).as_secs_f64();
        self.step += 1;
        self.time += dt;
        Ok(())
    }

    /// The Verlet second half kick of the last step (timed as the correct phase).
    fn finish_kick(&mut self) -> Result<()> {
        if self.config.integrator == Integrator::Verlet {
            let t = Instant::now();
            self.correct()?;
            self.times.correct += t.elapsed().as_secs_f64();
        }
        Ok(())
    }

    /// Verlet: kicks, drift, load reset and position check in one pass.
    fn kick_drift_check(&mut self, pending: bool) -> Result<bool> {
        let boxes: &[[f32; 4]] = with_broad!(&self.broad, m => m.stored_boxes());
        let (dt, g, lo, hi) = (
            self.config.dt,
            self.config.gravity,
            self.config.domain_min,
            self.config.domain_max,
        );
        let r = match &mut self.par {
            Some(par) => par.kick_drift_check(&mut self.particles, boxes, dt, g, pending, lo, hi)?,
            None => {
                let (mut d, mut l, m, radius) = self.particles.verlet_views();
                let c = Check {
                    radius,
                    boxes,
                    domain_min: lo,
                    domain_max: hi,
                };
                verlet::kick_drift_check(&mut d, &mut l, &m, dt, g, pending, true, &c)
            }
        };
        if r.outside {
            return Err(self.escape_error());
        }
        Ok(r.left_box)
    }

    /// The error for the first particle outside the domain.
    fn escape_error(&self) -> EngineError {
        let ps = &self.particles;
        let (lo, hi) = (self.config.domain_min, self.config.domain_max);
        let p = (0..ps.len()).find(|&p| !self.in_domain(ps.x[p], ps.y[p])).unwrap_or(0);
        // The step being computed (self.step counts completed steps).
        let (id, step, x, y) = (ps.id[p], self.step + 1, ps.x[p], ps.y[p]);
        if x.is_finite() && y.is_finite() {
            EngineError::Escaped {
                step,
                id,
                x,
                y,
                min: lo,
                max: hi,
            }
        } else {
            EngineError::NonFinite { step, id, x, y }
        }
    }

    fn predict(&mut self) {
        let dt = self.config.dt;
        let Some(gh) = &mut self.gear else {
            return;
        };
        let (pos, vel, loads, _) = self.particles.gear_views();
        for mut dof in gh.dofs(pos, vel) {
            gear::predict(&mut dof, dt);
        }
        loads.into_iter().for_each(|f| f.iter_mut().for_each(|v| *v = 0.0));
    }

    fn correct(&mut self) -> Result<()> {
        let dt = self.config.dt;
        let g = self.config.gravity;
        match &mut self.gear {
            None if self.par.is_some() => {
                let par = self.par.as_mut().expect("checked");
                par.kick(&mut self.particles, dt, g)?;
            }
            None => {
                let (mut d, l, m, _) = self.particles.verlet_views();
                verlet::kick(&mut d, &l, &m, dt, g);
            }
            Some(gh) => {
                let (pos, vel, [fx, fy, torque], [inv_mass, inv_inertia]) = self.particles.gear_views();
                let load = [&*fx, &*fy, &*torque];
                let inv = [inv_mass, inv_mass, inv_inertia];
                let bias = [g[0], g[1], 0.0];
                for (k, mut dof) in gh.dofs(pos, vel).into_iter().enumerate() {
                    gear::correct(&mut dof, load[k], inv[k], bias[k], dt);
                }
            }
        }
        Ok(())
    }

    /// Has some particle left its stored enlarged box? Is every particle in the domain?
    fn check_positions(&mut self) -> Result<bool> {
        let ps = &self.particles;
        let stored: &[[f32; 4]] = with_broad!(&self.broad, m => m.stored_boxes());
        let (lo, hi) = (self.config.domain_min, self.config.domain_max);
        let n = ps.len();
        let (x, y, r) = (&ps.x[..n], &ps.y[..n], &ps.radius[..n]);
        let stored = &stored[..n];
        let mut left = false;
        let mut outside = false;
        for p in 0..n {
            let (px, py, pr) = (x[p], y[p], r[p]);
            left |= !inside([px - pr, px + pr, py - pr, py + pr], &stored[p]);
            // Written so that NaN counts as outside.
            outside |= !(px >= lo[0] && px <= hi[0] && py >= lo[1] && py <= hi[1]);
        }
        if outside {
            return Err(self.escape_error());
        }
        Ok(left)
    }

    fn update_neighbors(&mut self) -> Result<()> {
        let t = Instant::now();
        let ps = &self.particles;
        let src = DiscBoxes {
            x: &ps.x,
            y: &ps.y,
            radius: &ps.radius,
            margin: self.config.margin,
        };
        if self.needs_rebuild {
            let mut pairs = Vec::new();
            with_broad!(&mut self.broad, m => NeighborSearch::rebuild(&mut **m, &src, &mut pairs));
            self.contacts.reset_from_pairs(&pairs);
        } else {
            let (mut adds, mut removes) = (std::mem::take(&mut self.adds), std::mem::take(&mut self.removes));
            let (adds_of, removes_of): (PairList, PairList) = match &mut self.broad {
                // The sweep keeps its changes itself, and can run one axis per thread.
                Broad::Sweep(s) => {
                    match &mut self.par {
                        Some(par) => par.sweep_update(s, &src)?,
                        None => s.update(&src),
                    }
                    (&s.adds, &s.removes)
                }
                // The quadtree shares its scan and pair search with the pool.
                Broad::Quadtree(m) if self.par.is_some() => {
                    let par = self.par.as_mut().expect("checked");
                    par.quadtree_refresh(m, &src, &mut adds, &mut removes)?;
                    (&adds, &removes)
                }
                other => {
                    with_broad!(other, m => NeighborSearch::refresh(&mut **m, &src, &mut adds, &mut removes));
                    (&adds, &removes)
                }
            };
            // Additions first: see the module notes of the sweep.
            for &(i, j) in adds_of {
                self.contacts.add(i, j);
            }
            for &(i, j) in removes_of {
                self.contacts.remove(i, j);
            }
            self.adds = adds;
            self.removes = removes;
            if self.contacts.wants_compaction() {
                self.contacts.compact();
            }
        }
        let stored: &[[f32; 4]] = with_broad!(&self.broad, m => m.stored_boxes());
        self.wall_contacts.rebuild(&self.walls, stored);
        self.needs_rebuild = false;
        self.neighbor_updates += 1;
        self.times.neighbor_update += t.elapsed().as_secs_f64();
        Ok(())
    }

    /// Pair and wall forces. `dt` advances the tangential springs (0 = evaluate only).
    fn forces(&mut self, dt: f64) -> Result<()> {
        let walls = WallWork {
            walls: &self.walls,
            params: &self.params,
            shapes: self.shapes.as_ref(),
            dt,
        };
        if let Some(par) = &mut self.par {
            // The pool adds the wall forces after the pair forces, in its reduction.
            self.last_contacts = par.pair_forces(
                &mut self.particles,
                &mut self.contacts,
                self.shapes.as_ref(),
                &self.params,
                dt,
                self.config.rejection,
                self.config.integrator == Integrator::Verlet,
                &mut self.narrow,
                &mut self.wall_contacts,
                &walls,
            )?;
            return Ok(());
        }
        if let Some(sh) = &self.shapes {
            self.last_contacts = pair_forces_mixed(
                &mut self.particles,
                &mut self.contacts,
                sh,
                &self.params,
                dt,
                NarrowWork {
                    stats: &mut self.narrow,
                    scratch: &mut self.overlap_scratch,
                    rejection: self.config.rejection,
                    gap_budget: self.config.integrator == Integrator::Verlet,
                },
            );
        } else if self.params.n == 1 {
            let one = OneMaterial(self.params.params[0]);
            self.last_contacts = pair_forces(&mut self.particles, &mut self.contacts, &one, dt);
        } else {
            self.last_contacts = pair_forces(&mut self.particles, &mut self.contacts, &self.params, dt);
        }
        // Walls after the pairs: few particles touch them.
        wall_forces(&mut self.particles, &mut self.wall_contacts, &walls);
        Ok(())
    }

    /// Run the phases on `pins.len()` threads (pinned where `pins[t]` names a processing
    /// unit), summing pair forces by `strategy`. One thread still goes through the pool's
    /// phases, so that its timings are comparable with more.
    pub fn set_parallel(&mut self, pins: &[Option<usize>], strategy: ForceStrategy) -> Result<()> {
        self.par = None;
        let mut par = Box::new(Parallel::new(pins, strategy)?);
        par.first_touch(&mut self.particles)?;
        self.par = Some(par);
        Ok(())
    }

    /// Use another neighbour-search method from the next step on (the contact table and
    /// its springs are kept: the new method's first, full search is merged into it).
    pub fn set_neighbor_method(&mut self, method: NeighborMethod) {
        self.config.neighbor = method;
        self.broad = Broad::new(method, &self.config);
        let n = self.len();
        for _ in 0..n {
            with_broad!(&mut self.broad, m => NeighborSearch::push_particle(&mut **m));
        }
        self.needs_rebuild = true;
    }

    /// The neighbour-search method in use.
    pub fn neighbor_method(&self) -> NeighborMethod {
        self.config.neighbor
    }

    /// Back to the serial code paths (and the pool's threads end).
    pub fn set_serial(&mut self) {
        self.par = None;
    }

    /// Threads of the pool (1 for the serial paths).
    pub fn threads(&self) -> usize {
        self.par.as_ref().map_or(1, |p| p.threads())
    }

    /// The force-summation strategy, if a pool runs the phases.
    pub fn force_strategy(&self) -> Option<ForceStrategy> {
        self.par.as_ref().map(|p| p.strategy)
    }

    /// Per-phase, per-thread busy and barrier-wait times of the pool, if one runs.
    pub fn profile(&self) -> Option<&Profile> {
        self.par.as_ref().map(|p| &p.pool.profile)
    }

    /// Start the pool's profile and the phase times afresh (after a warm-up).
    pub fn reset_times(&mut self) {
        self.times = PhaseTimes::default();
        if let Some(p) = &mut self.par {
            p.pool.profile.phases.clear();
        }
    }

    /// Energies of the current state and the number of touching pairs.
    pub fn energies(&self) -> Energies {
        let ps = &self.particles;
        let mut e = Energies::default();
        for p in 0..ps.len() {
            if ps.inv_mass[p] > 0.0 {
                e.kinetic += 0.5 * ps.mass(p) * (ps.vx[p] * ps.vx[p] + ps.vy[p] * ps.vy[p]);
                e.rotational += 0.5 * ps.inertia(p) * ps.omega[p] * ps.omega[p];
            }
        }
        for (s, i, j) in self.contacts.iter() {
            let (i, j) = (i as usize, j as usize);
            let prm = self.params.get(ps.material[i], ps.material[j]);
            if let Some(sh) = self.shapes.as_ref().filter(|sh| sh.is_polygon(i) || sh.is_polygon(j)) {
                // Polygons: the energy of F = E A / l for an overlap growing at a fixed
                // contact-line width w, E A^2 / (2 l w), plus the tangential spring.
                let body = |p: usize| polygon_body(ps, sh, p);
                let xi = self.contacts.xi[s];
                if sh.is_polygon(i) && sh.is_polygon(j) {
                    if let Some(o) = overlap(&sh.world[sh.range(i)], &sh.world[sh.range(j)]) {
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
                    let (d, p) = if sh.is_polygon(j) { (i, j) } else { (j, i) };
                    let inv = ps.inv_mass[i] + ps.inv_mass[j];
                    if inv > 0.0 {
                        if let Some(c) = disc_polygon(prm, &body(d), &body(p), inv, &mut xi.clone(), 0.0) {
                            e.elastic += elastic_energy(prm, c.overlap, xi);
                            e.contacts += 1;
                        }
                    }
                }
                continue;
            }
            let d = (ps.x[j] - ps.x[i]).hypot(ps.y[j] - ps.y[i]);
            let overlap = ps.radius[i] + ps.radius[j] - d;
            if overlap > 0.0 {
                e.elastic += elastic_energy(prm, overlap, self.contacts.xi[s]);
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
            let overlap = ps.radius[p] - wall.line.distance(ps.x[p], ps.y[p]);
            if overlap > 0.0 {
                let prm = self.params.get(ps.material[p], wall.material);
                e.elastic += elastic_energy(prm, overlap, self.wall_contacts.xi[k]);
                e.wall_contacts += 1;
            }
        }
        e
    }

    /// Coordination number: touching particle pairs per particle, counted from both sides
    /// (2 x pairs / N), as LAMMPS `compute contact/atom` does. Walls not counted.
    pub fn contacts_per_particle(&self) -> f64 {
        2.0 * self.energies().contacts as f64 / self.len().max(1) as f64
    }

    /// Candidate pairs in the contact table.
    pub fn candidate_pairs(&self) -> usize {
        self.contacts.len()
    }

    /// Bytes held by all per-particle and per-pair arrays (capacity).
    pub fn memory_bytes(&self) -> usize {
        let broad = with_broad!(&self.broad, m => NeighborSearch::memory_bytes(&**m));
        let shapes = self.shapes.as_ref().map_or(0, |s| s.memory_bytes());
        let gear = self.gear.as_ref().map_or(0, |g| {
            g.a.iter()
                .chain(&g.b)
                .chain(&g.c)
                .chain(&g.d)
                .map(|a| a.capacity() * 8)
                .sum()
        });
        self.particles.memory_bytes()
            + self.contacts.memory_bytes()
            + self.wall_contacts.memory_bytes()
            + broad
            + gear
            + shapes
    }

    /// The sweep's counters (None for other methods).
    pub fn sweep_stats(&self) -> Option<talus_kernels::neighbor::sweep::SweepStats> {
        match &self.broad {
            Broad::Sweep(s) => Some(s.stats),
            _ => None,
        }
    }

    /// The contact coefficients of a pair of materials.
    pub fn contact_params(&self, a: u16, b: u16) -> ContactParams {
        *self.params.get(a, b)
    }

    /// Mark the broad phase for a full rebuild at the next step.
    pub fn request_rebuild(&mut self) {
        self.needs_rebuild = true;
    }
}

/// Most materials of a simulation.
pub const MAX_MATERIALS: usize = 1024;

/// A radius is positive, finite, not larger than the domain (a bounding radius beyond
/// that is a mistake, and the quadtree would cut its box into millions of tiles), and not
/// below what the neighbour search can resolve: boxes are stored as `f32`, rounded outward
/// by up to 2^-22 of the coordinate, so a radius below 2^-20 of the largest coordinate of
/// the domain would give boxes mostly made of rounding (and a domain 2^40 times larger
/// than its particles would put them all in one quadtree leaf).
fn check_radius(r: f64, c: &Config) -> std::result::Result<(), String> {
    let extent = (c.domain_max[0] - c.domain_min[0]).max(c.domain_max[1] - c.domain_min[1]);
    let coord = c
        .domain_min
        .iter()
        .chain(&c.domain_max)
        .fold(0.0f64, |m, v| m.max(v.abs()));
    let finest = coord * (1.0 / (1u64 << 20) as f64);
    if !(r > 0.0 && r.is_finite()) {
        Err(format!("radius {r} must be positive and finite"))
    } else if r > extent {
        Err(format!("radius {r} is larger than the domain ({extent} across)"))
    } else if r < finest {
        Err(format!(
            "radius {r} is below the resolution of the domain's coordinates ({finest:.3e} = 2^-20 of {coord:e}: \
             bounding boxes are stored in single precision); use a smaller domain or move it nearer the origin"
        ))
    } else {
        Ok(())
    }
}

fn check_config(c: &Config, materials: &[Material], walls: &[Wall]) -> Result<()> {
    let bad = |m: String| Err(EngineError::Setup(m));
    if !(c.dt > 0.0 && c.dt.is_finite()) {
        return bad(format!("time step {} must be positive", c.dt));
    }
    if !(c.margin >= 0.0 && c.margin.is_finite()) {
        return bad(format!("neighbour margin {} must be >= 0", c.margin));
    }
    if !(c.domain_min.iter().chain(&c.domain_max).all(|v| v.is_finite())) {
        return bad(format!(
            "domain min {:?} and max {:?} must be finite",
            c.domain_min, c.domain_max
        ));
    }
    if !c.gravity.iter().all(|g| g.is_finite()) {
        return bad(format!("gravity {:?} must be finite", c.gravity));
    }
    if !(c.domain_min[0] < c.domain_max[0] && c.domain_min[1] < c.domain_max[1]) {
        return bad(format!(
            "domain min {:?} must be below max {:?}",
            c.domain_min, c.domain_max
        ));
    }
    if materials.is_empty() || materials.len() > MAX_MATERIALS {
        return bad(format!(
            "{} materials: at least one and at most {MAX_MATERIALS} (the pair table has one entry per pair)",
            materials.len()
        ));
    }
    for w in walls {
        if w.material as usize >= materials.len() {
            return bad(format!("wall material {} does not exist", w.material));
        }
        let n = w.line.normal;
        if ((n[0] * n[0] + n[1] * n[1]).sqrt() - 1.0).abs() > 1e-9 {
            return bad(format!("wall normal {n:?} must be a unit vector"));
        }
    }
    Ok(())
}

/// Spread the low 16 bits of `v` to the even bits (Morton code helper).
fn spread_bits(v: u32) -> u32 {
    let mut v = v & 0xffff;
    v = (v | (v << 8)) & 0x00ff_00ff;
    v = (v | (v << 4)) & 0x0f0f_0f0f;
    v = (v | (v << 2)) & 0x3333_3333;
    v = (v | (v << 1)) & 0x5555_5555;
    v
}

pub(crate) trait Params {
    fn get(&self, a: u16, b: u16) -> &ContactParams;
}

/// One material: the coefficients are loop constants, no per-pair lookup.
pub(crate) struct OneMaterial(pub ContactParams);

impl Params for OneMaterial {
    #[inline(always)]
    fn get(&self, _: u16, _: u16) -> &ContactParams {
        &self.0
    }
}

impl Params for PairTable {
    #[inline(always)]
    fn get(&self, a: u16, b: u16) -> &ContactParams {
        PairTable::get(self, a, b)
    }
}

/// The read-only particle arrays the disc pair loop needs, cut to one length so that the
/// indexing in the loop is checked once.
pub(crate) struct DiscView<'a> {
    x: &'a [f64],
    y: &'a [f64],
    vx: &'a [f64],
    vy: &'a [f64],
    omega: &'a [f64],
    radius: &'a [f64],
    inv_mass: &'a [f64],
    material: &'a [u16],
}

impl<'a> DiscView<'a> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        x: &'a [f64],
        y: &'a [f64],
        vx: &'a [f64],
        vy: &'a [f64],
        omega: &'a [f64],
        radius: &'a [f64],
        inv_mass: &'a [f64],
        material: &'a [u16],
    ) -> Self {
        let n = x.len();
        DiscView {
            x: &x[..n],
            y: &y[..n],
            vx: &vx[..n],
            vy: &vy[..n],
            omega: &omega[..n],
            radius: &radius[..n],
            inv_mass: &inv_mass[..n],
            material: &material[..n],
        }
    }

    pub(crate) fn of(ps: &'a ParticleStore) -> Self {
        Self::new(
            &ps.x,
            &ps.y,
            &ps.vx,
            &ps.vy,
            &ps.omega,
            &ps.radius,
            &ps.inv_mass,
            &ps.material,
        )
    }
}

/// One candidate pair of discs: the force on i (j gets its opposite), or None. Shared by
/// the serial loop and the parallel force phase (bitwise the same forces).
#[inline(always)]
pub(crate) fn disc_slot<P: Params>(
    v: &DiscView,
    params: &P,
    i: usize,
    j: usize,
    xi: &mut f64,
    dt: f64,
) -> Option<ContactForce> {
    let (dx, dy) = (v.x[j] - v.x[i], v.y[j] - v.y[i]);
    let Some((d, overlap)) = disc_overlap(dx, dy, v.radius[i], v.radius[j]) else {
        *xi = 0.0;
        return None;
    };
    let inv = v.inv_mass[i] + v.inv_mass[j];
    if inv == 0.0 {
        // Two bodies of infinite mass: no force between them.
        return None;
    }
    Some(disc_disc_touching(
        params.get(v.material[i], v.material[j]),
        dx,
        dy,
        d,
        overlap,
        v.radius[i],
        v.radius[j],
        v.vx[i] - v.vx[j],
        v.vy[i] - v.vy[j],
        v.omega[i],
        v.omega[j],
        inv,
        xi,
        dt,
    ))
}

/// Where the force of a slot goes: straight into loads (the serial loop, and the
/// per-thread arrays), into the per-slot buffer (deterministic) or through per-particle
/// locks. The pair loops are generic over it, so that each strategy gets its own
/// monomorphised loop with no per-slot branch on the strategy.
pub(crate) trait ForceSink {
    /// Slot `o` of the loop (pair i, j) produced the force `f` on i (j gets its opposite).
    fn add(&mut self, o: usize, i: usize, j: usize, f: &ContactForce);
    /// Slot `o` produced no force.
    #[inline(always)]
    fn none(&mut self, _o: usize) {}
}

/// Where a wall's force on a particle goes (walls take no reaction): the loads, or the
/// loads shared by the pool's threads, each particle's written by one.
pub(crate) trait WallSink {
    /// Wall force `f` on particle `p` (its torque in `f.ti`).
    fn wall(&mut self, p: usize, f: &ContactForce);
}

/// Loads summed in place: fx, fy, torque.
pub(crate) struct LoadSink<'a> {
    pub fx: &'a mut [f64],
    pub fy: &'a mut [f64],
    pub tq: &'a mut [f64],
}

impl ForceSink for LoadSink<'_> {
    #[inline(always)]
    fn add(&mut self, _o: usize, i: usize, j: usize, c: &ContactForce) {
        self.fx[i] += c.fx;
        self.fy[i] += c.fy;
        self.fx[j] -= c.fx;
        self.fy[j] -= c.fy;
        self.tq[i] += c.ti;
        self.tq[j] += c.tj;
    }
}

impl WallSink for LoadSink<'_> {
    #[inline(always)]
    fn wall(&mut self, p: usize, c: &ContactForce) {
        self.fx[p] += c.fx;
        self.fy[p] += c.fy;
        self.tq[p] += c.ti;
    }
}

/// Particles from which the disc pair loop prefetches the second particle's data: below
/// it the hot arrays stay in a core's L2 (seven arrays of 8 bytes per particle against
/// 1 MB) and the prefetches are extra instructions (10^4 discs: 16-20 % slower with them);
/// above it they hide the misses of second particles far away in Morton order (10^6
/// discs: 10-20 % faster, BENCHMARKS.md).
const PREFETCH_MIN: usize = 1 << 15;

/// Slots ahead of the current one whose second particle is prefetched.
const PREFETCH_AHEAD: usize = 16;

/// The disc pairs of a run of contact-table slots (the whole table, or one chunk of it:
/// `ci`, `cj` and `xi` start at the same slot). Returns touching pairs.
#[inline(always)]
pub(crate) fn disc_slots<P: Params, S: ForceSink>(
    v: &DiscView,
    params: &P,
    ci: &[u32],
    cj: &[u32],
    xi: &mut [f64],
    dt: f64,
    sink: &mut S,
) -> u64 {
    if v.x.len() >= PREFETCH_MIN {
        disc_slots_impl::<P, S, true>(v, params, ci, cj, xi, dt, sink)
    } else {
        disc_slots_impl::<P, S, false>(v, params, ci, cj, xi, dt, sink)
    }
}

#[inline(always)]
fn disc_slots_impl<P: Params, S: ForceSink, const PREFETCH: bool>(
    v: &DiscView,
    params: &P,
    ci: &[u32],
    cj: &[u32],
    xi: &mut [f64],
    dt: f64,
    sink: &mut S,
) -> u64 {
    let slots = xi.len();
    let (ci, cj) = (&ci[..slots], &cj[..slots]);
    let mut touching = 0;
    for s in 0..slots {
        if PREFETCH && s + PREFETCH_AHEAD < slots {
            prefetch_disc(v, cj[s + PREFETCH_AHEAD] as usize);
        }
        let i = ci[s];
        if i == FREE {
            sink.none(s);
            continue;
        }
        let (i, j) = (i as usize, cj[s] as usize);
        match disc_slot(v, params, i, j, &mut xi[s], dt) {
            Some(c) => {
                touching += 1;
                sink.add(s, i, j, &c);
            }
            None => sink.none(s),
        }
    }
    touching
}

/// Ask for particle p's pair-loop data ahead of its use (a free slot's index is out of
/// range and skipped).
#[inline(always)]
fn prefetch_disc(v: &DiscView, p: usize) {
    if p >= v.x.len() {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    for a in [v.x, v.y, v.vx, v.vy, v.omega, v.radius, v.inv_mass] {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of the x86-64 baseline, and a prefetch is a hint: it never
        // faults and changes no memory. The address is that of an element in bounds (all
        // the view's slices have the length of `x`).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(a.as_ptr().wrapping_add(p) as *const i8) };
    }
}

/// The pair loop: one linear pass over the contact table. Returns touching pairs.
fn pair_forces<P: Params>(ps: &mut ParticleStore, ct: &mut ContactTable, params: &P, dt: f64) -> u64 {
    let ParticleStore {
        x,
        y,
        vx,
        vy,
        omega,
        fx,
        fy,
        torque,
        radius,
        inv_mass,
        material,
        ..
    } = ps;
    let v = DiscView::new(x, y, vx, vy, omega, radius, inv_mass, material);
    let n = v.x.len();
    let mut sink = LoadSink {
        fx: &mut fx[..n],
        fy: &mut fy[..n],
        tq: &mut torque[..n],
    };
    let slots = ct.i.len();
    disc_slots(&v, params, &ct.i, &ct.j, &mut ct.xi[..slots], dt, &mut sink)
}

fn wall_forces(ps: &mut ParticleStore, wc: &mut WallContacts, walls: &WallWork) {
    ps.with_loads(|ps, [fx, fy, tq]| {
        let mut sink = LoadSink { fx, fy, tq };
        walls.contacts(ps, &wc.p, &wc.w, &mut wc.xi, &mut wc.area, &mut sink);
    });
}

/// What the wall contacts need besides the particles and the contacts themselves.
pub(crate) struct WallWork<'a> {
    pub walls: &'a [Wall],
    pub params: &'a PairTable,
    pub shapes: Option<&'a Shapes>,
    pub dt: f64,
}

impl WallWork<'_> {
    /// The forces of a run of wall contacts (`p`, `w`, `xi`, `area` start at the same
    /// contact), each added into its particle's loads through `sink`, in list order: after
    /// the particle's pair forces, as the serial step adds them. Shared by the serial step
    /// and the pool, where a run of particles' contacts is taken by one thread.
    pub(crate) fn contacts<S: WallSink>(
        &self,
        ps: &ParticleStore,
        p: &[u32],
        w: &[u16],
        xi: &mut [f64],
        area: &mut [f64],
        sink: &mut S,
    ) {
        let n = xi.len();
        let (p, w, area) = (&p[..n], &w[..n], &mut area[..n]);
        for k in 0..n {
            let q = p[k] as usize;
            if ps.inv_mass[q] == 0.0 {
                continue;
            }
            let wall = &self.walls[w[k] as usize];
            let prm = self.params.get(ps.material[q], wall.material);
            let c = match self.shapes {
                Some(sh) if sh.is_polygon(q) => {
                    let b = polygon_body(ps, sh, q);
                    polygon_wall(prm, &wall.line, &b, ps.inv_mass[q], &mut area[k], &mut xi[k], self.dt)
                }
                _ => disc_wall(
                    prm,
                    &wall.line,
                    ps.x[q],
                    ps.y[q],
                    ps.radius[q],
                    ps.vx[q],
                    ps.vy[q],
                    ps.omega[q],
                    ps.inv_mass[q],
                    &mut xi[k],
                    self.dt,
                ),
            };
            match c {
                Some(c) => sink.wall(q, &c),
                None => xi[k] = 0.0,
            }
        }
    }
}

/// What the narrow phase works with besides the particles and contacts: its counters, the
/// clipping scratch and the rejection stages to run.
pub(crate) struct NarrowWork<'a> {
    pub stats: &'a mut NarrowStats,
    pub scratch: &'a mut OverlapScratch,
    pub rejection: Rejection,
    /// Skip the walk of pairs whose gap outlasts their motion (velocity Verlet only: see
    /// `polygon_polygon`).
    pub gap_budget: bool,
}

/// The pair loop of a system with polygons: disc-disc pairs as in [`pair_forces`],
/// pairs with a polygon through the bounding-circle test, then the closest-feature walk
/// and the overlap kernel (polygon-polygon) or the nearest boundary point (disc-polygon).
fn pair_forces_mixed(
    ps: &mut ParticleStore,
    ct: &mut ContactTable,
    sh: &Shapes,
    params: &PairTable,
    dt: f64,
    mut work: NarrowWork,
) -> u64 {
    let mut touching = 0;
    for s in 0..ct.i.len() {
        let i = ct.i[s];
        if i == FREE {
            continue;
        }
        let (i, j) = (i as usize, ct.j[s] as usize);
        let slot = SlotState {
            xi: &mut ct.xi[s],
            area: &mut ct.area[s],
            features: &mut ct.features[s],
        };
        if let Some(c) = mixed_slot(ps, sh, params, i, j, slot, dt, &mut work) {
            touching += 1;
            ps.fx[i] += c.fx;
            ps.fy[i] += c.fy;
            ps.fx[j] -= c.fx;
            ps.fy[j] -= c.fy;
            ps.torque[i] += c.ti;
            ps.torque[j] += c.tj;
        }
    }
    touching
}

/// Particle `p` as a body for the polygon contact kernels.
#[inline(always)]
fn polygon_body<'a>(ps: &ParticleStore, sh: &'a Shapes, p: usize) -> Body<'a> {
    Body {
        vertices: &sh.world[sh.range(p)],
        pos: [ps.x[p], ps.y[p]],
        angle: ps.angle[p],
        vel: [ps.vx[p], ps.vy[p]],
        omega: ps.omega[p],
        radius: ps.radius[p],
    }
}

/// The contact state of a pair at its slot of the contact table.
pub(crate) struct SlotState<'a> {
    pub xi: &'a mut f64,
    pub area: &'a mut f64,
    pub features: &'a mut u32,
}

/// One candidate pair of a system with polygons: the force on i (j gets its opposite),
/// or None. Shared by the serial loop and the parallel force phase, so that both compute
/// bitwise the same forces.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn mixed_slot(
    ps: &ParticleStore,
    sh: &Shapes,
    params: &PairTable,
    i: usize,
    j: usize,
    slot: SlotState,
    dt: f64,
    work: &mut NarrowWork,
) -> Option<ContactForce> {
    let SlotState { xi, area, features } = slot;
    let NarrowWork {
        stats,
        scratch,
        rejection,
        gap_budget,
    } = work;
    let (rejection, gap_budget) = (*rejection, *gap_budget);
    let (pi, pj) = (sh.is_polygon(i), sh.is_polygon(j));
    let (dx, dy) = (ps.x[j] - ps.x[i], ps.y[j] - ps.y[i]);
    let rs = ps.radius[i] + ps.radius[j];
    let d2 = dx * dx + dy * dy;
    if pi || pj {
        stats.candidates += 1;
    }
    if d2 >= rs * rs {
        *xi = 0.0;
        *area = 0.0;
        if pi || pj {
            stats.circle_rejected += 1;
        }
        return None;
    }
    let inv = ps.inv_mass[i] + ps.inv_mass[j];
    if inv == 0.0 {
        return None;
    }
    let prm = params.get(ps.material[i], ps.material[j]);
    let body = |p: usize| polygon_body(ps, sh, p);
    if pi && pj && rejection > Rejection::Circle && *area == 0.0 {
        let (a, b) = (&sh.world[sh.range(i)], &sh.world[sh.range(j)]);
        let (ca, cb) = ([ps.x[i], ps.y[i]], [ps.x[j], ps.y[j]]);
        stats.projection_tested += 1;
        let apart = if projections_apart(a, b, ca, cb) {
            stats.projection_rejected += 1;
            true
        } else if rejection == Rejection::SeparatingLine {
            let found = separating_line(a, b, ca, cb, SEPARATING_LINE_ITERATIONS);
            stats.line_iterations += found.iterations as u64;
            stats.line_rejected += found.apart as u64;
            found.apart
        } else {
            false
        };
        if apart {
            *xi = 0.0;
            return None;
        }
    }
    let c = match (pi, pj) {
        (false, false) => {
            // Coincident discs (d = 0) get the full overlap along the fixed normal of
            // `contact_normal`, as in the disc-only loop.
            let d = d2.sqrt();
            Some(disc_disc_touching(
                prm,
                dx,
                dy,
                d,
                rs - d,
                ps.radius[i],
                ps.radius[j],
                ps.vx[i] - ps.vx[j],
                ps.vy[i] - ps.vy[j],
                ps.omega[i],
                ps.omega[j],
                inv,
                xi,
                dt,
            ))
        }
        (true, true) => {
            let (a, b) = (body(i), body(j));
            match polygon_polygon(prm, &a, &b, inv, features, area, xi, dt, gap_budget, scratch) {
                PolyOutcome::Separated {
                    steps,
                    fallback,
                    skipped,
                } => {
                    stats.separated += 1;
                    stats.gap_skips += skipped as u64;
                    stats.walk_steps += steps as u64;
                    stats.fallbacks += fallback as u64;
                    None
                }
                PolyOutcome::Contact {
                    force,
                    steps,
                    fallback,
                    tracked,
                    tier,
                    ..
                } => {
                    stats.walk_steps += steps as u64;
                    stats.fallbacks += fallback as u64;
                    stats.accurate += (tier == Tier::Accurate) as u64;
                    stats.exact += (tier == Tier::Exact) as u64;
                    stats.tracked += tracked as u64;
                    stats.clipped += !tracked as u64;
                    Some(force)
                }
            }
        }
        (false, true) => disc_polygon(prm, &body(i), &body(j), inv, xi, dt),
        (true, false) => disc_polygon(prm, &body(j), &body(i), inv, xi, dt).map(|c| ContactForce {
            fx: -c.fx,
            fy: -c.fy,
            ti: c.tj,
            tj: c.ti,
            overlap: c.overlap,
        }),
    };
    match c {
        Some(c) => {
            if pi || pj {
                stats.touching += 1;
            }
            Some(c)
        }
        None => {
            if !(pi && pj) {
                *xi = 0.0;
            }
            None
        }
    }
}
