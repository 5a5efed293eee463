//! The simulation: the particle store, the broad phase, the contact table, walls and the
//! integrator, stepped through explicit phases:
//!
//! predict -> check (who left its enlarged box, who left the domain) -> neighbour update
//! (only when needed, or every step) -> forces (pairs, walls) -> correct.
//!
//! Each phase is one pass over flat arrays on the worker pool (one thread by default),
//! timed in the pool's profile; ARCHITECTURE.md maps the phases to their files.
use std::time::Instant;

#[cfg(not(feature = "dim3"))]
use talus_kernels::contact::law::{elastic_energy, NormalModel};
use talus_kernels::contact::ContactParams;
use talus_kernels::integrate::gear::Derivatives;
use talus_kernels::integrate::verlet::{Check, CheckResult};
use talus_kernels::math::{Aabb, Vector, ANG, DIM};
use talus_kernels::neighbor::{BallBoxes, NeighborSearch};

use crate::contact_log::ContactLog;
use crate::contacts::ContactTable;
#[cfg(not(feature = "dim3"))]
use crate::drive::{Drive, Driven};
use crate::error::{EngineError, Result};
use crate::forces::walls::WallWork;
#[cfg(not(feature = "dim3"))]
use crate::forces::{polygon_body, polygon_image};
#[cfg(not(feature = "dim3"))]
pub use crate::forces::{NarrowStats, Rejection, SEPARATING_LINE_ITERATIONS};
use crate::insert::{InsertSpec, Inserter, Shortfall};
use crate::material::{Material, PairTable};
use crate::parallel::{ForceStrategy, NextKick, PairWork, Workers};
use crate::pool::{Phase, Profile};
#[cfg(not(feature = "dim3"))]
use crate::shapes::{PolygonShape, Shapes};
use crate::store::{ParticleInit, ParticleStore};
use crate::walls::{Wall, WallContacts};
#[cfg(not(feature = "dim3"))]
use talus_kernels::contact::polygon_polygon::disc_polygon;
#[cfg(not(feature = "dim3"))]
use talus_kernels::geometry::overlap::overlap;
#[cfg(not(feature = "dim3"))]
use talus_kernels::geometry::polygon::to_world;

#[macro_use]
mod broad;
mod analysis;
mod analysis_passes;
mod cell_servo;
mod config;
mod gear_history;
mod insertion;
mod measure;
mod moving_walls;
mod near_pairs;
mod particles;
mod periodic;
pub use analysis::{Analysis, Region};
use broad::{Broad, BroadUpdate};
pub use broad::{NeighborMethod, QUADTREE_LEAF};
pub use cell_servo::CellServo;
use config::{check_config, check_radius};
pub use config::{Config, Integrator, MAX_MATERIALS};
use gear_history::GearHistory;
pub use measure::{Energies, MemoryParts};
pub use particles::{morton_key, MORTON_CELLS};
mod sections;
mod state;
mod state_check;
mod state_records;
#[cfg(test)]
mod state_tests;
mod state_turns;
pub use sections::{Elem, Section, SectionSource, SETTINGS_SECTIONS};

/// A particle's shape beside its radius: a convex polygon (2D).
#[cfg(not(feature = "dim3"))]
pub type Shape = PolygonShape;
/// A particle's shape beside its radius: none so far in 3D, where every particle is a
/// sphere (polyhedra come later), so no value of this type exists.
#[cfg(feature = "dim3")]
#[derive(Debug, Clone)]
pub enum Shape {}

