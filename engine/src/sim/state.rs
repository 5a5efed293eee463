//! The state of a simulation as flat arrays: what a checkpoint holds and a restart needs.
//!
//! Checkpoints are the buffers: every section is one of the engine's own
//! arrays, borrowed as bytes (bytemuck), never serialised element by element; only a few
//! small records (the settings, the scalars) are assembled. [`Simulation::from_sections`]
//! copies the arrays back and checks everything an index or a length could break, so that
//! a file that passed its checksums but holds nonsense (a bug, a hand-made file) is an
//! error that names the section, never a panic later in the run.
//!
//! Written once for both builds: each array per axis or angular component is a section of
//! its own (`p.x` .. `p.z`; `p.omega` in 2D, `p.omega.x` .. `p.omega.z` in 3D), springs are
//! `Spring`s (one f64 or three), the Gear history one section per derivative and degree of
//! freedom; what one dimension only has (polygons, drives, line walls or planes and
//! cylinders) sits behind `#[cfg]`.
//!
//! The small assembled records (scalars, config, walls) and the typed reading of sections
//! are in `state_records.rs`; the checks of what was read back in `state_check.rs`.
//!
//! Left out on purpose: scratch buffers, caches rebuilt on first use, the worker pool (a
//! restart starts its own), phase timings, and the chains of the contact table (rebuilt
//! from the pairs: they only serve lookups; the slot order and the free list, which decide
//! where new pairs go and so the order of force sums, are kept).
use std::borrow::Cow;

use bytemuck::Pod;
use talus_kernels::contact::{ContactParams, Spring};
#[cfg(not(feature = "dim3"))]
use talus_kernels::geometry::polygon::is_convex_ccw;
use talus_kernels::math::{Aabb, DIM};
use talus_kernels::neighbor::NeighborSearch;

use super::near_pairs::FAR_PAIRS;
use super::sections::{Elem, Section, SectionSource};
use super::state_check::{check_boxes_fit, check_far_pairs, check_table_is_the_set, slotless_from};
use super::state_records::*;
use super::state_turns::{tilt_words, turn_words, wall_tilts_from, wall_turns_from};
#[cfg(not(feature = "dim3"))]
use super::NarrowStats;
use super::{Broad, GearHistory, Integrator, Simulation};
use crate::contacts::{ContactTable, FREE};
#[cfg(not(feature = "dim3"))]
use crate::drive::{Drive, Driven};
use crate::error::Result;
use crate::material::Material;
#[cfg(not(feature = "dim3"))]
use crate::shapes::{Shapes, MAX_VERTICES, MIN_VERTICES};
use crate::store::{ParticleStore, F64_FIELDS};

/// Section names of the arrays per axis and per angular component (the 2D ones as format 1
/// named them).
#[cfg(not(feature = "dim3"))]
pub(super) mod names {
    pub const POS: [&str; 2] = ["p.x", "p.y"];
    pub const VEL: [&str; 2] = ["p.vx", "p.vy"];
    pub const FORCE: [&str; 2] = ["p.fx", "p.fy"];
    pub const OMEGA: [&str; 1] = ["p.omega"];
    pub const TORQUE: [&str; 1] = ["p.torque"];
    pub const ENDS: [&str; 2] = ["broad.order.x", "broad.order.y"];
    /// The sweep's ends as format 4 and before wrote them: `u64` keys, sentinels included.
    pub const KEYED_ENDS: [&str; 2] = ["broad.ends.x", "broad.ends.y"];
    /// Gear history: derivative order (a, b, c, d) by degree of freedom (x, y, angle).
    pub const GEAR: [[&str; 3]; 4] = [
        ["gear.a.x", "gear.a.y", "gear.a.angle"],
        ["gear.b.x", "gear.b.y", "gear.b.angle"],
        ["gear.c.x", "gear.c.y", "gear.c.angle"],
        ["gear.d.x", "gear.d.y", "gear.d.angle"],
    ];
}
#[cfg(feature = "dim3")]
pub(super) mod names {
    pub const POS: [&str; 3] = ["p.x", "p.y", "p.z"];
    pub const VEL: [&str; 3] = ["p.vx", "p.vy", "p.vz"];
    pub const FORCE: [&str; 3] = ["p.fx", "p.fy", "p.fz"];
    pub const OMEGA: [&str; 3] = ["p.omega.x", "p.omega.y", "p.omega.z"];
    pub const TORQUE: [&str; 3] = ["p.torque.x", "p.torque.y", "p.torque.z"];
    pub const ENDS: [&str; 3] = ["broad.order.x", "broad.order.y", "broad.order.z"];
    /// The sweep's ends as format 4 and before wrote them: `u64` keys, sentinels included.
    pub const KEYED_ENDS: [&str; 3] = ["broad.ends.x", "broad.ends.y", "broad.ends.z"];
    /// Gear history: derivative order (a, b, c, d) by degree of freedom: the axes, then
    /// the rotations about them (as the 2D angle; their rate is `p.omega.x` ..).
    #[rustfmt::skip]
    pub const GEAR: [[&str; 6]; 4] = [
        ["gear.a.x", "gear.a.y", "gear.a.z", "gear.a.angle.x", "gear.a.angle.y", "gear.a.angle.z"],
        ["gear.b.x", "gear.b.y", "gear.b.z", "gear.b.angle.x", "gear.b.angle.y", "gear.b.angle.z"],
        ["gear.c.x", "gear.c.y", "gear.c.z", "gear.c.angle.x", "gear.c.angle.y", "gear.c.angle.z"],
        ["gear.d.x", "gear.d.y", "gear.d.z", "gear.d.angle.x", "gear.d.angle.y", "gear.d.angle.z"],
    ];
}
use names::{ENDS, FORCE, GEAR, KEYED_ENDS, OMEGA, POS, TORQUE, VEL};

