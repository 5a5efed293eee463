//! Particle insertion over time, as LAMMPS' `fix pour` and LIGGGHTS' `fix
//! insert/rate/region` fill a drum, a hopper or a silo: a stream of discs or polygons (2D)
//! or spheres (3D) poured into a box-shaped region at scheduled steps. One source for both
//! builds: the polygon parts are 2D only.
//!
//! A stream inserts at steps `start_step`, `start_step + every`, ... (an *event*), each
//! time the particles its [`Amount`] schedules (a fixed count, or a rate in particles per
//! second spread over the events), until `total` particles are in or the step reaches
//! `stop_step`. Particles an event could not place are not carried over to the next event
//! (as in LAMMPS: "Less insertions than requested"); the stream goes on until its total
//! is reached or it stops, and each short event is reported ([`Shortfall`]).
//!
//! An event draws everything from a random number generator seeded by the stream's seed
//! and the event's number, so the state of the random stream is the number of events done:
//! a checkpoint holds that, and a restart continues the same insertions bit for bit. For
//! each particle, in order: its radius, its shape and orientation (polygons), then up to
//! `attempts` centres uniform over the positions that keep its bounding circle inside the
//! region, the first one where its bounding circle overlaps no particle (grains, wall
//! bodies, the particles inserted just before) and is on the particles' side of every wall
//! (3D: inside every cylinder), clear of it, then the velocity spread. The draws per
//! particle are the same in both builds, one per axis. A disc obstacle is its circle; a polygon obstacle is its real shape
//! (the distance from the candidate's centre to its corners' polygon), the bounding
//! circles only the grid's broad phase: a long wall plate's circle covers much of a
//! hopper's funnel, where the plate itself is far. The candidate's own bounding circle is
//! a conservative test for a polygon: nothing overlaps at insertion, so the new particles
//! start without contact forces. A particle that finds no place is dropped; after
//! [`GIVE_UP_AFTER`] such particles in a row the region is taken as full and the rest of
//! the insertion is given up.
//!
//! The simulation inserts between steps (before the step it is about to compute), in a
//! synchronised state: see `Simulation::run`.
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

#[cfg(not(feature = "dim3"))]
use talus_kernels::geometry::point_distance::signed_distance;
#[cfg(not(feature = "dim3"))]
use talus_kernels::geometry::polygon::to_world;
use talus_kernels::math::{norm2, Vector, ANG, DIM};

use crate::generate::RadiusDist;
#[cfg(not(feature = "dim3"))]
use crate::generate::{polygon_vertices, ShapeSpec};
#[cfg(not(feature = "dim3"))]
use crate::shapes::{PolygonShape, MAX_VERTICES, MIN_VERTICES};
use crate::store::ParticleInit;
use crate::walls::Wall;

/// How many particles an event asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Amount {
    /// This many at every event.
    PerInsert(u64),
    /// Particles per second: with q = rate x every x dt the particles of an interval
    /// between events, the first k events ask for ceil(q k) in all (so the first event,
    /// at the start, has a particle, and the mean is exactly the rate).
    Rate(f64),
}

/// One insertion stream, in steps (the scenario's times are converted by the caller).
#[derive(Debug, Clone, PartialEq)]
pub struct InsertSpec {
    /// The region (a box) the particles' bounding circles (spheres) must lie in.
    pub region_min: Vector,
    /// High corner of the region (m); `region_min` is the low one.
    pub region_max: Vector,
    /// Radius (polygons: circumradius) distribution.
    pub radius: RadiusDist,
    /// Discs or polygons (spheres only in 3D).
    #[cfg(not(feature = "dim3"))]
    pub shape: ShapeSpec,
    /// Material of the particles (index into the simulation's materials).
    pub material: u16,
    /// The `type` column of outputs.
    pub ptype: u16,
    /// Initial velocity of every particle (m/s), before the jitter.
    pub velocity: Vector,
    /// Each velocity component gets a uniform random number in [-j, j].
    pub velocity_jitter: f64,
    /// How many particles each event asks for.
    pub amount: Amount,
    /// Steps between events (>= 1).
    pub every: u64,
    /// Step of the first event.
    pub start_step: u64,
    /// No event at this step or later (None: no end).
    pub stop_step: Option<u64>,
    /// Particles to insert in all (None: no limit).
    pub total: Option<u64>,
    /// Seed of the stream's random numbers (each event's generator is seeded by it and the event's number).
    pub seed: u64,
    /// Centres tried per particle before it is given up.
    pub attempts: u32,
}

