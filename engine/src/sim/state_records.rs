//! The small records of a checkpoint that are assembled rather than borrowed (`state.rs`
//! borrows the arrays): the scalars' positions, the "config", "walls", "periodic" and
//! "pair.table" sections, the rolling torques, the narrow phase's counters, and the typed, length-checked reading of
//! sections.
use bytemuck::Pod;
#[cfg(not(feature = "dim3"))]
use talus_kernels::contact::disc_wall::LineWall;
use talus_kernels::contact::law::NormalModel;
#[cfg(feature = "dim3")]
use talus_kernels::contact::sphere_wall::{CylinderWall, PlaneWall};
use talus_kernels::contact::{CohesionModel, ContactParams, PairExtras, RollingModel};
use talus_kernels::math::{Vector, ANG, DIM};

use super::sections::SectionSource;
use super::{Config, Integrator, NeighborMethod};
#[cfg(not(feature = "dim3"))]
use super::{NarrowStats, Rejection};
use crate::error::{EngineError, Result};
use crate::material::{Material, PairTable};
use crate::wall_motion::{Displacement, Servo, WallMotion, WallServo};
#[cfg(feature = "dim3")]
use crate::walls::Surface;
use crate::walls::{Wall, WallContacts};
use talus_kernels::contact::Spring;

// Positions in the "scalars" section.
pub(super) const S_N: usize = 0;
pub(super) const S_STEP: usize = 1;
pub(super) const S_TIME: usize = 2;
pub(super) const S_NEIGHBOR_UPDATES: usize = 3;
pub(super) const S_NEEDS_REBUILD: usize = 4;
pub(super) const S_PRIMED: usize = 5;
pub(super) const S_LAST_CONTACTS: usize = 6;
pub(super) const S_GENERATION: usize = 7;
pub(super) const S_POLYGONS: usize = 8;
pub(super) const S_CHURN: usize = 9;
pub(super) const S_SHAPES: usize = 10;
pub(super) const S_NARROW: usize = 11;
pub(super) const SCALARS: usize = S_NARROW + 10;
// Positions in the "config" section: the time step, gravity, domain_min, domain_max per
// axis, the margin, then the words below, the last the models' (`MODEL_SHIFT`).
pub(super) const C_MARGIN: usize = 1 + 3 * DIM;
pub(super) const C_INTEGRATOR: usize = C_MARGIN + 1;
pub(super) const C_NEIGHBOR: usize = C_MARGIN + 2;
pub(super) const C_EVERY_STEP: usize = C_MARGIN + 3;
pub(super) const C_SORT_EVERY: usize = C_MARGIN + 4;
pub(super) const C_MODEL: usize = C_MARGIN + 5;
/// Where the normal model sits in the `C_MODEL` word (2D: above the rejection test's code).
const MODEL_SHIFT: u32 = if DIM == 2 { 2 } else { 0 };
pub(super) const CONFIG_WORDS: usize = C_MODEL + 1;
pub(super) const INTEGRATOR_CODES: &str = "0 or 1";
/// The neighbour method's code in the "config" section is its position here: the build's
/// registry order in 2D; in 3D the order its checkpoints first had, the octree (which
/// came later, second in the registry) appended, so that older files read unchanged.
#[cfg(not(feature = "dim3"))]
pub(super) const METHOD_CODES: &[NeighborMethod] = NeighborMethod::ALL;
#[cfg(feature = "dim3")]
pub(super) const METHOD_CODES: &[NeighborMethod] = &[
    NeighborMethod::Sweep,
    NeighborMethod::Cells,
    NeighborMethod::Verlet,
    NeighborMethod::Brute,
    NeighborMethod::Quadtree,
];
/// Values per wall in the "walls" section: point, normal, velocity (2D lines); a kind (0
/// plane, 1 cylinder), point, normal or axis, velocity or (radius, spin, 0) (3D).
#[cfg(not(feature = "dim3"))]
pub(super) const WALL_WORDS: usize = 7;
#[cfg(feature = "dim3")]
pub(super) const WALL_WORDS: usize = 11;