/// Not `Clone`: it may own a pool of threads.
#[derive(Debug)]
pub struct Simulation {
    /// The set-up: time step, gravity, domain, integrator, neighbour search.
    pub config: Config,
    /// The particles (structure of arrays, in store order).
    pub particles: ParticleStore,
    /// Candidate particle pairs and their per-pair state.
    pub contacts: ContactTable,
    /// The walls, by wall number (removed ones keep their place).
    pub walls: Vec<Wall>,
    /// Candidate particle-wall pairs and their springs.
    pub wall_contacts: WallContacts,
    /// The materials, indexed by `ParticleStore::material`.
    pub materials: Vec<Material>,
    params: PairTable,
    broad: Broad,
    gear: Option<GearHistory>,
    /// Steps done.
    pub step: u64,
    /// Simulated time (s).
    pub time: f64,
    /// Broad-phase updates done (incremental or full).
    pub neighbor_updates: u64,
    needs_rebuild: bool,
    /// Pair-set changes of the methods other than the sweep (buffers kept between steps).
    adds: Vec<(u32, u32)>,
    removes: Vec<(u32, u32)>,
    /// Which apart pairs the step's test reads (`near_pairs`).
    apart_tiers: near_pairs::ApartTiers,
    /// The next step's kicks and drift done in this step's force phase (its waves), and
    /// their position check: the next step starts from it.
    kicked: Option<CheckResult>,
    /// Particles per thread of the force phase's waves (`parallel::waves`; `None`: its own
    /// rule, by the level-2 cache).
    wave_particles: Option<usize>,
    primed: bool,
    /// Touching pairs found by the last force phase.
    pub last_contacts: u64,
    /// Polygon shapes (None while every particle is a disc: the disc paths stay as they are).
    #[cfg(not(feature = "dim3"))]
    pub shapes: Option<Shapes>,
    /// What the narrow phase of polygon pairs did, accumulated over the run.
    #[cfg(not(feature = "dim3"))]
    pub narrow: NarrowStats,
    /// The worker pool that runs every phase of the step (one thread unless
    /// [`Simulation::set_parallel`] says otherwise), and its buffers.
    workers: Box<Workers>,
    /// Bodies moved by prescribed motions (drum walls, moving boundaries).
    #[cfg(not(feature = "dim3"))]
    pub driven: Driven,
    /// Insertion streams (particles poured in over time) and what they have done.
    inserts: Vec<Inserter>,
    /// The id the next inserted particle gets (at least one more than any id present).
    next_id: u64,
    /// Insertion events that fell short since the caller last took them.
    shortfalls: Vec<Shortfall>,
    /// Log the contact forces of the next run's last step ([`Simulation::log_next_run`]).
    log_requested: bool,
    /// The contact forces of the last logged step.
    contact_log: Option<ContactLog>,
    /// Periodic boundaries: the cell and the images the broad phase sees.
    periodic: Option<talus_kernels::neighbor::PeriodicImages>,
    /// A servo on the periodic cell's y length (`sim/cell_servo.rs`).
    cell_servo: Option<cell_servo::CellServoState>,
    /// Walls moved by a function of time (`sim/moving_walls.rs`), and the times their
    /// contact list was built again for them alone.
    moving_walls: Vec<crate::wall_motion::WallMotion>,
    wall_relists: u64,
    /// Walls under a servo (`sim/moving_walls.rs`).
    servos: Vec<crate::wall_motion::WallServo>,
    /// Drums turned by a law of time (3D cylinders; `sim/moving_walls.rs`).
    turns: Vec<crate::wall_motion::WallTurn>,
    /// Lines and planes turned about a pivot by a law of time (`sim/moving_walls.rs`).
    tilts: Vec<crate::wall_motion::WallTilt>,
}

/// Why a polygon is refused under Hertz: the model scales the forces by sqrt(delta R_eff),
/// and a polygon's corner or face has no radius to take.
#[cfg(not(feature = "dim3"))]
pub(crate) const HERTZ_ROUND: &str =
    "the Hertz normal model is for discs (its forces grow with sqrt(overlap R_eff)); polygons take Hooke";