/// What a stream has done so far (saved in checkpoints).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InsertCounts {
    /// Events done: the next one is at `start_step + events x every`.
    pub events: u64,
    /// Particles inserted.
    pub inserted: u64,
    /// Particles the events asked for.
    pub requested: u64,
    /// Events that inserted fewer than they asked for.
    pub short_events: u64,
}

/// A stream and its progress.
#[derive(Debug, Clone, PartialEq)]
pub struct Inserter {
    /// What the stream inserts, where and when.
    pub spec: InsertSpec,
    /// What it has done so far.
    pub counts: InsertCounts,
}

/// An event that inserted fewer particles than it asked for (the region was too full).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shortfall {
    /// Index of the stream.
    pub stream: usize,
    /// The step before which it inserted.
    pub step: u64,
    /// Particles the event asked for.
    pub requested: u64,
    /// Particles it placed.
    pub inserted: u64,
}

/// Centres tried per particle when the caller does not say.
pub const DEFAULT_ATTEMPTS: u32 = 100;

/// Particles in a row that found no place after which an insertion gives up the rest of
/// what it asked for: the region is full (so that an insertion asking for far more than
/// the region holds does not try `attempts` centres for each of them).
pub const GIVE_UP_AFTER: u32 = 20;

impl InsertSpec {
    /// Particles event `k` asks for, before the total caps it.
    pub fn scheduled(&self, k: u64, dt: f64) -> u64 {
        match self.amount {
            Amount::PerInsert(n) => n,
            Amount::Rate(rate) => {
                let q = rate * self.every as f64 * dt;
                // Products that should be whole numbers may come out a rounding above.
                let upto = |n: u64| (n as f64 * q - 1e-9).ceil().max(0.0) as u64;
                upto(k + 1) - upto(k)
            }
        }
    }

    /// Step of event `k` (None: beyond any step).
    pub fn event_step(&self, k: u64) -> Option<u64> {
        self.start_step.checked_add(k.checked_mul(self.every)?)
    }