#[cfg(not(feature = "dim3"))]
pub(super) fn narrow_words(n: &NarrowStats) -> [u64; 10] {
    [
        n.candidates,
        n.circle_rejected,
        n.projection_tested,
        n.projection_rejected,
        n.line_rejected,
        n.line_iterations,
        n.separated,
        n.touching,
        n.walk_steps,
        n.fallbacks,
    ]
}

#[cfg(not(feature = "dim3"))]
pub(super) fn narrow_from(w: &[u64]) -> NarrowStats {
    NarrowStats {
        candidates: w[0],
        circle_rejected: w[1],
        projection_tested: w[2],
        projection_rejected: w[3],
        line_rejected: w[4],
        line_iterations: w[5],
        separated: w[6],
        touching: w[7],
        walk_steps: w[8],
        fallbacks: w[9],
        ..NarrowStats::default()
    }
}

/// The "config" section: see the `C_*` positions.
pub(super) fn config_words(c: &Config) -> Vec<u64> {
    let integrator = match c.integrator {
        Integrator::Verlet => 0,
        Integrator::Gear => 1,
    };
    let neighbor = METHOD_CODES
        .iter()
        .position(|&m| m == c.neighbor)
        .expect("a listed method") as u64;
    let normal = match c.normal_model {
        NormalModel::Hooke => 0,
        NormalModel::Hertz => 1,
    };
    // 2D: the polygons' rejection test in the low two bits, the normal model above them
    // (a checkpoint from before 2D Hertz reads as Hooke); 3D: the normal model.
    #[cfg(not(feature = "dim3"))]
    let model = normal << MODEL_SHIFT
        | match c.rejection {
            Rejection::Circle => 0,
            Rejection::Projection => 1,
            Rejection::SeparatingLine => 2,
        };
    #[cfg(feature = "dim3")]
    let model = normal;
    let mut w = vec![c.dt.to_bits()];
    let vectors = c.gravity.iter().chain(&c.domain_min).chain(&c.domain_max);
    w.extend(vectors.chain([&c.margin]).map(|v| v.to_bits()));
    w.extend([integrator, neighbor, c.every_step as u64, c.sort_every, model]);
    debug_assert_eq!(w.len(), CONFIG_WORDS);
    w
}

pub(super) fn config_from(r: &Reader<'_>) -> Result<Config> {
    let cw: Vec<u64> = r.exact("config", CONFIG_WORDS)?;
    let f = |k: usize| f64::from_bits(cw[k]);
    let axes = |k: usize| std::array::from_fn(|a| f(k + a));
    let bad_config = |msg: String| r.err("config", msg);
    Ok(Config {
        dt: f(0),
        gravity: axes(1),
        domain_min: axes(1 + DIM),
        domain_max: axes(1 + 2 * DIM),
        margin: f(C_MARGIN),
        integrator: match cw[C_INTEGRATOR] {
            0 => Integrator::Verlet,
            1 => Integrator::Gear,
            k => return Err(bad_config(format!("integrator code {k} ({INTEGRATOR_CODES})"))),
        },
        neighbor: *METHOD_CODES
            .get(cw[C_NEIGHBOR] as usize)
            .ok_or_else(|| bad_config(format!("neighbour method code {}", cw[C_NEIGHBOR])))?,
        every_step: match cw[C_EVERY_STEP] {
            0 => false,
            1 => true,
            k => return Err(bad_config(format!("every_step {k} (0 or 1)"))),
        },
        sort_every: cw[C_SORT_EVERY],
        #[cfg(not(feature = "dim3"))]
        rejection: match cw[C_MODEL] & 3 {
            0 => Rejection::Circle,
            1 => Rejection::Projection,
            2 => Rejection::SeparatingLine,
            k => return Err(bad_config(format!("rejection code {k} (0 to 2)"))),
        },
        normal_model: match cw[C_MODEL] >> MODEL_SHIFT {
            0 => NormalModel::Hooke,
            1 => NormalModel::Hertz,
            k => return Err(bad_config(format!("normal model code {k} (0 Hooke or 1 Hertz)"))),
        },
    })
}