impl Simulation {
    /// A simulation of the given particles. The particles are renumbered along a Morton
    /// curve (their ids stay), and the forces of the initial state are computed.
    pub fn new(config: Config, materials: Vec<Material>, walls: Vec<Wall>, particles: &[ParticleInit]) -> Result<Self> {
        Self::build(config, materials, walls, particles, &[])
    }

    /// A simulation of balls and shapes: `shapes[k]` is the shape of `particles[k]`
    /// (`None` or a missing entry: a disc or a sphere; 2D: a convex polygon, whose radius
    /// is its bounding radius and whose moment of inertia comes from its shape).
    pub fn new_with_shapes(
        config: Config,
        materials: Vec<Material>,
        walls: Vec<Wall>,
        particles: &[ParticleInit],
        shapes: &[Option<Shape>],
    ) -> Result<Self> {
        Self::build(config, materials, walls, particles, shapes)
    }

    fn build(
        config: Config,
        materials: Vec<Material>,
        walls: Vec<Wall>,
        particles: &[ParticleInit],
        shapes: &[Option<Shape>],
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
            neighbor_updates: 0,
            needs_rebuild: true,
            adds: Vec::new(),
            removes: Vec::new(),
            apart_tiers: Default::default(),
            kicked: None,
            wave_particles: None,
            primed: false,
            last_contacts: 0,
            #[cfg(not(feature = "dim3"))]
            shapes: None,
            #[cfg(not(feature = "dim3"))]
            narrow: NarrowStats::default(),
            workers: Box::new(Workers::new(&[None], ForceStrategy::Deterministic)?),
            #[cfg(not(feature = "dim3"))]
            driven: Driven::default(),
            inserts: Vec::new(),
            next_id: 1,
            shortfalls: Vec::new(),
            log_requested: false,
            contact_log: None,
            periodic: None,
            cell_servo: None,
            moving_walls: Vec::new(),
            wall_relists: 0,
            servos: Vec::new(),
            turns: Vec::new(),
            tilts: Vec::new(),
        };
        sim.append(particles, shapes)?;
        sim.primed = false;
        sim.reorder();
        sim.prime()?;
        Ok(sim)
    }

    /// Number of particles.
    pub fn len(&self) -> usize {
        self.particles.len()
    }

    /// Whether there is no particle.
    pub fn is_empty(&self) -> bool {
        self.particles.is_empty()
    }

    /// Compute the forces of the current state without advancing any spring: needed once
    /// before the first step (and after particles were added).
    pub fn prime(&mut self) -> Result<()> {
        let g = self.config.gravity;
        let ps = &mut self.particles;
        ps.force.iter_mut().chain(&mut ps.torque).for_each(|f| f.fill(0.0));
        self.shear_to(self.time);
        self.place_walls(self.time);
        self.check_positions()?;
        self.update_neighbors()?;
        self.slot_touching_pairs()?;
        self.forces(0.0, false, false)?;
        self.measure_servos();
        if let Some(gh) = &mut self.gear {
            // The accelerations of the current state: the axes, then the angular components.
            let ps = &self.particles;
            for p in 0..ps.len() {
                let gm = if ps.inv_mass[p] > 0.0 { 1.0 } else { 0.0 };
                for (a, ga) in g.iter().enumerate() {
                    gh.a[a][p] = ps.force[a][p] * ps.inv_mass[p] + gm * ga;
                }
                for k in 0..ANG {
                    gh.a[DIM + k][p] = ps.torque[k][p] * ps.inv_inertia[p];
                }
            }
        }
        self.primed = true;
        Ok(())
    }

    /// Cut the force phase into waves of `per_thread` particles per thread wherever the
    /// contact table is sorted (`parallel::waves`; `usize::MAX`: never), instead of by its
    /// own rule (`None`). The results are the same bitwise either way: for tests and
    /// measurements.
    #[doc(hidden)]
    pub fn set_wave_particles(&mut self, per_thread: Option<usize>) {
        self.wave_particles = per_thread;
    }

    /// The steps whose force phase ran in waves with a tail of appended slots
    /// (`parallel::waves`): for tests.
    #[doc(hidden)]
    pub fn force_phases_with_a_tail(&self) -> u64 {
        self.workers.tails
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
        self.workers.pool.profile.setting_up = false;
        let done = self.run_steps(steps);
        self.workers.pool.profile.setting_up = true;
        done
    }

    /// [`Simulation::run`], its phases counted in the profile.
    fn run_steps(&mut self, steps: u64) -> Result<()> {
        // An earlier log stays (its buffers are reused) but no longer answers once the
        // step has moved on: `contact_log` checks its step.
        let logging = std::mem::take(&mut self.log_requested) && steps > 0;
        // Another pool made since this one may have moved the calling thread.
        self.workers.pool.pin_caller()?;
        if !self.primed {
            // After particles were added: the run's work, timed with its steps.
            let t = Instant::now();
            self.prime()?;
            self.workers.pool.profile.stepping += t.elapsed().as_secs_f64();
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
                // The run's work, timed with its steps as its phase is counted.
                let t = Instant::now();
                self.insert_due()?;
                self.workers.pool.profile.stepping += t.elapsed().as_secs_f64();
            }
            let log = (logging && k + 1 == steps) || self.cell_servo_due();
            let kick_next = k + 1 < steps && self.next_step_kicks_early();
            if let Err(e) = self.advance(pending, log, kick_next) {
                // Keep the state synchronised; the first error is the one to report. The
                // bodies may have moved without the gap budgets being charged: drop them.
                self.kicked = None;
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

    /// Whether the next step's kicks and drift may be done in this step's force phase
    /// (`Workers::pair_forces` does them where it runs in waves): velocity Verlet, and
    /// nothing at the next step's start that reads or changes the particles before them
    /// (a reorder, an insertion, driven bodies' velocities, a periodic cell, whose domain
    /// may move), nor after this step's forces (a servo's load, measured on the particles
    /// as they are). The results are bitwise those of the pass at the next step's start.
    fn next_step_kicks_early(&self) -> bool {
        let next = self.step + 1;
        #[cfg(not(feature = "dim3"))]
        let driven = !self.driven.is_empty();
        #[cfg(feature = "dim3")]
        let driven = false;
        let reorders = self.config.sort_every > 0 && next.is_multiple_of(self.config.sort_every);
        let touched =
            reorders || self.insertion_due_at(next) || driven || self.periodic.is_some() || !self.servos.is_empty();
        self.config.integrator == Integrator::Verlet && !touched
    }

    /// One step up to the forces (their log kept when `log`); the Verlet second half kick
    /// is left pending (and, with `kick_next`, the next step's kicks may be done too).
    fn advance(&mut self, pending_kick: bool, log: bool, kick_next: bool) -> Result<()> {
        let t = Instant::now();
        if self.config.sort_every > 0 && self.step > 0 && self.step.is_multiple_of(self.config.sort_every) {
            self.reorder();
        }
        if self.workers.needs_first_touch {
            let t = Instant::now();
            self.workers.first_touch(&mut self.particles)?;
            self.workers
                .pool
                .record_serial(Phase::FirstTouch, t.elapsed().as_secs_f64());
        }
        let dt = self.config.dt;
        #[cfg(not(feature = "dim3"))]
        if !self.driven.is_empty() {
            let image = self.min_image();
            self.driven
                .set_velocities(&mut self.particles, self.time, dt, image.as_ref());
        }
        // Under Lees-Edwards shear, the offset of the cell above at the drifted positions'
        // time (the wrap uses it); it may call for an update of its own.
        let mut sheared = self.shear_to(self.time + dt);
        // A cell under a servo stretched to its length of the drifted positions' time.
        sheared |= self.stretch_cell(dt);
        // Moving and tilting walls at their poses, and turning drums at their spins, of the
        // drifted positions' time.
        if !(self.moving_walls.is_empty() && self.turns.is_empty() && self.tilts.is_empty()) {
            self.place_walls(self.time + dt);
        }
        if !self.servos.is_empty() {
            self.advance_servos(dt);
        }
        let left = match self.config.integrator {
            Integrator::Verlet => match self.kicked.take() {
                Some(r) => self.account_kick(r)?,
                None => self.kick_drift_check(pending_kick)?,
            },
            Integrator::Gear => {
                // How far the predictor moved a centre is not measured.
                self.apart_tiers.drift = f64::INFINITY;
                self.predict()?;
                self.check_positions()?
            }
        };
        #[cfg(not(feature = "dim3"))]
        if let Some(sh) = &mut self.shapes {
            let ps = &self.particles;
            self.workers.update_world(sh, &ps.pos[0], &ps.pos[1], &ps.angle)?;
        }
        if left || sheared || self.config.every_step || self.needs_rebuild {
            self.update_neighbors()?;
        }
        if !(self.moving_walls.is_empty() && self.servos.is_empty() && self.tilts.is_empty()) {
            self.relist_strayed_walls();
        }
        self.slot_touching_pairs()?;
        self.forces(dt, log, kick_next)?;
        self.measure_servos();
        self.measure_cell();
        if self.config.integrator == Integrator::Gear {
            self.correct()?;
        }
        self.step += 1;
        if let Some(l) = self.contact_log.as_mut().filter(|_| log) {
            l.step = self.step;
        }
        self.time += dt;
        self.workers.pool.profile.stepping += t.elapsed().as_secs_f64();
        Ok(())
    }

    /// The Verlet second half kick of the last step.
    fn finish_kick(&mut self) -> Result<()> {
        if self.config.integrator == Integrator::Verlet {
            let t = Instant::now();
            self.correct()?;
            self.workers.pool.profile.stepping += t.elapsed().as_secs_f64();
        }
        Ok(())
    }

    /// Verlet: kicks, drift, load reset and position check in one pass.
    fn kick_drift_check(&mut self, pending: bool) -> Result<bool> {
        let n = self.particles.len();
        let boxes: &[Aabb] = with_broad!(&self.broad, m => &m.stored_boxes()[..n]);
        let (dt, g) = (self.config.dt, self.config.gravity);
        let (lo, hi) = self.checked_domain();
        let r = self
            .workers
            .kick_drift_check(&mut self.particles, boxes, dt, g, pending, lo, hi)?;
        self.account_kick(r)
    }

    /// The drift's bound and the position check's outcome of a Verlet pass.
    fn account_kick(&mut self, r: CheckResult) -> Result<bool> {
        let (lo, hi) = self.checked_domain();
        // The drift x += dt u rounds each coordinate by up to half its last place: a
        // step's bound adds that (for the largest coordinate of the domain) to dt u.
        let rounding = (0..DIM).map(|a| lo[a].abs().max(hi[a].abs())).fold(0.0, f64::max) * f64::EPSILON;
        self.apart_tiers.drift += r.speed * self.config.dt + DIM as f64 * rounding;
        self.left_or_escaped(r.outside, r.left_box)
    }

    /// After the position check: a centre outside the domain is wrapped back into a
    /// periodic cell (and the broad phase rebuilt), or is an escape.
    fn left_or_escaped(&mut self, outside: bool, left_box: bool) -> Result<bool> {
        if outside {
            if self.wrap_into_cell() {
                return Ok(true);
            }
            return Err(self.escape_error());
        }
        Ok(left_box)
    }

    /// The error for the first particle outside the domain.
    fn escape_error(&self) -> EngineError {
        let ps = &self.particles;
        let (lo, hi) = (self.config.domain_min, self.config.domain_max);
        let at = |p: usize| -> Vector { std::array::from_fn(|a| ps.pos[a][p]) };
        let p = (0..ps.len()).find(|&p| !self.in_domain(at(p))).unwrap_or(0);
        // The step being computed (self.step counts completed steps).
        let (id, step, pos) = (ps.id[p], self.step + 1, at(p));
        if pos.iter().all(|v| v.is_finite()) {
            EngineError::Escaped {
                step,
                id,
                pos,
                min: lo,
                max: hi,
            }
        } else {
            EngineError::NonFinite { step, id, pos }
        }
    }

    /// Gear: predict, loads zeroed.
    fn predict(&mut self) -> Result<()> {
        let dt = self.config.dt;
        let Some(gh) = &mut self.gear else {
            return Ok(());
        };
        let (values, rates, loads, _) = self.particles.gear_views();
        self.workers.gear_predict(gh.dofs(values, rates), loads, dt)
    }

    /// Verlet: the second half kick; Gear: the correction.
    fn correct(&mut self) -> Result<()> {
        let dt = self.config.dt;
        let g = self.config.gravity;
        if let Some(gh) = &mut self.gear {
            let (values, rates, loads, inv) = self.particles.gear_views();
            let bias = std::array::from_fn(|k| if k < DIM { g[k] } else { 0.0 });
            return self
                .workers
                .gear_correct(gh.dofs(values, rates), loads.map(|l| &*l), inv, bias, dt);
        }
        self.workers.kick(&mut self.particles, dt, g)
    }

    /// Has some particle left its stored enlarged box? Is every particle in the domain?
    fn check_positions(&mut self) -> Result<bool> {
        let ps = &self.particles;
        let n = ps.len();
        let stored: &[Aabb] = with_broad!(&self.broad, m => m.stored_boxes());
        let (domain_min, domain_max) = self.checked_domain();
        let c = Check {
            radius: &ps.radius[..n],
            boxes: &stored[..n],
            domain_min,
            domain_max,
        };
        let r = self.workers.check_positions(ps, &c)?;
        self.left_or_escaped(r.outside, r.left_box)
    }

    fn update_neighbors(&mut self) -> Result<()> {
        let n = self.particles.len();
        // In a periodic cell the images are made anew with every rebuild, and when a
        // particle has come near a face without the image it needs.
        let mut images = self.periodic.take();
        if let Some(im) = &mut images {
            let pos = self.particles.pos.each_ref().map(|v| &v[..n]);
            if self.needs_rebuild || im.missing(pos) {
                im.build(pos);
                self.needs_rebuild = true;
            }
        }
        let ps = &self.particles;
        let src = BallBoxes {
            pos: ps.pos.each_ref().map(|v| &v[..]),
            radius: &ps.radius,
            margin: self.config.margin,
        };
        let update = BroadUpdate {
            broad: &mut self.broad,
            workers: &mut self.workers,
            contacts: &mut self.contacts,
            adds: &mut self.adds,
            removes: &mut self.removes,
            rebuild: self.needs_rebuild,
            split: (near_pairs::FAR_PAIRS && images.is_none()).then(|| near_pairs::balls(ps)),
        };
        let done = match &images {
            None => update.run(&src, None, n),
            Some(im) => update.run(&im.boxes(&src), Some(im), n),
        };
        self.periodic = images;
        done?;
        if let Some(im) = &mut self.periodic {
            im.mark_stored();
        }
        let stored: &[Aabb] = with_broad!(&self.broad, m => &m.stored_boxes()[..n]);
        let reach = self.wall_reach();
        let (wc, walls) = (&mut self.wall_contacts, &self.walls);
        self.workers
            .pool
            .serial(Phase::Contacts, || wc.rebuild(walls, stored, &reach));
        self.mark_walls_listed();
        // After an incremental update (a rebuild made the table anew): the far pairs that
        // came near into the apart list (and, before a compaction, the slotted ones that
        // do not touch out of the slots), then the compaction when the table is due for one.
        if !self.needs_rebuild {
            self.part_slotless_pairs();
            // Sorted, where the force phase runs in waves (`parallel::waves`). Where apart
            // pairs take slots before each step's forces (3D outside a periodic cell), the
            // waves take those appended slots as their tail, kept short by
            // `ContactTable::merge_appended`: compacted only for holes there (at every
            // update, for the appended slots too, 583,200 spheres ran 2.5 % slower: the
            // compaction, 160 ms a sweep; BENCHMARKS.md). Elsewhere the slots change at
            // these updates alone, each adding any number, which the waves would then
            // carry as a tail, out of particle order, until the next compaction.
            let threads = self.workers.threads();
            let slots_between = near_pairs::FAR_PAIRS && self.periodic.is_none();
            let waves = self.workers.in_place() && crate::parallel::waves_pay(n, threads, self.wave_particles);
            let ready = match slots_between {
                true => self.contacts.appended_only(),
                false => self.contacts.is_sorted(),
            };
            if self.contacts.wants_compaction() || (waves && !ready) {
                let ct = &mut self.contacts;
                self.workers.pool.serial(Phase::Contacts, || ct.compact());
            }
        }
        self.needs_rebuild = false;
        self.neighbor_updates += 1;
        Ok(())
    }

    /// Pair and wall forces. `dt` advances the tangential springs (0 = evaluate only);
    /// `log` keeps each contact's force in `contact_log`.
    ///
    /// `kick_next`: the next step's kicks and drift may be done here
    /// ([`Simulation::next_step_kicks_early`]); if they were, the next step starts from
    /// their check (`kicked`).
    fn forces(&mut self, dt: f64, log: bool, kick_next: bool) -> Result<()> {
        let walls = WallWork {
            walls: &self.walls,
            params: &self.params,
            #[cfg(not(feature = "dim3"))]
            shapes: self.shapes.as_ref(),
            normal_model: self.config.normal_model,
            dt,
            extras: self.contacts.has_rolling_state(),
            #[cfg(feature = "dim3")]
            turning: !self.tilts.is_empty(),
        };
        let work = PairWork {
            #[cfg(not(feature = "dim3"))]
            shapes: self.shapes.as_ref(),
            params: &self.params,
            dt,
            #[cfg(not(feature = "dim3"))]
            rejection: self.config.rejection,
            #[cfg(not(feature = "dim3"))]
            gap_budget: self.config.integrator == Integrator::Verlet,
            normal_model: self.config.normal_model,
            image: self.min_image(),
        };
        // The pool adds the wall forces after the pair forces, in its reduction.
        // The last log's buffers are reused: a fresh one would cost its pages again.
        let mut contact_log = log.then(|| self.contact_log.take().unwrap_or_default());
        let n = self.particles.len();
        let (domain_min, domain_max) = self.checked_domain();
        let next = kick_next.then(|| NextKick {
            boxes: with_broad!(&self.broad, m => &m.stored_boxes()[..n]),
            dt: self.config.dt,
            g: self.config.gravity,
            domain_min,
            domain_max,
        });
        (self.last_contacts, self.kicked) = self.workers.pair_forces(
            &mut self.particles,
            &mut self.contacts,
            &work,
            #[cfg(not(feature = "dim3"))]
            &mut self.narrow,
            &mut self.wall_contacts,
            &walls,
            contact_log.as_mut(),
            next.as_ref(),
            self.wave_particles,
        )?;
        if log {
            self.contact_log = contact_log;
        }
        Ok(())
    }

    /// Run the phases on `pins.len()` threads (pinned where `pins[t]` names a processing
    /// unit), summing pair forces by `strategy`. A new simulation runs on one unpinned
    /// thread, deterministic.
    pub fn set_parallel(&mut self, pins: &[Option<usize>], strategy: ForceStrategy) -> Result<()> {
        // The old pool's threads end before the new one's start.
        *self.workers = Workers::new(&[None], strategy)?;
        let mut par = Box::new(Workers::new(pins, strategy)?);
        par.first_touch(&mut self.particles)?;
        self.workers = par;
        Ok(())
    }

    /// Use another neighbour-search method from the next step on (the contact table and
    /// its springs are kept: the new method's first, full search is merged into it).
    pub fn set_neighbor_method(&mut self, method: NeighborMethod) {
        self.config.neighbor = method;
        self.broad = Broad::new(method, &self.broad_config());
        if let Some(im) = &mut self.periodic {
            im.forget();
        }
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

    /// Threads of the pool.
    pub fn threads(&self) -> usize {
        self.workers.threads()
    }

    /// How the pool sums the pair forces.
    pub fn force_strategy(&self) -> ForceStrategy {
        self.workers.strategy
    }

    /// Where the steps' time went: per phase, per thread busy and barrier-wait times.
    pub fn profile(&self) -> &Profile {
        &self.workers.pool.profile
    }

    /// Start the profile afresh (after a warm-up).
    pub fn reset_times(&mut self) {
        self.workers.pool.profile.clear();
    }

    /// Keep the contact forces of the last step of the next [`Simulation::run`] (or
    /// [`Simulation::step`]), for [`Simulation::contact_log`]: a step without it runs the
    /// force loop it always runs.
    pub fn log_next_run(&mut self) {
        self.log_requested = true;
    }

    /// The contact forces of the step that led to the current state, if that step was
    /// logged ([`Simulation::log_next_run`]).
    pub fn contact_log(&self) -> Option<&ContactLog> {
        self.contact_log.as_ref().filter(|l| l.step == self.step)
    }

    /// The contact coefficients of a pair of materials.
    pub fn contact_params(&self, a: u16, b: u16) -> ContactParams {
        *self.params.get(a, b)
    }

    /// The coefficients, cohesion and rolling friction of every pair of materials.
    pub fn pair_table(&self) -> &PairTable {
        &self.params
    }

    /// Replace the table of pair coefficients: pairs set one by one (LAMMPS `pair_coeff
    /// i j`), cohesion and rolling resistance (LIGGGHTS `cohesion sjkr`, `rolling_friction
    /// epsd2` or `cdt`). Refused: a table for another number of materials, a coefficient
    /// negative or not finite, and rolling resistance with polygons (their corners resist
    /// rolling; they take cohesion).
    pub fn set_pair_table(&mut self, table: PairTable) -> Result<()> {
        table
            .check(self.materials.len())
            .map_err(|m| EngineError::Setup(format!("pair table: {m}")))?;
        if table.has_extras() {
            #[cfg(not(feature = "dim3"))]
            if table.has_rolling()
                && (self.shapes.is_some()
                    || self.inserts.iter().any(|i| {
                        let mut rng = crate::generate::rng(i.spec.seed);
                        crate::generate::polygon_vertices(&i.spec.shape, i.spec.radius.max(), &mut rng).is_some()
                    }))
            {
                return Err(EngineError::Setup(
                    "rolling resistance is for round grains (discs, spheres): a polygon's corners resist its rolling \
                     already; give polygons cohesion alone"
                        .into(),
                ));
            }
            self.contacts.enable_rolling_state();
            self.wall_contacts.enable_rolling_state();
        }
        self.params = table;
        Ok(())
    }

    /// Mark the broad phase for a full rebuild at the next step.
    pub fn request_rebuild(&mut self) {
        self.needs_rebuild = true;
    }

    /// Set gravity from the next step on (a stage tilting a box). Refused: not finite.
    pub fn set_gravity(&mut self, gravity: Vector) -> Result<()> {
        if !gravity.iter().all(|g| g.is_finite()) {
            return Err(EngineError::Setup(format!("gravity {gravity:?} is not finite")));
        }
        self.config.gravity = gravity;
        Ok(())
    }
}