    /// The settings a stream needs to make sense, independent of the simulation.
    pub fn check(&self, domain_min: Vector, domain_max: Vector, materials: usize) -> Result<(), String> {
        let (lo, hi) = (self.region_min, self.region_max);
        if !(lo.iter().chain(&hi).all(|v| v.is_finite()) && (0..DIM).all(|k| lo[k] < hi[k])) {
            return Err(format!("region {lo:?}..{hi:?}: min must be below max, both finite"));
        }
        if !(0..DIM).all(|k| lo[k] >= domain_min[k] && hi[k] <= domain_max[k]) {
            return Err(format!(
                "region {lo:?}..{hi:?} must lie inside the domain {domain_min:?}..{domain_max:?}"
            ));
        }
        let radii: Vec<f64> = match &self.radius {
            RadiusDist::Fixed(r) => vec![*r],
            RadiusDist::Uniform { mean, width } => {
                if !(width.is_finite() && (0.0..1.0).contains(width)) {
                    return Err(format!("radius width {width} must be in [0, 1)"));
                }
                vec![mean * (1.0 - width), mean * (1.0 + width)]
            }
            RadiusDist::List(v) if v.is_empty() => return Err("radius list is empty".into()),
            RadiusDist::List(v) => v.clone(),
        };
        if let Some(r) = radii.iter().find(|r| !(r.is_finite() && **r > 0.0)) {
            return Err(format!("radius {r} must be positive and finite"));
        }
        let rmax = self.radius.max();
        let room = (0..DIM).map(|k| hi[k] - lo[k]).fold(f64::INFINITY, f64::min);
        if 2.0 * rmax >= room {
            return Err(format!(
                "the largest particle (radius {rmax}) does not fit in the region {lo:?}..{hi:?} ({room} across)"
            ));
        }
        #[cfg(not(feature = "dim3"))]
        match self.shape {
            ShapeSpec::Disc => {}
            ShapeSpec::Random {
                vertices: [a, b],
                aspect,
            } => {
                if !(MIN_VERTICES <= a && a <= b && b <= MAX_VERTICES && aspect.is_finite() && aspect >= 1.0) {
                    return Err(format!(
                        "random polygons of {a} to {b} corners (in {MIN_VERTICES}..={MAX_VERTICES}) and aspect {aspect} (>= 1)"
                    ));
                }
            }
            ShapeSpec::Regular { vertices } => {
                if !(MIN_VERTICES..=MAX_VERTICES).contains(&vertices) {
                    return Err(format!(
                        "regular polygons of {vertices} corners (in {MIN_VERTICES}..={MAX_VERTICES})"
                    ));
                }
            }
            ShapeSpec::Ellipse {
                vertices,
                aspect,
                jitter,
            } => {
                let ok = (MIN_VERTICES..=MAX_VERTICES).contains(&vertices)
                    && aspect.is_finite()
                    && aspect >= 1.0
                    && jitter.is_finite()
                    && jitter >= 0.0;
                if !ok {
                    return Err(format!(
                        "elliptic polygons of {vertices} corners (in {MIN_VERTICES}..={MAX_VERTICES}), aspect {aspect} \
                         (>= 1) and jitter {jitter} (>= 0)"
                    ));
                }
            }
        }
        if self.material as usize >= materials {
            return Err(format!("material {} does not exist", self.material));
        }
        if !self.velocity.iter().all(|v| v.is_finite()) {
            return Err(format!("velocity {:?} must be finite", self.velocity));
        }
        if !(self.velocity_jitter.is_finite() && self.velocity_jitter >= 0.0) {
            return Err(format!("velocity jitter {} must be >= 0", self.velocity_jitter));
        }
        match self.amount {
            Amount::PerInsert(0) => return Err("per_insert must be at least 1".into()),
            Amount::Rate(r) if !(r.is_finite() && r > 0.0) => return Err(format!("rate {r} must be positive")),
            _ => {}
        }
        if self.every == 0 {
            return Err("every must be at least 1 step".into());
        }
        if self.attempts == 0 {
            return Err("attempts must be at least 1".into());
        }
        if self.total == Some(0) {
            return Err("total must be at least 1".into());
        }
        if let Some(stop) = self.stop_step {
            if stop <= self.start_step {
                return Err(format!(
                    "the stop (step {stop}) must come after the start (step {})",
                    self.start_step
                ));
            }
        }
        Ok(())
    }
}

impl Inserter {
    /// A stream that has done nothing yet.
    pub fn new(spec: InsertSpec) -> Self {
        Inserter {
            spec,
            counts: InsertCounts::default(),
        }
    }

    /// Step of the next event, None once the stream is done.
    pub fn next_step(&self) -> Option<u64> {
        if self.spec.total.is_some_and(|t| self.counts.inserted >= t) {
            return None;
        }
        let s = self.spec.event_step(self.counts.events)?;
        match self.spec.stop_step {
            Some(stop) if s >= stop => None,
            _ => Some(s),
        }
    }

    /// Particles still to insert (u64::MAX without a total).
    pub fn remaining(&self) -> u64 {
        self.spec
            .total
            .map_or(u64::MAX, |t| t.saturating_sub(self.counts.inserted))
    }

    /// Skip the events before `step` (a stream added to a running simulation).
    pub(crate) fn skip_to(&mut self, step: u64) {
        let s = &self.spec;
        if step > s.start_step {
            self.counts.events = (step - s.start_step).div_ceil(s.every);
        }
    }
}

/// The generator of event `k` of a stream seeded `seed` (SplitMix64 spreads the pair over
/// the generator's 256 bits of state).
fn event_rng(seed: u64, k: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ k)
}

/// The particles of one event.
pub(crate) struct Placed {
    pub inits: Vec<ParticleInit>,
    /// Per particle its polygon, if it is one (always None in 3D).
    pub shapes: Vec<Option<crate::sim::Shape>>,
}