/// The "walls" section: [`WALL_WORDS`] values per wall, the material last.
pub(super) fn wall_words(walls: &[Wall]) -> Vec<f64> {
    walls
        .iter()
        .flat_map(|w| {
            let mut v = [0.0; WALL_WORDS];
            #[cfg(not(feature = "dim3"))]
            {
                let l = &w.line;
                v[..6].copy_from_slice(&[
                    l.point[0],
                    l.point[1],
                    l.normal[0],
                    l.normal[1],
                    l.velocity[0],
                    l.velocity[1],
                ]);
            }
            #[cfg(feature = "dim3")]
            {
                let (kind, point, dir, rest) = match &w.surface {
                    Surface::Plane(p) => (0.0, p.point, p.normal, p.velocity),
                    Surface::Cylinder(c) => (1.0, c.point, c.axis, [c.radius, c.spin, c.growth]),
                };
                v[0] = kind;
                v[1..4].copy_from_slice(&point);
                v[4..7].copy_from_slice(&dir);
                v[7..10].copy_from_slice(&rest);
            }
            v[WALL_WORDS - 1] = w.material as f64;
            v
        })
        .collect()
}

/// One wall from its [`WALL_WORDS`] values (the material checked by the caller).
pub(super) fn wall_from(w: &[f64], material: u16) -> std::result::Result<Wall, String> {
    #[cfg(not(feature = "dim3"))]
    return Ok(Wall {
        line: LineWall {
            point: [w[0], w[1]],
            normal: [w[2], w[3]],
            velocity: [w[4], w[5]],
            // A tilted wall's spin is its tilt's, set from "walls.tilt".
            spin: 0.0,
        },
        material,
        removed: false,
    });
    #[cfg(feature = "dim3")]
    {
        let v3 = |k: usize| [w[k], w[k + 1], w[k + 2]];
        let surface = if w[0] == 0.0 {
            Surface::Plane(PlaneWall {
                point: v3(1),
                normal: v3(4),
                velocity: v3(7),
                spin: [0.0; 3],
            })
        } else if w[0] == 1.0 {
            // The tenth value is the radius' growth (0 in files from before servos on
            // cylinders, where it had to be 0).
            Surface::Cylinder(CylinderWall {
                point: v3(1),
                axis: v3(4),
                radius: w[7],
                spin: w[8],
                growth: w[9],
            })
        } else {
            return Err(format!("kind {} (0: a plane; 1: a cylinder)", w[0]));
        };
        Ok(Wall {
            surface,
            material,
            removed: false,
        })
    }
}

/// Typed, length-checked copies of sections.
pub(super) struct Reader<'a> {
    pub(super) src: &'a dyn SectionSource,
}

impl Reader<'_> {
    pub(super) fn err(&self, section: &str, msg: String) -> EngineError {
        EngineError::State {
            section: section.to_string(),
            msg,
        }
    }

    /// The whole section as a vector of `T` (one copy; an unaligned source is copied
    /// bytewise).
    pub(super) fn get<T: Pod>(&self, name: &str) -> Result<Vec<T>> {
        let b = self.src.section(name).ok_or_else(|| self.err(name, "missing".into()))?;
        let size = std::mem::size_of::<T>();
        if b.len() % size != 0 {
            return Err(self.err(name, format!("{} bytes, not a multiple of {size}", b.len())));
        }
        Ok(match bytemuck::try_cast_slice::<u8, T>(b) {
            Ok(v) => v.to_vec(),
            Err(_) => {
                let mut v = vec![T::zeroed(); b.len() / size];
                bytemuck::cast_slice_mut::<T, u8>(&mut v).copy_from_slice(b);
                v
            }
        })
    }

    /// As `get`, and exactly `len` elements.
    pub(super) fn exact<T: Pod>(&self, name: &str, len: usize) -> Result<Vec<T>> {
        let v = self.get::<T>(name)?;
        if v.len() != len {
            return Err(self.err(name, format!("{} elements, expected {len}", v.len())));
        }
        Ok(v)
    }
}