/// Names of [`ParticleStore::f64_fields`], in its order.
fn particle_f64() -> [&'static str; F64_FIELDS] {
    let angle: &[&'static str] = if DIM == 2 { &["p.angle"] } else { &[] };
    let mut all = POS
        .iter()
        .chain(angle)
        .chain(&VEL)
        .chain(&OMEGA)
        .chain(&FORCE)
        .chain(&TORQUE)
        .chain(&["p.radius", "p.inv_mass", "p.inv_inertia"])
        .copied();
    std::array::from_fn(|_| all.next().expect("F64_FIELDS names"))
}

/// The sweep's ends (tags) from their keys as files of format 4 and before hold them: the
/// low 32 bits of each, between a sentinel 0 and a sentinel `u64::MAX` (none for a method
/// that keeps no ends). Whether the tags fit the boxes is the sweep's check.
fn tags_of_keys(keys: &[u64]) -> std::result::Result<Vec<u32>, String> {
    match keys {
        [] => Ok(Vec::new()),
        [0, inner @ .., u64::MAX] => Ok(inner.iter().map(|&k| k as u32).collect()),
        _ => Err(format!(
            "{} keys without their sentinels (0 first, u64::MAX last)",
            keys.len()
        )),
    }
}

fn borrowed<'a, T: Pod>(name: &'static str, elem: Elem, v: &'a [T]) -> Section<'a> {
    Section {
        name,
        elem,
        bytes: Cow::Borrowed(bytemuck::cast_slice(v)),
    }
}

pub(super) fn owned<T: Pod>(name: &'static str, elem: Elem, v: Vec<T>) -> Section<'static> {
    Section {
        name,
        elem,
        bytes: Cow::Owned(bytemuck::cast_slice(&v).to_vec()),
    }
}

impl Simulation {
    /// The whole state as sections, in a fixed order. Taken between steps (after `run`
    /// returned), when every buffer is consistent.
    pub fn sections(&self) -> Vec<Section<'_>> {
        let ps = &self.particles;
        let ct = &self.contacts;
        let mut s = Vec::with_capacity(64);
        s.push(owned("config", Elem::U64, config_words(&self.config)));
        let mut scalars = vec![0u64; SCALARS];
        scalars[S_N] = ps.len() as u64;
        scalars[S_STEP] = self.step;
        scalars[S_TIME] = self.time.to_bits();
        scalars[S_NEIGHBOR_UPDATES] = self.neighbor_updates;
        scalars[S_NEEDS_REBUILD] = self.needs_rebuild as u64;
        scalars[S_PRIMED] = self.primed as u64;
        scalars[S_LAST_CONTACTS] = self.last_contacts;
        scalars[S_GENERATION] = ct.generation;
        scalars[S_POLYGONS] = ct.polygons as u64;
        scalars[S_CHURN] = ct.churn as u64;
        // Shapes and narrow-phase counters: polygons (2D); zero in 3D.
        #[cfg(not(feature = "dim3"))]
        {
            scalars[S_SHAPES] = self.shapes.is_some() as u64;
            scalars[S_NARROW..S_NARROW + 10].copy_from_slice(&narrow_words(&self.narrow));
        }
        s.push(owned("scalars", Elem::U64, scalars));
        // Counters added after format version 1 had shipped: a section of their own, which
        // files written before them lack (read as zero).
        #[cfg(not(feature = "dim3"))]
        s.push(owned(
            "narrow.tracking",
            Elem::U64,
            vec![self.narrow.tracked, self.narrow.clipped, self.narrow.gap_skips],
        ));
        let mats: Vec<f64> = self
            .materials
            .iter()
            .flat_map(|m| {
                let k = &m.contact;
                [m.density, k.kn, k.kt, k.gamma_n, k.gamma_t, k.mu]
            })
            .collect();
        s.push(owned("materials", Elem::F64, mats));
        let names: Vec<String> = self.materials.iter().map(|m| m.name.replace('\n', " ")).collect();
        s.push(owned("material.names", Elem::U8, names.join("\n").into_bytes()));
        s.push(owned("walls", Elem::F64, wall_words(&self.walls)));
        if let Some(words) = pair_table_words(&self.params, &self.materials) {
            s.push(owned("pair.table", Elem::F64, words));
        }
        for (name, words) in moving_wall_records(&self.walls, &self.moving_walls, &self.servos) {
            s.push(owned(name, Elem::F64, words));
        }
        if !self.turns.is_empty() {
            s.push(owned("walls.turn", Elem::F64, turn_words(&self.turns)));
        }
        if !self.tilts.is_empty() {
            s.push(owned("walls.tilt", Elem::F64, tilt_words(&self.tilts)));
        }
        #[cfg(not(feature = "dim3"))]
        {
            let drives: Vec<f64> = self
                .driven
                .drives
                .iter()
                .flat_map(|d| [d.centre[0], d.centre[1], d.velocity[0], d.velocity[1], d.omega])
                .collect();
            s.push(owned("drives", Elem::F64, drives));
            // When each drive starts and how long it takes to reach full speed (format 2).
            let motion: Vec<f64> = self.driven.drives.iter().flat_map(|d| [d.start, d.ramp]).collect();
            s.push(owned("drives.motion", Elem::F64, motion));
            if let Some(words) = drive_law_words(&self.driven.drives) {
                s.push(owned("drives.laws", Elem::F64, words));
            }
        }
        // Insertion streams: their settings, and what they have done (2D: format 2).
        s.push(owned(
            "insert.spec",
            Elem::U64,
            crate::insert::encode_specs(&self.inserts),
        ));
        s.push(owned(
            "insert.state",
            Elem::U64,
            crate::insert::encode_counts(self.next_id, &self.inserts),
        ));
        // The particle store, field by field.
        for (name, v) in particle_f64().into_iter().zip(ps.f64_fields()) {
            s.push(borrowed(name, Elem::F64, v));
        }
        s.push(borrowed("p.id", Elem::U64, &ps.id));
        s.push(borrowed("p.material", Elem::U16, &ps.material));
        s.push(borrowed("p.ptype", Elem::U16, &ps.ptype));
        s.push(borrowed("p.flags", Elem::U8, &ps.flags));
        if let Some(g) = &self.gear {
            for (names, arrays) in GEAR.iter().zip([&g.a, &g.b, &g.c, &g.d]) {
                for (name, v) in names.iter().zip(arrays) {
                    s.push(borrowed(name, Elem::F64, v));
                }
            }
        }
        #[cfg(not(feature = "dim3"))]
        {
            if let Some(sh) = &self.shapes {
                s.push(borrowed("shape.start", Elem::U32, &sh.start));
                s.push(borrowed("shape.body", Elem::F64, &sh.body));
                s.push(borrowed("shape.world", Elem::F64, &sh.world));
            }
        }
        s.push(borrowed("contact.i", Elem::U32, &ct.i));
        s.push(borrowed("contact.j", Elem::U32, &ct.j));
        // Springs: one f64 per slot in 2D, three (x, y, z) in 3D.
        s.push(borrowed("contact.xi", Elem::F64, &ct.xi));
        s.push(borrowed("contact.free", Elem::U32, &ct.free));
        // 3D: the pairs that cannot touch before one of their boxes is made anew, and
        // those that may but do not touch (without the marks of those that took slots
        // since the last update).
        if FAR_PAIRS {
            debug_assert!(ct.far.is_settled(), "a removal pending in the far pairs");
            s.push(borrowed("contact.far", Elem::U32, ct.far.pairs()));
            // How many slots the last sort left in order (those after them were appended
            // since): when they are sorted in depends on it.
            s.push(owned("contact.sorted", Elem::U64, vec![ct.sorted as u64]));
            let apart = ct.apart.pairs();
            s.push(if ct.apart.is_settled() {
                borrowed("contact.apart", Elem::U32, apart)
            } else {
                owned(
                    "contact.apart",
                    Elem::U32,
                    apart.iter().filter(|p| p[1] != FREE).copied().collect(),
                )
            });
        }
        if ct.polygons {
            s.push(borrowed("contact.features", Elem::U32, &ct.features));
            s.push(borrowed("contact.area", Elem::F64, &ct.area));
        }
        if ct.rolling_state {
            s.push(borrowed("contact.rolling", Elem::F64, &ct.rolling));
            s.push(borrowed("wallc.rolling", Elem::F64, &self.wall_contacts.rolling));
        }
        let wc = &self.wall_contacts;
        s.push(borrowed("wallc.p", Elem::U32, &wc.p));
        s.push(borrowed("wallc.w", Elem::U16, &wc.w));
        s.push(borrowed("wallc.xi", Elem::F64, &wc.xi));
        s.push(borrowed("wallc.area", Elem::F64, &wc.area));
        #[cfg(not(feature = "dim3"))]
        {
            let d = &self.driven;
            s.push(borrowed("driven.index", Elem::U32, &d.index));
            s.push(borrowed("driven.drive", Elem::U16, &d.drive));
            s.push(borrowed("driven.rel", Elem::F64, &d.rel));
            s.push(borrowed("driven.angle0", Elem::F64, &d.angle0));
            s.push(borrowed("driven.t0", Elem::F64, &d.t0));
        }
        let boxes: &[Aabb] = with_broad!(&self.broad, m => m.stored_boxes());
        s.push(borrowed("broad.boxes", Elem::F32, boxes));
        let ends: [&[u32]; DIM] = with_broad!(&self.broad, m => m.sorted_ends());
        for (name, e) in ENDS.into_iter().zip(ends) {
            s.push(borrowed(name, Elem::U32, e));
        }
        // A periodic cell: its axes and the reach its images were made for (settings),
        // and the images the broad phase holds after the particles.
        if let Some(im) = &self.periodic {
            let cell: Vec<f64> = std::iter::once(0.5 * im.reach())
                .chain(im.cell.periodic.iter().map(|&p| p as u8 as f64))
                .chain([im.cell.shear_velocity])
                .collect();
            s.push(owned("periodic", Elem::F64, cell));
            s.push(owned("periodic.offset", Elem::F64, vec![im.stored_offset()]));
            s.push(borrowed("periodic.owner", Elem::U32, im.owners()));
            // Shifts -3..=3 (x under shear), stored plus 3.
            let shifts: Vec<u8> = im.shifts().iter().flatten().map(|&k| (k + 3) as u8).collect();
            s.push(owned("periodic.shift", Elem::U8, shifts));
        }
        self.cell_servo_sections(&mut s);
        s
    }

    /// A simulation continuing exactly from saved sections (see [`Simulation::sections`]).
    /// It runs serially until a pool is set up (same as a new simulation).
    pub fn from_sections(src: &dyn SectionSource) -> Result<Simulation> {
        let r = Reader { src };
        let config = config_from(&r)?;
        let sc: Vec<u64> = r.exact("scalars", SCALARS)?;
        let n = usize::try_from(sc[S_N]).map_err(|_| r.err("scalars", "particle count too large".into()))?;
        // Counters that the run increments: far from overflowing.
        let counters = [
            (S_STEP, "step"),
            (S_NEIGHBOR_UPDATES, "neighbour updates"),
            (S_GENERATION, "contact table generation"),
            (S_LAST_CONTACTS, "contacts of the last step"),
        ]
        .into_iter()
        .chain((S_NARROW..S_NARROW + 10).map(|k| (k, "a narrow-phase counter")));
        for (k, what) in counters {
            if sc[k] >= 1 << 62 {
                return Err(r.err("scalars", format!("{what} ({}) is out of range", sc[k])));
            }
        }
        #[cfg(not(feature = "dim3"))]
        let tracking: Vec<u64> = if r.src.section("narrow.tracking").is_some() {
            r.exact("narrow.tracking", 3)?
        } else {
            vec![0; 3]
        };
        #[cfg(not(feature = "dim3"))]
        if let Some(v) = tracking.iter().find(|&&v| v >= 1 << 62) {
            return Err(r.err("narrow.tracking", format!("a counter ({v}) is out of range")));
        }
        #[cfg(feature = "dim3")]
        if let Some(k) = (S_NARROW..S_NARROW + 10).find(|&k| sc[k] != 0) {
            return Err(r.err(
                "scalars",
                format!(
                    "narrow-phase counter {} is {}: spheres have no polygon narrow phase",
                    k - S_NARROW,
                    sc[k]
                ),
            ));
        }
        let flag = |k: usize, what: &str| match sc[k] {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(r.err("scalars", format!("{what} is {v}, not 0 or 1"))),
        };
        let mats: Vec<f64> = r.get("materials")?;
        if !mats.len().is_multiple_of(6) {
            return Err(r.err("materials", format!("{} values, not 6 per material", mats.len())));
        }
        let names_bytes: Vec<u8> = r.get("material.names")?;
        let names = String::from_utf8(names_bytes).map_err(|_| r.err("material.names", "not UTF-8".into()))?;
        let names: Vec<&str> = names.split('\n').collect();
        if names.len() != mats.len() / 6 {
            return Err(r.err(
                "material.names",
                format!("{} names for {} materials", names.len(), mats.len() / 6),
            ));
        }
        let materials: Vec<Material> = mats
            .chunks_exact(6)
            .zip(&names)
            .map(|(m, name)| Material {
                name: name.to_string(),
                density: m[0],
                contact: ContactParams {
                    kn: m[1],
                    kt: m[2],
                    gamma_n: m[3],
                    gamma_t: m[4],
                    mu: m[5],
                },
            })
            .collect();
        let wv: Vec<f64> = r.get("walls")?;
        if !wv.len().is_multiple_of(WALL_WORDS) {
            return Err(r.err("walls", format!("{} values, not {WALL_WORDS} per wall", wv.len())));
        }
        let mut walls = Vec::new();
        for (k, w) in wv.chunks_exact(WALL_WORDS).enumerate() {
            let m = w[WALL_WORDS - 1];
            if !(m >= 0.0 && m < materials.len() as f64 && m.fract() == 0.0) {
                return Err(r.err("walls", format!("wall material {m}")));
            }
            walls.push(wall_from(w, m as u16).map_err(|msg| r.err("walls", format!("wall {k}: {msg}")))?);
        }
        super::check_config(&config, &materials, &walls)
            .map_err(|e| r.err("config", format!("settings refused: {e}")))?;
        let params = pair_table_from(&r, &materials)?;
        let (moving_walls, servos) = wall_states_from(&r, &mut walls)?;
        let turns = wall_turns_from(&r, &walls)?;
        let moved: Vec<usize> = moving_walls
            .iter()
            .map(|m| m.wall)
            .chain(servos.iter().map(|s| s.wall))
            .collect();
        let domain = [config.domain_min, config.domain_max];
        let tilts = wall_tilts_from(&r, &mut walls, &moved, f64::from_bits(sc[S_TIME]), domain)?;
        let extras = params.has_extras();
        #[cfg(not(feature = "dim3"))]
        let drives: Vec<Drive> = {
            let dv: Vec<f64> = r.get("drives")?;
            if !dv.len().is_multiple_of(5) {
                return Err(r.err("drives", format!("{} values, not 5 per drive", dv.len())));
            }
            // Start and ramp of each drive: files of format 1 have none (all start at once).
            let motion: Vec<f64> = if r.src.section("drives.motion").is_some() {
                r.exact("drives.motion", 2 * (dv.len() / 5))?
            } else {
                vec![0.0; 2 * (dv.len() / 5)]
            };
            let laws = drive_laws_from(&r, dv.len() / 5)?;
            dv.chunks_exact(5)
                .zip(motion.chunks_exact(2))
                .zip(laws)
                .map(|((d, m), laws)| Drive {
                    centre: [d[0], d[1]],
                    velocity: [d[2], d[3]],
                    omega: d[4],
                    start: m[0],
                    ramp: m[1],
                    laws,
                })
                .collect()
        };

        // Particles.
        let mut ps = ParticleStore::default();
        for (name, v) in particle_f64().into_iter().zip(ps.f64_fields_mut()) {
            *v = r.exact(name, n)?;
        }
        ps.id = r.exact("p.id", n)?;
        ps.material = r.exact("p.material", n)?;
        ps.ptype = r.exact("p.ptype", n)?;
        ps.flags = r.exact("p.flags", n)?;
        if let Some(p) = ps.material.iter().position(|&m| m as usize >= materials.len()) {
            return Err(r.err(
                "p.material",
                format!("index {p}: material {} does not exist", ps.material[p]),
            ));
        }
        // In a periodic cell a centre may be past a periodic face by the slack.
        let (periodic, cell_servo) = super::periodic::periodic_from(&r, &config, n)?;
        let bodies = ps.wall_bodies();
        if let Some(m) = cell_servo.and_then(|_| super::cell_servo::cell_servo_refusal(config.integrator, bodies)) {
            return Err(r.err("periodic.servo", m));
        }
        let (mut lo, mut hi) = (config.domain_min, config.domain_max);
        if let Some(im) = &periodic {
            for a in (0..DIM).filter(|&a| im.cell.periodic[a]) {
                lo[a] -= im.slack();
                hi[a] += im.slack();
            }
        }
        for p in 0..n {
            // NaN is outside too.
            if let Some(a) = (0..DIM).find(|&a| !(ps.pos[a][p] >= lo[a] && ps.pos[a][p] <= hi[a])) {
                let at: Vec<String> = (0..DIM).map(|a| ps.pos[a][p].to_string()).collect();
                return Err(r.err(
                    POS[a],
                    format!("particle id {} at ({}) is outside the domain", ps.id[p], at.join(", ")),
                ));
            }
            if let Err(msg) = super::check_radius(ps.radius[p], &config) {
                return Err(r.err("p.radius", format!("particle id {}: {msg}", ps.id[p])));
            }
        }
        let gear = match config.integrator {
            Integrator::Verlet => None,
            Integrator::Gear => {
                let mut g = GearHistory::default();
                for (names, arrays) in GEAR.iter().zip([&mut g.a, &mut g.b, &mut g.c, &mut g.d]) {
                    for (name, v) in names.iter().zip(arrays.iter_mut()) {
                        *v = r.exact(name, n)?;
                    }
                }
                Some(g)
            }
        };
        let has_shapes = flag(S_SHAPES, "the shapes flag")?;
        #[cfg(feature = "dim3")]
        if has_shapes {
            return Err(r.err("scalars", "polygon shapes: the 3D engine has spheres only".into()));
        }
        #[cfg(not(feature = "dim3"))]
        let shapes = if has_shapes {
            let start: Vec<u32> = r.exact("shape.start", n + 1)?;
            let nv = *start.last().expect("n + 1 entries") as usize;
            if start[0] != 0 {
                return Err(r.err("shape.start", "does not start at 0".into()));
            }
            for p in 0..n {
                let k = start[p + 1].wrapping_sub(start[p]) as usize;
                if start[p + 1] < start[p] || (k != 0 && !(MIN_VERTICES..=MAX_VERTICES).contains(&k)) {
                    return Err(r.err(
                        "shape.start",
                        format!("particle index {p} has {k} vertices (0 or {MIN_VERTICES}..{MAX_VERTICES})"),
                    ));
                }
            }
            let body: Vec<[f64; 2]> = r.exact("shape.body", nv)?;
            for p in 0..n {
                let v = &body[start[p] as usize..start[p + 1] as usize];
                let ok = v.is_empty() || (v.iter().flatten().all(|c| c.is_finite()) && is_convex_ccw(v));
                if !ok {
                    return Err(r.err(
                        "shape.body",
                        format!("particle index {p}: not a finite, counter-clockwise, strictly convex polygon"),
                    ));
                }
                // The bounding radius bounds every corner (the circle test and the gap
                // budget rely on it).
                let far = v.iter().map(|c| c[0].hypot(c[1])).fold(0.0, f64::max);
                if far > ps.radius[p] * (1.0 + 1e-12) {
                    return Err(r.err(
                        "p.radius",
                        format!(
                            "particle index {p}: radius {} but a corner {far} from the centre",
                            ps.radius[p]
                        ),
                    ));
                }
            }
            let world: Vec<[f64; 2]> = r.exact("shape.world", nv)?;
            Some(Shapes { start, body, world })
        } else {
            None
        };

        // Contact table: slots in their order, the free list in its order.
        let mut ct = ContactTable::new(n);
        ct.i = r.get("contact.i")?;
        let slots = ct.i.len();
        ct.j = r.exact("contact.j", slots)?;
        ct.xi = r.exact::<Spring>("contact.xi", slots)?;
        ct.free = r.get("contact.free")?;
        ct.polygons = flag(S_POLYGONS, "the polygon-state flag")?;
        if ct.polygons != has_shapes {
            return Err(r.err(
                "scalars",
                "polygon contact state without shapes, or shapes without it".into(),
            ));
        }
        if ct.polygons {
            ct.features = r.exact("contact.features", slots)?;
            ct.area = r.exact("contact.area", slots)?;
        }
        if has_shapes && params.has_rolling() {
            return Err(r.err("pair.table", "rolling friction with polygons".into()));
        }
        ct.rolling = rolling_from(&r, "contact.rolling", slots, extras)?;
        ct.rolling_state = extras;
        if FAR_PAIRS {
            ct.far = slotless_from(&r, "contact.far", n)?;
            ct.apart = slotless_from(&r, "contact.apart", n)?;
            // A file before it (format 3 or older): none taken as sorted, so the appended
            // slots wait for the next compaction.
            if r.src.section("contact.sorted").is_some() {
                let sorted: Vec<u64> = r.exact("contact.sorted", 1)?;
                if sorted[0] > slots as u64 {
                    return Err(r.err("contact.sorted", format!("{} sorted slots of {slots}", sorted[0])));
                }
                ct.sorted = sorted[0] as usize;
            }
        }
        let mut free_slots = 0;
        for s in 0..slots {
            let (i, j) = (ct.i[s], ct.j[s]);
            if i == FREE {
                free_slots += 1;
                if j != FREE {
                    return Err(r.err("contact.j", format!("free slot {s} names particle {j}")));
                }
            } else if !(i < j && (j as usize) < n) {
                let which = if i < j { "contact.j" } else { "contact.i" };
                return Err(r.err(which, format!("slot {s}: pair ({i}, {j}) with {n} particles")));
            } else if ct.polygons {
                // An overlap area, or minus the gap left to a pair that is apart: the gap
                // between two polygons is less than the distance of their centres (each
                // centre is inside its polygon), so a larger one is forged, and would let
                // the pair pass through each other unnoticed.
                let (i, j) = (i as usize, j as usize);
                let a = ct.area[s];
                let centres = (ps.pos[0][i] - ps.pos[0][j]).hypot(ps.pos[1][i] - ps.pos[1][j]);
                if !a.is_finite() || -a > centres {
                    return Err(r.err(
                        "contact.area",
                        format!("slot {s}: {a} is no overlap area, nor a gap between centres {centres} apart"),
                    ));
                }
            }
        }
        let mut seen = vec![false; slots];
        for &f in &ct.free {
            let ok =
                (f as usize) < slots && ct.i[f as usize] == FREE && !std::mem::replace(&mut seen[f as usize], true);
            if !ok {
                return Err(r.err("contact.free", format!("slot {f} is not a free slot, or listed twice")));
            }
        }
        if ct.free.len() != free_slots {
            return Err(r.err(
                "contact.free",
                format!("{} free slots listed, {free_slots} in the table", ct.free.len()),
            ));
        }
        ct.live = slots - free_slots;
        ct.generation = sc[S_GENERATION];
        ct.churn = sc[S_CHURN] as usize;
        if ct.churn > 2 * slots + 64 {
            return Err(r.err(
                "scalars",
                format!("{} pairs added since compaction, {slots} slots", ct.churn),
            ));
        }
        ct.rebuild_chains();

        let wc = wall_contacts_from(&r, n, &walls, extras)?;

        #[cfg(not(feature = "dim3"))]
        let driven = {
            let mut driven = Driven {
                drives,
                index: r.get("driven.index")?,
                ..Default::default()
            };
            let k = driven.index.len();
            driven.drive = r.exact("driven.drive", k)?;
            driven.rel = r.exact("driven.rel", k)?;
            driven.angle0 = r.exact("driven.angle0", k)?;
            driven.t0 = r.exact("driven.t0", k)?;
            for e in 0..k {
                if driven.index[e] as usize >= n || driven.drive[e] as usize >= driven.drives.len() {
                    return Err(r.err("driven.index", format!("entry {e}: particle or drive out of range")));
                }
            }
            driven
        };

        let images = periodic.as_ref().map_or(0, |im| im.len());
        let boxes: Vec<Aabb> = r.exact("broad.boxes", n + images)?;
        // The sweep's ends (tags), or, in a file of format 4 or before, their keys.
        let mut ends: [Vec<u32>; DIM] = Default::default();
        let mut ends_names = ENDS;
        for a in 0..DIM {
            ends[a] = match r.src.section(ENDS[a]) {
                None if r.src.section(KEYED_ENDS[a]).is_some() => {
                    ends_names[a] = KEYED_ENDS[a];
                    tags_of_keys(&r.get::<u64>(KEYED_ENDS[a])?).map_err(|m| r.err(KEYED_ENDS[a], m))?
                }
                _ => r.get(ENDS[a])?,
            };
        }
        let ends_ref: [&[u32]; DIM] = std::array::from_fn(|a| ends[a].as_slice());
        // The broad phase's domain: past the periodic faces as far as images reach.
        let mut broad_config = config.clone();
        if let Some(im) = &periodic {
            im.broad_domain(&mut broad_config.domain_min, &mut broad_config.domain_max);
        }
        let radii: Vec<f64> = match &periodic {
            None => ps.radius.clone(),
            // An image's box under shear is wider by the offset's drift; in a cell whose
            // length changes, taller by the give.
            Some(im) => (0..n + images)
                .map(|e| ps.radius[im.owner(n, e as u32) as usize] + if e < n { 0.0 } else { im.drift() + im.give() })
                .collect(),
        };
        check_boxes_fit(&boxes, &radii, &broad_config).map_err(|msg| r.err("broad.boxes", msg))?;
        match &periodic {
            None => check_far_pairs(&ct.far, &boxes, &ps.radius).map_err(|msg| r.err("contact.far", msg))?,
            Some(_) if !ct.far.is_empty() => {
                return Err(r.err(
                    "contact.far",
                    "far pairs in a periodic cell (all its pairs are in slots)".into(),
                ))
            }
            Some(_) if !ct.apart.is_empty() => {
                return Err(r.err(
                    "contact.apart",
                    "apart pairs in a periodic cell (all its pairs are in slots)".into(),
                ))
            }
            Some(_) => {}
        }
        let mut broad = Broad::new(config.neighbor, &broad_config);
        let restored = with_broad!(&mut broad, m => NeighborSearch::restore(&mut **m, &boxes, ends_ref));
        // The method's message names `boxes` or `ends.x` ...: the section it was read from.
        let pairs = restored.map_err(|e| {
            let (array, msg) = e.split_once(": ").unwrap_or(("", &e));
            let axis = ["ends.x", "ends.y", "ends.z"][..DIM].iter().position(|&a| a == array);
            match axis {
                Some(a) => r.err(ends_names[a], msg.to_string()),
                None if array == "boxes" => r.err("broad.boxes", msg.to_string()),
                None => r.err("broad.boxes", e),
            }
        })?;
        let needs_rebuild = flag(S_NEEDS_REBUILD, "needs_rebuild")?;
        if !needs_rebuild {
            // The neighbour search reports changes of its pair set: the table must hold
            // exactly that set, or an addition would meet a pair already present.
            let checked = match &periodic {
                None => check_table_is_the_set(&ct, n, pairs, |i, j| {
                    talus_kernels::neighbor::boxes_overlap(&boxes[i as usize], &boxes[j as usize])
                }),
                // The method counted pairs of entries (particles and images), not of
                // particles: only the pairs themselves are checked.
                Some(im) => check_table_is_the_set(&ct, n, None, |i, j| im.any_copy_meets(n, &boxes, i, j)),
            };
            checked.map_err(|msg| r.err("contact.i", msg))?;
        }

        // Insertion streams: files of format 1 (3D: before insertion) have none.
        let (inserts, next_id) = match r.src.section("insert.spec") {
            None => (Vec::new(), 1),
            Some(_) => {
                let words: Vec<u64> = r.get("insert.spec")?;
                let specs = crate::insert::decode_specs(&words).map_err(|m| r.err("insert.spec", m))?;
                let state: Vec<u64> = r.get("insert.state")?;
                let (next_id, counts) =
                    crate::insert::decode_counts(&state, specs.len()).map_err(|m| r.err("insert.state", m))?;
                let inserts = specs
                    .into_iter()
                    .zip(counts)
                    .map(|(spec, counts)| crate::insert::Inserter { spec, counts })
                    .collect();
                (inserts, next_id)
            }
        };
        // Above every id present (so it is for files without the section too; an event
        // takes the same maximum anyway).
        let next_id = ps.id.iter().fold(next_id, |m, &id| m.max(id.saturating_add(1)));

        let sim = Simulation {
            params,
            gear,
            particles: ps,
            contacts: ct,
            walls,
            wall_contacts: wc,
            materials,
            broad,
            step: sc[S_STEP],
            time: f64::from_bits(sc[S_TIME]),
            neighbor_updates: sc[S_NEIGHBOR_UPDATES],
            needs_rebuild,
            adds: Vec::new(),
            removes: Vec::new(),
            apart_tiers: Default::default(),
            kicked: None,
            wave_particles: None,
            primed: flag(S_PRIMED, "primed")?,
            last_contacts: sc[S_LAST_CONTACTS],
            #[cfg(not(feature = "dim3"))]
            shapes,
            #[cfg(not(feature = "dim3"))]
            narrow: NarrowStats {
                tracked: tracking[0],
                clipped: tracking[1],
                gap_skips: tracking[2],
                ..narrow_from(&sc[S_NARROW..S_NARROW + 10])
            },
            workers: Box::new(crate::parallel::Workers::new(
                &[None],
                crate::parallel::ForceStrategy::Deterministic,
            )?),
            #[cfg(not(feature = "dim3"))]
            driven,
            inserts,
            next_id,
            shortfalls: Vec::new(),
            log_requested: false,
            contact_log: None,
            periodic,
            cell_servo,
            moving_walls,
            wall_relists: 0,
            servos,
            turns,
            tilts,
            config,
        };
        // Under shear, the offset for the positions as saved (the next step sets its own).
        let mut sim = sim;
        let t = sim.time;
        if let Some(im) = &mut sim.periodic {
            im.set_offset(im.cell.shear_offset(t));
        }
        super::state_check::check_contents(&sim)?;
        Ok(sim)
    }
}