/// What poured particles must not overlap: the particles near the region, each as its
/// bounding circle (sphere) and, for a polygon, its world-frame corners.
#[derive(Debug, Default)]
pub(crate) struct Obstacles {
    centres: Vec<Vector>,
    radii: Vec<f64>,
    /// Per obstacle the range of its corners in `corners` (empty: a disc).
    #[cfg(not(feature = "dim3"))]
    ranges: Vec<std::ops::Range<usize>>,
    #[cfg(not(feature = "dim3"))]
    corners: Vec<[f64; 2]>,
}

impl Obstacles {
    /// A disc (sphere) at `c` of radius r.
    pub fn ball(&mut self, c: Vector, r: f64) {
        self.centres.push(c);
        self.radii.push(r);
        #[cfg(not(feature = "dim3"))]
        self.ranges.push(0..0);
    }

    /// A polygon of bounding radius `r` whose body-frame corners `body` are placed at
    /// `c` turned by `angle`.
    #[cfg(not(feature = "dim3"))]
    pub fn polygon(&mut self, c: Vector, r: f64, angle: f64, body: &[[f64; 2]]) {
        let from = self.corners.len();
        self.corners.resize(from + body.len(), [0.0; 2]);
        to_world(body, c, angle, &mut self.corners[from..]);
        self.centres.push(c);
        self.radii.push(r);
        self.ranges.push(from..self.corners.len());
    }

    fn len(&self) -> usize {
        self.centres.len()
    }

    /// Does the ball at `c` of radius r overlap obstacle `k`? Touching is allowed.
    fn overlap(&self, k: usize, c: Vector, r: f64) -> bool {
        let o = self.centres[k];
        let d: Vector = std::array::from_fn(|a| o[a] - c[a]);
        let rs = self.radii[k] + r;
        if norm2(d) >= rs * rs {
            return false;
        }
        #[cfg(not(feature = "dim3"))]
        {
            let corners = &self.corners[self.ranges[k].clone()];
            corners.is_empty() || signed_distance(c, corners) < r
        }
        #[cfg(feature = "dim3")]
        true
    }
}

/// A uniform grid over the region holding the obstacles' indices, each in every cell its
/// bounding ball's box touches: an obstacle overlapping a candidate's ball shares a cell
/// with it (the broad phase).
struct Grid {
    lo: Vector,
    cell: f64,
    n: [usize; DIM],
    cells: Vec<Vec<u32>>,
}

impl Grid {
    fn new(lo: Vector, hi: Vector, cell: f64) -> Grid {
        // At most 2^16 cells in 2D, 2^18 in 3D, however small the particles (made anew at
        // every insertion).
        let extent = (0..DIM).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
        let per_axis = if DIM == 2 { 256.0 } else { 64.0 };
        let cell = cell.max(extent / per_axis);
        let n: [usize; DIM] = std::array::from_fn(|k| (((hi[k] - lo[k]) / cell).ceil() as usize).max(1));
        Grid {
            lo,
            cell,
            n,
            cells: vec![Vec::new(); n.iter().product()],
        }
    }

    /// Cells touched by the box of a ball, clipped to the grid.
    fn span(&self, c: Vector, r: f64) -> Option<[std::ops::Range<usize>; DIM]> {
        let idx = |v: f64, k: usize| ((v - self.lo[k]) / self.cell).floor();
        let lo: [f64; DIM] = std::array::from_fn(|k| idx(c[k] - r, k));
        let hi: [f64; DIM] = std::array::from_fn(|k| idx(c[k] + r, k));
        if (0..DIM).any(|k| hi[k] < 0.0 || lo[k] >= self.n[k] as f64) {
            return None;
        }
        let clip = |v: f64, k: usize| (v.max(0.0) as usize).min(self.n[k] - 1);
        Some(std::array::from_fn(|k| clip(lo[k], k)..clip(hi[k], k) + 1))
    }