/// Words of a pair table ("pair.table"): the laws (rolling: 0 epsd2, 1 cdt; plus 2 for
/// sjkr2's cohesion), then per pair of
/// materials, row-major, kn, kt, gamma_n, gamma_t, friction, cohesion, rolling friction.
/// None where the table is the materials' mixing without extras (a checkpoint then has
/// no such section, as files from before it).
const PAIR_WORDS: usize = 7;

pub(super) fn pair_table_words(t: &PairTable, materials: &[Material]) -> Option<Vec<f64>> {
    if *t == PairTable::new(materials) {
        return None;
    }
    // The rolling law (0 epsd2, 1 cdt), plus 2 for sjkr2's cohesion (files from before
    // sjkr2 hold 0 or 1).
    let model = match t.rolling {
        RollingModel::ElasticPlastic => 0.0,
        RollingModel::ConstantTorque => 1.0,
    } + match t.cohesion {
        CohesionModel::Sjkr => 0.0,
        CohesionModel::Sjkr2 => 2.0,
    };
    let pairs = t
        .params
        .iter()
        .zip(&t.extras)
        .flat_map(|(p, e)| [p.kn, p.kt, p.gamma_n, p.gamma_t, p.mu, e.cohesion, e.rolling_friction]);
    Some(std::iter::once(model).chain(pairs).collect())
}

/// The pair table of a checkpoint: its "pair.table" section, else the materials' mixing.
pub(super) fn pair_table_from(r: &Reader, materials: &[Material]) -> Result<PairTable> {
    let mut t = PairTable::new(materials);
    if r.src.section("pair.table").is_none() {
        return Ok(t);
    }
    let n = materials.len();
    let words: Vec<f64> = r.exact("pair.table", 1 + PAIR_WORDS * n * n)?;
    let w = words[0];
    if ![0.0, 1.0, 2.0, 3.0].contains(&w) {
        return Err(r.err(
            "pair.table",
            format!("laws {w}, not 0 to 3 (rolling 0 or 1, plus 2 for sjkr2)"),
        ));
    }
    t.rolling = if w % 2.0 == 0.0 {
        RollingModel::ElasticPlastic
    } else {
        RollingModel::ConstantTorque
    };
    t.cohesion = if w >= 2.0 {
        CohesionModel::Sjkr2
    } else {
        CohesionModel::Sjkr
    };
    for (k, w) in words[1..].chunks_exact(PAIR_WORDS).enumerate() {
        t.params[k] = ContactParams {
            kn: w[0],
            kt: w[1],
            gamma_n: w[2],
            gamma_t: w[3],
            mu: w[4],
        };
        t.extras[k] = PairExtras {
            cohesion: w[5],
            rolling_friction: w[6],
        };
    }
    t.check(n).map_err(|m| r.err("pair.table", m))?;
    Ok(t)
}

/// The rolling torques of `len` contacts from `name`: finite, and there exactly when the
/// table has cohesion or rolling resistance (else none: empty).
pub(super) fn rolling_from(r: &Reader, name: &str, len: usize, extras: bool) -> Result<Vec<[f64; ANG]>> {
    match (r.src.section(name).is_some(), extras) {
        (false, false) => Ok(Vec::new()),
        (true, false) => Err(r.err(name, "rolling torques without cohesion or rolling friction".into())),
        (_, true) => {
            let v: Vec<[f64; ANG]> = r.exact(name, len)?;
            if let Some(k) = v.iter().position(|m| !m.iter().all(|x| x.is_finite())) {
                return Err(r.err(name, format!("entry {k}: rolling torque {:?} is not finite", v[k])));
            }
            Ok(v)
        }
    }
}

/// Words of the drives' laws ("drives.laws", only where a drive has them): per drive, 0
/// (constant speed) or 1 then the slide (0, or 1, the direction's two values, the law's
/// kind, count and values) and the turn (0, or 1, kind, count, values); the law words as
/// in [`Displacement::words`].
#[cfg(not(feature = "dim3"))]
pub(super) fn drive_law_words(drives: &[crate::drive::Drive]) -> Option<Vec<f64>> {
    if drives.iter().all(|d| d.laws.is_none()) {
        return None;
    }
    let mut words = Vec::new();
    for d in drives {
        let Some(laws) = &d.laws else {
            words.push(0.0);
            continue;
        };
        words.push(1.0);
        match &laws.slide {
            None => words.push(0.0),
            Some((dir, l)) => {
                words.extend([1.0, dir[0], dir[1]]);
                l.push_words(&mut words);
            }
        }
        match &laws.turn {
            None => words.push(0.0),
            Some(l) => {
                words.push(1.0);
                l.push_words(&mut words);
            }
        }
    }
    Some(words)
}

/// Words read in order.
pub(super) struct WordReader<'a>(pub(super) &'a [f64]);

impl<'a> WordReader<'a> {
    /// The next `n` words, or None past the end.
    pub(super) fn take(&mut self, n: usize) -> Option<&'a [f64]> {
        if n > self.0.len() {
            return None;
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Some(head)
    }

    /// The next law of time, as [`Displacement::push_words`] wrote it (kind, count of
    /// values, values); its values are not checked ([`Displacement::check`]).
    pub(super) fn law(&mut self) -> std::result::Result<Displacement, String> {
        let head = self.take(2).ok_or("cut short")?;
        let (kind, count) = (head[0], head[1]);
        if !(count >= 0.0 && count.fract() == 0.0 && count < 1e9) {
            return Err(format!("a law of {count} values"));
        }
        let values = self.take(count as usize).ok_or("cut short")?;
        Displacement::from_words(kind, values).ok_or_else(|| format!("law {kind} with {count} values"))
    }
}

/// The index a word names among `walls` walls.
pub(super) fn wall_index(w: f64, walls: usize) -> std::result::Result<usize, String> {
    if w >= 0.0 && w.fract() == 0.0 && (w as usize) < walls {
        Ok(w as usize)
    } else {
        Err(format!("wall {w}: not one of {walls} walls"))
    }
}

/// The laws of `n` drives from "drives.laws" (none without it), each checked.
#[cfg(not(feature = "dim3"))]
pub(super) fn drive_laws_from(r: &Reader, n: usize) -> Result<Vec<Option<crate::drive::DriveLaws>>> {
    if r.src.section("drives.laws").is_none() {
        return Ok(vec![None; n]);
    }
    let words: Vec<f64> = r.get("drives.laws")?;
    let bad = |m: String| r.err("drives.laws", m);
    let mut w = WordReader(&words);
    let mut out = Vec::with_capacity(n);
    for d in 0..n {
        let cut = || bad(format!("drive {d}: cut short"));
        let flag = |w: &mut WordReader, what: &str| match w.take(1).ok_or_else(cut)?[0] {
            0.0 => Ok(false),
            1.0 => Ok(true),
            x => Err(bad(format!("drive {d}: {what} flag {x}, not 0 or 1"))),
        };
        let law = |w: &mut WordReader| w.law().map_err(|m| bad(format!("drive {d}: {m}")));
        if !flag(&mut w, "laws")? {
            out.push(None);
            continue;
        }
        let slide = if flag(&mut w, "slide")? {
            let dir = w.take(2).ok_or_else(cut)?;
            Some(([dir[0], dir[1]], law(&mut w)?))
        } else {
            None
        };
        let turn = if flag(&mut w, "turn")? {
            Some(law(&mut w)?)
        } else {
            None
        };
        let laws = crate::drive::DriveLaws { slide, turn };
        laws.check().map_err(|m| bad(format!("drive {d}: {m}")))?;
        out.push(Some(laws));
    }
    if !w.0.is_empty() {
        return Err(bad(format!("{} words past the last drive", w.0.len())));
    }
    Ok(out)
}