    /// The cells of a span, by their index in `cells` (x fastest).
    fn cells_of(&self, span: [std::ops::Range<usize>; DIM]) -> impl Iterator<Item = usize> + '_ {
        let count: usize = span.iter().map(|r| r.len()).product();
        (0..count).map(move |mut i| {
            let (mut at, mut stride) = (0, 1);
            for (k, r) in span.iter().enumerate() {
                at += (r.start + i % r.len()) * stride;
                i /= r.len();
                stride *= self.n[k];
            }
            at
        })
    }

    /// File obstacle `k`.
    fn add(&mut self, obstacles: &Obstacles, k: usize) {
        if let Some(span) = self.span(obstacles.centres[k], obstacles.radii[k]) {
            let cells: Vec<usize> = self.cells_of(span).collect();
            for c in cells {
                self.cells[c].push(k as u32);
            }
        }
    }

    /// Does the ball at `c` of radius r overlap an obstacle? Touching is allowed.
    fn overlaps(&self, obstacles: &Obstacles, c: Vector, r: f64) -> bool {
        let Some(span) = self.span(c, r) else {
            return false;
        };
        self.cells_of(span)
            .any(|cell| self.cells[cell].iter().any(|&k| obstacles.overlap(k as usize, c, r)))
    }
}

/// Place the particles of event `k` of `ins` (up to `want`): `obstacles` are the particles
/// near the region (the particles placed are added to them), `density` the density of the
/// stream's material (areal in 2D), ids from `next_id` on. A polygon the shape
/// specification cannot make is an error.
pub(crate) fn place(
    ins: &Inserter,
    want: u64,
    obstacles: &mut Obstacles,
    walls: &[Wall],
    density: f64,
    next_id: u64,
) -> Result<Placed, String> {
    let s = &ins.spec;
    let mut rng = event_rng(s.seed, ins.counts.events);
    let (lo, hi) = (s.region_min, s.region_max);
    let mut grid = Grid::new(lo, hi, 2.0 * s.radius.max());
    for k in 0..obstacles.len() {
        grid.add(obstacles, k);
    }
    let mut out = Placed {
        inits: Vec::new(),
        shapes: Vec::new(),
    };
    let mut failed_in_a_row = 0;
    for _ in 0..want {
        if failed_in_a_row >= GIVE_UP_AFTER {
            break;
        }
        let k = (ins.counts.inserted as usize).wrapping_add(out.inits.len());
        let r = s.radius.draw(k, &mut rng);
        #[cfg(not(feature = "dim3"))]
        let (shape, angle) = match polygon_vertices(&s.shape, r, &mut rng) {
            Some(v) => {
                let sh = PolygonShape::new(&v).map_err(|e| format!("a polygon of radius {r}: {e}"))?;
                (Some(sh), rng.random_range(0.0..std::f64::consts::TAU))
            }
            None => (None, 0.0),
        };
        // The bounding radius the engine will store.
        #[cfg(not(feature = "dim3"))]
        let rb = shape.as_ref().map_or(r, |sh| sh.radius);
        #[cfg(feature = "dim3")]
        let (rb, angle) = (r, 0.0);
        let range: [std::ops::Range<f64>; DIM] = std::array::from_fn(|a| lo[a] + rb..hi[a] - rb);
        if range.iter().any(|x| x.is_empty()) {
            failed_in_a_row += 1;
            continue;
        }
        let mut at = None;
        for _ in 0..s.attempts {
            // One draw per axis, in order (2D: x then y, as before 3D).
            let c: Vector = std::array::from_fn(|a| rng.random_range(range[a].clone()));
            let clear = !grid.overlaps(obstacles, c, rb) && walls.iter().all(|w| w.removed || w.distance(c) >= rb);
            if clear {
                at = Some(c);
                break;
            }
        }
        let Some(c) = at else {
            failed_in_a_row += 1;
            continue;
        };
        failed_in_a_row = 0;
        let j = s.velocity_jitter;
        let jit: Vector = if j > 0.0 {
            std::array::from_fn(|_| rng.random_range(-j..=j))
        } else {
            [0.0; DIM]
        };
        #[cfg(not(feature = "dim3"))]
        match &shape {
            Some(sh) => obstacles.polygon(c, rb, angle, &sh.vertices),
            None => obstacles.ball(c, rb),
        }
        #[cfg(feature = "dim3")]
        obstacles.ball(c, rb);
        grid.add(obstacles, obstacles.len() - 1);
        #[cfg(not(feature = "dim3"))]
        let mass = match &shape {
            Some(sh) => density * sh.area,
            None => crate::store::ball_mass(density, r),
        };
        #[cfg(feature = "dim3")]
        let mass = crate::store::ball_mass(density, r);
        out.inits.push(ParticleInit {
            id: next_id + out.inits.len() as u64,
            pos: c,
            angle,
            vel: std::array::from_fn(|a| s.velocity[a] + jit[a]),
            omega: [0.0; ANG],
            radius: rb,
            mass,
            material: s.material,
            ptype: s.ptype,
            flags: 0,
        });
        #[cfg(not(feature = "dim3"))]
        out.shapes.push(shape);
        #[cfg(feature = "dim3")]
        out.shapes.push(None);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// Checkpoint records: a stream as u64 words (floats by their bits), and its counts.

/// Where a record's fields after the region and velocity begin: the vectors first, a
/// word per axis (2D: the layout of format 2).
const V: usize = 3 * DIM;

/// Words of a stream's record before its radius list.
const SPEC_WORDS: usize = V + 21;

/// The streams as one array of words: per stream its length, then its fields.
pub(crate) fn encode_specs(ins: &[Inserter]) -> Vec<u64> {
    let mut out = Vec::new();
    for i in ins {
        let s = &i.spec;
        let b = f64::to_bits;
        let (amount_kind, amount) = match s.amount {
            Amount::PerInsert(n) => (0, n),
            Amount::Rate(r) => (1, b(r)),
        };
        // 3D: spheres, recorded as 2D's discs.
        #[cfg(feature = "dim3")]
        let (shape_kind, sa, sb, aspect, jitter): (u64, usize, usize, f64, f64) = (0, 0, 0, 0.0, 0.0);
        #[cfg(not(feature = "dim3"))]
        let (shape_kind, sa, sb, aspect, jitter) = match s.shape {
            ShapeSpec::Disc => (0, 0, 0, 0.0, 0.0),
            ShapeSpec::Random { vertices, aspect } => (1, vertices[0], vertices[1], aspect, 0.0),
            ShapeSpec::Regular { vertices } => (2, vertices, vertices, 1.0, 0.0),
            ShapeSpec::Ellipse {
                vertices,
                aspect,
                jitter,
            } => (3, vertices, vertices, aspect, jitter),
        };
        let (radius_kind, ra, rb, list): (u64, f64, f64, &[f64]) = match &s.radius {
            RadiusDist::Fixed(r) => (0, *r, 0.0, &[]),
            RadiusDist::Uniform { mean, width } => (1, *mean, *width, &[]),
            RadiusDist::List(v) => (2, 0.0, 0.0, v),
        };
        let vectors = s
            .region_min
            .iter()
            .chain(&s.region_max)
            .chain(&s.velocity)
            .map(|v| b(*v));
        let words: [u64; SPEC_WORDS - V] = [
            b(s.velocity_jitter),
            amount_kind,
            amount,
            s.every,
            s.start_step,
            s.stop_step.unwrap_or(u64::MAX),
            s.total.unwrap_or(u64::MAX),
            s.seed,
            s.attempts as u64,
            s.material as u64,
            s.ptype as u64,
            shape_kind,
            sa as u64,
            sb as u64,
            b(aspect),
            b(jitter),
            radius_kind,
            b(ra),
            b(rb),
            list.len() as u64,
            0,
        ];
        out.push((SPEC_WORDS + list.len()) as u64);
        out.extend(vectors);
        out.extend_from_slice(&words);
        out.extend(list.iter().map(|v| v.to_bits()));
    }
    out
}

/// The streams back from [`encode_specs`]' words (the settings are checked by the caller).
pub(crate) fn decode_specs(w: &[u64]) -> Result<Vec<InsertSpec>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < w.len() {
        let k = out.len();
        let len = w[at] as usize;
        let rec = w
            .get(at + 1..(at + 1).saturating_add(len))
            .filter(|r| len >= SPEC_WORDS && r.len() == len)
            .ok_or_else(|| format!("stream {k}: record of {} words is cut short or too short", w[at]))?;
        at += 1 + len;
        let f = |i: usize| f64::from_bits(rec[i]);
        let small = |i: usize, what: &str, max: u64| {
            if rec[i] <= max {
                Ok(rec[i])
            } else {
                Err(format!("stream {k}: {what} {} is out of range", rec[i]))
            }
        };
        let amount = match rec[V + 1] {
            0 => Amount::PerInsert(rec[V + 2]),
            1 => Amount::Rate(f(V + 2)),
            c => return Err(format!("stream {k}: amount kind {c} (0 or 1)")),
        };
        #[cfg(feature = "dim3")]
        if rec[V + 11] != 0 {
            return Err(format!(
                "stream {k}: shape kind {} (spheres only in 3D: 0)",
                rec[V + 11]
            ));
        }
        #[cfg(not(feature = "dim3"))]
        let corners = |i: usize| small(i, "corner count", MAX_VERTICES as u64).map(|v| v as usize);
        #[cfg(not(feature = "dim3"))]
        let shape = match rec[V + 11] {
            0 => ShapeSpec::Disc,
            1 => ShapeSpec::Random {
                vertices: [corners(V + 12)?, corners(V + 13)?],
                aspect: f(V + 14),
            },
            2 => ShapeSpec::Regular {
                vertices: corners(V + 12)?,
            },
            3 => ShapeSpec::Ellipse {
                vertices: corners(V + 12)?,
                aspect: f(V + 14),
                jitter: f(V + 15),
            },
            c => return Err(format!("stream {k}: shape kind {c} (0 to 3)")),
        };
        let list = &rec[SPEC_WORDS..];
        if rec[V + 19] as usize != list.len() {
            return Err(format!(
                "stream {k}: {} radii listed, {} stored",
                rec[V + 19],
                list.len()
            ));
        }
        let radius = match rec[V + 16] {
            0 => RadiusDist::Fixed(f(V + 17)),
            1 => RadiusDist::Uniform {
                mean: f(V + 17),
                width: f(V + 18),
            },
            2 => RadiusDist::List(list.iter().map(|v| f64::from_bits(*v)).collect()),
            c => return Err(format!("stream {k}: radius kind {c} (0 to 2)")),
        };
        let opt = |v: u64| (v != u64::MAX).then_some(v);
        out.push(InsertSpec {
            region_min: std::array::from_fn(f),
            region_max: std::array::from_fn(|a| f(DIM + a)),
            radius,
            #[cfg(not(feature = "dim3"))]
            shape,
            material: small(V + 9, "material", u16::MAX as u64)? as u16,
            ptype: small(V + 10, "type", u16::MAX as u64)? as u16,
            velocity: std::array::from_fn(|a| f(2 * DIM + a)),
            velocity_jitter: f(V),
            amount,
            every: rec[V + 3],
            start_step: rec[V + 4],
            stop_step: opt(rec[V + 5]),
            total: opt(rec[V + 6]),
            seed: rec[V + 7],
            attempts: small(V + 8, "attempts", u32::MAX as u64)? as u32,
        });
    }
    Ok(out)
}

/// Words per stream in the counts record (after the one word of the next id).
pub(crate) const COUNT_WORDS: usize = 4;

/// The next id, then per stream its counts.
pub(crate) fn encode_counts(next_id: u64, ins: &[Inserter]) -> Vec<u64> {
    let mut out = vec![next_id];
    for i in ins {
        let c = &i.counts;
        out.extend_from_slice(&[c.events, c.inserted, c.requested, c.short_events]);
    }
    out
}

/// Counts from [`encode_counts`]' words, for `streams` streams: the next id and the counts.
pub(crate) fn decode_counts(w: &[u64], streams: usize) -> Result<(u64, Vec<InsertCounts>), String> {
    if w.len() != 1 + COUNT_WORDS * streams {
        return Err(format!(
            "{} words, expected {} for {streams} streams",
            w.len(),
            1 + COUNT_WORDS * streams
        ));
    }
    let counts = w[1..]
        .chunks_exact(COUNT_WORDS)
        .map(|c| InsertCounts {
            events: c[0],
            inserted: c[1],
            requested: c[2],
            short_events: c[3],
        })
        .collect();
    Ok((w[0], counts))
}

#[cfg(test)]
#[path = "insert_tests.rs"]
mod tests;