/// Words of the moving walls ("walls.motion"): per wall, its index, direction and origin
/// per axis, the law (0 velocity, 1 sine, 2 table), the count of the law's values, then
/// them (v; amplitude, frequency, phase; t0, s0, t1, s1, ...).
pub(super) fn wall_motion_words(motions: &[WallMotion]) -> Vec<f64> {
    let mut words = Vec::new();
    for m in motions {
        words.push(m.wall as f64);
        words.extend(m.direction);
        words.extend(m.origin);
        m.law.push_words(&mut words);
    }
    words
}

/// The moving walls of a checkpoint (none without "walls.motion"), with where each was when
/// the wall contacts were listed ("walls.listed"), for `walls` walls.
pub(super) fn wall_motions_from(r: &Reader, walls: &[Wall]) -> Result<Vec<WallMotion>> {
    if r.src.section("walls.motion").is_none() {
        return Ok(Vec::new());
    }
    let words: Vec<f64> = r.get("walls.motion")?;
    let bad = |m: String| r.err("walls.motion", m);
    let mut motions: Vec<WallMotion> = Vec::new();
    let mut w = WordReader(&words);
    while !w.0.is_empty() {
        let head = w
            .take(1 + 2 * DIM)
            .ok_or_else(|| bad(format!("motion {} cut short", motions.len())))?;
        let index = wall_index(head[0], walls.len()).map_err(bad)?;
        if motions.iter().any(|m| m.wall == index) {
            return Err(bad(format!("wall {index} moves twice")));
        }
        let direction: Vector = std::array::from_fn(|a| head[1 + a]);
        let origin: Vector = std::array::from_fn(|a| head[1 + DIM + a]);
        let law = w.law().map_err(|m| bad(format!("wall {index}: {m}")))?;
        law.check().map_err(|m| bad(format!("wall {index}: {m}")))?;
        let unit = (direction.iter().map(|d| d * d).sum::<f64>() - 1.0).abs() < 1e-12;
        if !(unit && origin.iter().all(|o| o.is_finite())) {
            return Err(bad(format!("wall {index}: direction {direction:?}, origin {origin:?}")));
        }
        motions.push(WallMotion {
            wall: index,
            direction,
            origin,
            law,
            start: 0.0,
            listed: origin,
        });
    }
    let listed: Vec<f64> = r.exact("walls.listed", DIM * motions.len())?;
    if listed.iter().any(|x| !x.is_finite()) {
        return Err(r.err("walls.listed", "a position is not finite".into()));
    }
    for (m, at) in motions.iter_mut().zip(listed.chunks_exact(DIM)) {
        m.listed = std::array::from_fn(|a| at[a]);
    }
    // Files without "walls.motion.start" (every motion from time 0) came before stages.
    if r.src.section("walls.motion.start").is_some() {
        let starts: Vec<f64> = r.exact("walls.motion.start", motions.len())?;
        if let Some(k) = starts.iter().position(|t| !(t.is_finite() && *t >= 0.0)) {
            return Err(r.err("walls.motion.start", format!("motion {k}: start {}", starts[k])));
        }
        for (m, t) in motions.iter_mut().zip(starts) {
            m.start = t;
        }
    }
    Ok(motions)
}

/// The walls' states of a checkpoint: the walls taken away ("walls.removed", their
/// indices; none without it) marked in `walls`, then the walls moved by a law and those
/// under a servo, none of them removed.
pub(super) fn wall_states_from(r: &Reader, walls: &mut [Wall]) -> Result<(Vec<WallMotion>, Vec<WallServo>)> {
    if r.src.section("walls.removed").is_some() {
        for (k, &w) in r.get::<f64>("walls.removed")?.iter().enumerate() {
            let index = w as usize;
            if !(w >= 0.0 && w.fract() == 0.0 && index < walls.len()) || walls[index].removed {
                return Err(r.err(
                    "walls.removed",
                    format!("entry {k}: wall {w} (of {}), or twice", walls.len()),
                ));
            }
            walls[index].removed = true;
        }
    }
    let motions = wall_motions_from(r, walls)?;
    let servos = wall_servos_from(r, walls, &motions)?;
    let moved = motions.iter().map(|m| m.wall).chain(servos.iter().map(|s| s.wall));
    if let Some(w) = moved.into_iter().find(|&w| walls[w].removed) {
        return Err(r.err("walls.removed", format!("wall {w} is removed, yet it moves")));
    }
    Ok((motions, servos))
}

/// The wall-contact list of a checkpoint, for `n` particles and `walls` walls (its rolling
/// torques where the pair table has `extras`): sorted by (particle, wall), each pair once.
pub(super) fn wall_contacts_from(r: &Reader, n: usize, walls: &[Wall], extras: bool) -> Result<WallContacts> {
    let mut wc = WallContacts::default();
    wc.p = r.get("wallc.p")?;
    let m = wc.p.len();
    wc.w = r.exact("wallc.w", m)?;
    wc.xi = r.exact::<Spring>("wallc.xi", m)?;
    wc.area = r.exact("wallc.area", m)?;
    wc.rolling = rolling_from(r, "wallc.rolling", m, extras)?;
    wc.rolling_state = extras;
    for k in 0..m {
        if wc.p[k] as usize >= n {
            return Err(r.err("wallc.p", format!("entry {k}: particle {} of {n}", wc.p[k])));
        }
        if wc.w[k] as usize >= walls.len() || walls[wc.w[k] as usize].removed {
            return Err(r.err(
                "wallc.w",
                format!("entry {k}: wall {} of {}, or one removed", wc.w[k], walls.len()),
            ));
        }
        // The list's rebuild merges by (particle, wall) and the pool cuts it at
        // particles: it must be sorted, each pair once.
        if k > 0 && (wc.p[k - 1], wc.w[k - 1]) >= (wc.p[k], wc.w[k]) {
            return Err(r.err(
                "wallc.p",
                format!("entry {k}: (particle, wall) pairs not in increasing order"),
            ));
        }
    }
    Ok(wc)
}

/// The walls' state sections: "walls.removed" (the indices of the walls taken away),
/// "walls.motion" and "walls.listed" (walls moved by a law), "walls.motion.start" (where
/// a law's clock does not start at time 0),
/// "walls.servo" (per wall under a servo: its index, direction and origin per axis, the
/// target, gain and maximum speed, then s, v, the last load and where it was listed per
/// axis); none where no wall moves.
pub(super) fn moving_wall_records(
    walls: &[Wall],
    motions: &[WallMotion],
    servos: &[WallServo],
) -> Vec<(&'static str, Vec<f64>)> {
    let mut out = Vec::new();
    let removed: Vec<f64> = (0..walls.len())
        .filter(|&w| walls[w].removed)
        .map(|w| w as f64)
        .collect();
    if !removed.is_empty() {
        out.push(("walls.removed", removed));
    }
    if !motions.is_empty() {
        out.push(("walls.motion", wall_motion_words(motions)));
        out.push(("walls.listed", motions.iter().flat_map(|m| m.listed).collect()));
        if motions.iter().any(|m| m.start != 0.0) {
            out.push(("walls.motion.start", motions.iter().map(|m| m.start).collect()));
        }
    }
    if !servos.is_empty() {
        let words = servos.iter().flat_map(|sv| {
            let mut w = vec![sv.wall as f64];
            w.extend(sv.direction);
            w.extend(sv.origin);
            w.extend([sv.servo.target, sv.servo.gain, sv.servo.max_speed, sv.s, sv.v, sv.load]);
            w.extend(sv.listed);
            w
        });
        out.push(("walls.servo", words.collect()));
        if servos.iter().any(|sv| !sv.across.is_empty()) {
            let across = servos.iter().flat_map(|sv| {
                let mut w = vec![sv.across.len() as f64];
                w.extend(sv.across.iter().flatten().map(|&x| x as f64));
                w
            });
            out.push(("walls.servo.across", across.collect()));
        }
    }
    out
}

/// Words per servo in "walls.servo".
const SERVO_WORDS: usize = 1 + 3 * DIM + 6;

/// The walls under a servo of a checkpoint (none without "walls.servo"): lines or planes of
/// `walls`, none of them also moved by a law, each once, their values finite.
pub(super) fn wall_servos_from(r: &Reader, walls: &[Wall], motions: &[WallMotion]) -> Result<Vec<WallServo>> {
    if r.src.section("walls.servo").is_none() {
        return Ok(Vec::new());
    }
    let words: Vec<f64> = r.get("walls.servo")?;
    if !words.len().is_multiple_of(SERVO_WORDS) {
        return Err(r.err(
            "walls.servo",
            format!("{} values, not {SERVO_WORDS} per servo", words.len()),
        ));
    }
    let mut servos: Vec<WallServo> = Vec::new();
    for w in words.chunks_exact(SERVO_WORDS) {
        let index = w[0] as usize;
        let taken = motions.iter().any(|m| m.wall == index) || servos.iter().any(|s| s.wall == index);
        if !(w[0] >= 0.0 && w[0].fract() == 0.0 && index < walls.len()) || taken {
            return Err(r.err("walls.servo", format!("wall {}: no wall free to move", w[0])));
        }
        let at = |k: usize| -> Vector { std::array::from_fn(|a| w[k + a]) };
        let servo = Servo {
            target: w[1 + 2 * DIM],
            gain: w[2 + 2 * DIM],
            max_speed: w[3 + 2 * DIM],
        };
        servo
            .check()
            .map_err(|m| r.err("walls.servo", format!("wall {index}: {m}")))?;
        let sv = WallServo {
            wall: index,
            direction: at(1),
            origin: at(1 + DIM),
            servo,
            s: w[4 + 2 * DIM],
            v: w[5 + 2 * DIM],
            load: w[6 + 2 * DIM],
            listed: at(7 + 2 * DIM),
            across: Vec::new(),
        };
        let unit = (sv.direction.iter().map(|d| d * d).sum::<f64>() - 1.0).abs() < 1e-12;
        if !(unit && w.iter().all(|x| x.is_finite())) {
            return Err(r.err("walls.servo", format!("wall {index}: {w:?}")));
        }
        servos.push(sv);
    }
    // The faces' pairs (files without "walls.servo.across" have servos to forces only):
    // per servo, the count of pairs, then the pairs.
    if r.src.section("walls.servo.across").is_some() {
        let words: Vec<f64> = r.get("walls.servo.across")?;
        let bad = |m: String| r.err("walls.servo.across", m);
        let mut k = 0;
        for sv in &mut servos {
            let count = *words
                .get(k)
                .ok_or_else(|| bad(format!("cut short at servo of wall {}", sv.wall)))?;
            let n = count as usize;
            if !(count >= 0.0 && count.fract() == 0.0 && n < DIM && k + 1 + 2 * n <= words.len()) {
                return Err(bad(format!("wall {}: {count} pairs", sv.wall)));
            }
            for p in words[k + 1..k + 1 + 2 * n].chunks_exact(2) {
                let ok = |w: f64| {
                    w >= 0.0 && w.fract() == 0.0 && (w as usize) < walls.len() && walls[w as usize].point().is_some()
                };
                if !(ok(p[0]) && ok(p[1]) && p[0] != p[1]) {
                    return Err(bad(format!("wall {}: pair {p:?}", sv.wall)));
                }
                sv.across.push([p[0] as usize, p[1] as usize]);
            }
            k += 1 + 2 * n;
        }
        if k != words.len() {
            return Err(bad(format!("{} values, {k} used", words.len())));
        }
    }
    Ok(servos)
}
