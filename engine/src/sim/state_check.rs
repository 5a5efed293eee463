//! The contents of a restored state checked as strictly as a scenario is: what
//! [`Simulation::from_sections`] copied back passed its checksums and its structural
//! checks (lengths, indices, orders), but a hand-made or damaged file can still hold
//! values no scenario could produce (a negative inverse mass, a NaN angle or spring, an
//! infinite spin, two particles with one id, a polygon whose corners are not where its
//! pose puts them). Each is refused here with the section, the index and the problem,
//! before a step could turn it into NaNs everywhere or a panic.
use std::collections::HashMap;

use talus_kernels::contact::{spring_components, Spring};
#[cfg(not(feature = "dim3"))]
use talus_kernels::geometry::polygon::{area, centroid, polar_moment, to_world};

use super::state::names::{FORCE, GEAR, OMEGA, TORQUE, VEL};
use super::state_records::{wall_words, Reader, WALL_WORDS};
use super::{Config, Simulation};
use crate::contacts::{ContactTable, SlotlessPairs, FREE};
use crate::error::{EngineError, Result};
#[cfg(not(feature = "dim3"))]
use crate::shapes::MAX_VERTICES;
use crate::store::{flags, INERTIA_FACTOR};
use talus_kernels::math::{Aabb, DIM};

/// Relative tolerance of the mass properties recomputed from the shape (they were
/// computed by the same formulas; only the order of operations may differ).
const MASS_TOL: f64 = 1e-9;
#[cfg(not(feature = "dim3"))]
const WALL_VALUES: &str = "point, normal and velocity";
#[cfg(feature = "dim3")]
const WALL_VALUES: &str = "kind, point, normal or axis, velocity or radius and spin";
/// How far a world-frame corner may lie from where the body frame and the pose put it,
/// relative to the bounding radius: the Gear corrector moves a particle after its corners
/// were placed (by far less than this in any stable run); Verlet leaves them exact.
#[cfg(not(feature = "dim3"))]
const WORLD_TOL: f64 = 1e-2;

fn err(section: &str, msg: String) -> EngineError {
    EngineError::State {
        section: section.to_string(),
        msg,
    }
}

/// Check every value of a restored simulation that a scenario would have refused.
pub(super) fn check_contents(sim: &Simulation) -> Result<()> {
    if !(sim.time.is_finite() && sim.time >= 0.0) {
        return Err(err(
            "scalars",
            format!("simulated time {} must be finite and >= 0", sim.time),
        ));
    }
    for (k, m) in sim.materials.iter().enumerate() {
        let c = &m.contact;
        let checks = [
            ("density", m.density, m.density > 0.0),
            ("kn", c.kn, c.kn > 0.0),
            ("kt", c.kt, c.kt >= 0.0),
            ("gamma_n", c.gamma_n, c.gamma_n >= 0.0),
            ("gamma_t", c.gamma_t, c.gamma_t >= 0.0),
            ("mu", c.mu, c.mu >= 0.0),
        ];
        for (what, v, ok) in checks {
            if !(ok && v.is_finite()) {
                return Err(err("materials", format!("material {k} ({}): {what} = {v}", m.name)));
            }
        }
    }
    for (k, w) in wall_words(&sim.walls).chunks_exact(WALL_WORDS).enumerate() {
        if !w.iter().all(|v| v.is_finite()) {
            return Err(err("walls", format!("wall {k}: {WALL_VALUES} must be finite")));
        }
    }
    #[cfg(not(feature = "dim3"))]
    check_drives(sim)?;
    check_inserts(sim)?;
    // Finite values first: the shape and mass checks compute with them.
    check_particles(sim)?;
    #[cfg(not(feature = "dim3"))]
    check_shapes(sim)?;
    check_inertia(sim)?;
    check_springs(sim)?;
    #[cfg(not(feature = "dim3"))]
    check_driven(sim)?;
    Ok(())
}

#[cfg(not(feature = "dim3"))]
fn check_drives(sim: &Simulation) -> Result<()> {
    for (k, d) in sim.driven.drives.iter().enumerate() {
        d.check()
            .map_err(|(section, m)| err(section, format!("drive {k}: {m}")))?;
    }
    Ok(())
}

fn check_particles(sim: &Simulation) -> Result<()> {
    let ps = &sim.particles;
    let n = ps.len();
    // (section, array): every kinematic value and load must be finite (positions were
    // checked against the domain).
    let angle: &[(&str, &[f64])] = if cfg!(feature = "dim3") {
        &[]
    } else {
        &[("p.angle", ps.angle.as_slice())]
    };
    let finite = angle
        .iter()
        .copied()
        .chain(VEL.into_iter().zip(ps.vel.iter().map(Vec::as_slice)))
        .chain(OMEGA.into_iter().zip(ps.omega.iter().map(Vec::as_slice)))
        .chain(FORCE.into_iter().zip(ps.force.iter().map(Vec::as_slice)))
        .chain(TORQUE.into_iter().zip(ps.torque.iter().map(Vec::as_slice)))
        .chain([("p.inv_mass", ps.inv_mass.as_slice())]);
    for (name, v) in finite {
        if let Some(p) = v.iter().position(|x| !x.is_finite()) {
            return Err(err(
                name,
                format!("particle index {p} (id {}): {} is not finite", ps.id[p], v[p]),
            ));
        }
    }
    if let Some(g) = &sim.gear {
        for (names, arrays) in GEAR.iter().zip([&g.a, &g.b, &g.c, &g.d]) {
            for (name, v) in names.iter().zip(arrays) {
                if let Some(p) = v.iter().position(|x| !x.is_finite()) {
                    return Err(err(name, format!("particle index {p}: {} is not finite", v[p])));
                }
            }
        }
    }
    let mut ids: HashMap<u64, usize> = HashMap::with_capacity(n);
    for p in 0..n {
        let id = ps.id[p];
        if let Some(q) = ids.insert(id, p) {
            return Err(err("p.id", format!("particle indices {q} and {p} both have id {id}")));
        }
        let f = ps.flags[p];
        if f & !(flags::FIXED | flags::DRIVEN) != 0 || f == flags::FIXED | flags::DRIVEN {
            return Err(err(
                "p.flags",
                format!("particle index {p} (id {id}): flags {f:#04x} (0, 1 = fixed or 2 = driven)"),
            ));
        }
        let moving = f == 0;
        let im = ps.inv_mass[p];
        if moving && im <= 0.0 {
            return Err(err(
                "p.inv_mass",
                format!("particle index {p} (id {id}): inverse mass {im}, a free particle needs a positive one"),
            ));
        }
        if !moving && im != 0.0 {
            return Err(err(
                "p.inv_mass",
                format!("particle index {p} (id {id}): fixed or driven with inverse mass {im}, not 0"),
            ));
        }
        let spinning = VEL
            .into_iter()
            .zip(&ps.vel)
            .chain(OMEGA.into_iter().zip(&ps.omega))
            .find(|(_, v)| v[p] != 0.0);
        if let (true, Some((name, _))) = (f == flags::FIXED, spinning) {
            return Err(err(
                name,
                format!("particle index {p} (id {id}) is fixed but has a velocity or spin"),
            ));
        }
    }
    Ok(())
}

fn check_inertia(sim: &Simulation) -> Result<()> {
    let ps = &sim.particles;
    for p in 0..ps.len() {
        let (id, im, ii) = (ps.id[p], ps.inv_mass[p], ps.inv_inertia[p]);
        let moving = ps.flags[p] == 0;
        // Moment of inertia of a uniform disc m r^2 / 2, a sphere 2 m r^2 / 5, a polygon
        // m J / A (as the store and `add_particles_with_shapes` compute them).
        let round = im / (INERTIA_FACTOR * ps.radius[p] * ps.radius[p]);
        #[cfg(not(feature = "dim3"))]
        let round = match sim.shapes.as_ref().filter(|sh| sh.is_polygon(p)) {
            Some(sh) => {
                let v = &sh.body[sh.range(p)];
                im * area(v) / polar_moment(v)
            }
            None => round,
        };
        let expected = if moving { round } else { 0.0 };
        if !(ii.is_finite() && (ii - expected).abs() <= MASS_TOL * expected) {
            return Err(err(
                "p.inv_inertia",
                format!(
                    "particle index {p} (id {id}): inverse moment of inertia {ii}, its mass and shape give {expected}"
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(not(feature = "dim3"))]
fn check_shapes(sim: &Simulation) -> Result<()> {
    let Some(sh) = &sim.shapes else { return Ok(()) };
    let ps = &sim.particles;
    let mut world = [[0.0; 2]; MAX_VERTICES];
    for p in 0..ps.len() {
        let r = sh.range(p);
        if r.is_empty() {
            continue;
        }
        let body = &sh.body[r.clone()];
        // The body frame is centred on the centroid (the centre of mass the pose moves).
        let c = centroid(body);
        let rad = ps.radius[p];
        if !(c[0].is_finite() && c[1].is_finite() && c[0].hypot(c[1]) <= 1e-6 * rad) {
            return Err(err(
                "shape.body",
                format!("particle index {p}: centroid at {c:?}, not at the body origin"),
            ));
        }
        let expected = &mut world[..body.len()];
        to_world(body, [ps.pos[0][p], ps.pos[1][p]], ps.angle[p], expected);
        for (k, (w, e)) in sh.world[r].iter().zip(expected.iter()).enumerate() {
            let off = (w[0] - e[0]).hypot(w[1] - e[1]);
            if !(off.is_finite() && off <= WORLD_TOL * rad) {
                return Err(err(
                    "shape.world",
                    format!(
                        "particle index {p}: corner {k} at {w:?}, its shape and pose put it at {e:?} ({off:e} away)"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The first spring with a component that is not finite: its index, and the component
/// (with its axis in 3D).
fn bad_spring(xi: &[Spring]) -> Option<(usize, String)> {
    xi.iter().enumerate().find_map(|(k, s)| {
        let c = spring_components(s);
        let a = c.iter().position(|v| !v.is_finite())?;
        Some(if c.len() == 1 {
            (k, c[a].to_string())
        } else {
            (k, format!("{} ({} component)", c[a], ["x", "y", "z"][a]))
        })
    })
}

fn check_springs(sim: &Simulation) -> Result<()> {
    if let Some((s, v)) = bad_spring(&sim.contacts.xi) {
        return Err(err(
            "contact.xi",
            format!("slot {s}: tangential spring {v} is not finite"),
        ));
    }
    let wc = &sim.wall_contacts;
    if let Some((k, v)) = bad_spring(&wc.xi) {
        return Err(err(
            "wallc.xi",
            format!("entry {k}: tangential spring {v} is not finite"),
        ));
    }
    if let Some(k) = wc.area.iter().position(|x| !x.is_finite()) {
        return Err(err(
            "wallc.area",
            format!("entry {k}: overlap area {} is not finite", wc.area[k]),
        ));
    }
    Ok(())
}

#[cfg(not(feature = "dim3"))]
fn check_driven(sim: &Simulation) -> Result<()> {
    let d = &sim.driven;
    let ps = &sim.particles;
    let mut seen = vec![false; ps.len()];
    for e in 0..d.len() {
        let p = d.index[e] as usize;
        if ps.flags[p] != flags::DRIVEN {
            return Err(err(
                "driven.index",
                format!("entry {e}: particle index {p} is driven but lacks the DRIVEN flag"),
            ));
        }
        if std::mem::replace(&mut seen[p], true) {
            return Err(err(
                "driven.index",
                format!("entry {e}: particle index {p} is driven twice"),
            ));
        }
        if !d.rel[e].iter().all(|v| v.is_finite()) {
            return Err(err(
                "driven.rel",
                format!("entry {e}: offset {:?} is not finite", d.rel[e]),
            ));
        }
        if !d.angle0[e].is_finite() {
            return Err(err(
                "driven.angle0",
                format!("entry {e}: angle {} is not finite", d.angle0[e]),
            ));
        }
        // Registered at the time it was put under the drive: not later than now.
        if !(d.t0[e].is_finite() && d.t0[e] <= sim.time) {
            return Err(err(
                "driven.t0",
                format!(
                    "entry {e}: start time {} is not a finite time before now ({})",
                    d.t0[e], sim.time
                ),
            ));
        }
    }
    Ok(())
}

/// Insertion streams: settings a scenario could have made, counts that fit together, the
/// next event not before the current step.
fn check_inserts(sim: &Simulation) -> Result<()> {
    let c = &sim.config;
    for (k, ins) in sim.inserts.iter().enumerate() {
        ins.spec
            .check(c.domain_min, c.domain_max, sim.materials.len())
            .map_err(|m| err("insert.spec", format!("stream {k}: {m}")))?;
        for r in [ins.spec.radius.min(), ins.spec.radius.max()] {
            super::check_radius(r, c).map_err(|m| err("insert.spec", format!("stream {k}: {m}")))?;
        }
        let n = &ins.counts;
        let bad = |m: String| Err(err("insert.state", format!("stream {k}: {m}")));
        if n.inserted > n.requested || n.short_events > n.events || n.requested > (1 << 62) {
            return bad(format!(
                "{} inserted of {} requested in {} events, {} short",
                n.inserted, n.requested, n.events, n.short_events
            ));
        }
        if ins.spec.total.is_some_and(|t| n.inserted > t) {
            return bad(format!("{} inserted, more than the total", n.inserted));
        }
        if let Some(next) = ins.next_step() {
            if next < sim.step {
                return bad(format!(
                    "next insertion at step {next}, before the current step {}",
                    sim.step
                ));
            }
        }
    }
    Ok(())
}

/// Every stored box is a particle's box at some earlier step: as wide as its radius and
/// the margin allow (rounded outward), and within the reach of the domain.
pub(super) fn check_boxes_fit(boxes: &[Aabb], radius: &[f64], c: &Config) -> std::result::Result<(), String> {
    let (lo, hi) = (c.domain_min, c.domain_max);
    let extent = (0..DIM).map(|a| hi[a] - lo[a]).fold(0.0, f64::max);
    for (p, (b, &r)) in boxes.iter().zip(radius).enumerate() {
        if *b == talus_kernels::neighbor::EMPTY_BOX {
            continue;
        }
        let e = (r + c.margin) * (1.0 + 1e-5) + 1e-6 * extent;
        let fits = (0..DIM).all(|a| {
            let (l, h) = (b[2 * a] as f64, b[2 * a + 1] as f64);
            h - l <= 2.0 * e && l >= lo[a] - e && h <= hi[a] + e
        });
        if !fits {
            return Err(format!(
                "stored box of particle index {p} {b:?} is not a box of radius {r} plus the margin inside the domain"
            ));
        }
    }
    Ok(())
}

/// The candidate pairs, in slots, far and apart (3D), are distinct and each pair's stored boxes
/// `meet` (in a periodic cell: the boxes of some copy); where the neighbour search counted
/// its set (`found`), the table has as many pairs: then it is exactly that set. (The
/// sweep does not count: it only ever adds pairs whose old boxes did not overlap, so the
/// first two conditions keep it from adding a pair twice.) `n` particles.
pub(super) fn check_table_is_the_set(
    ct: &ContactTable,
    n: usize,
    found: Option<usize>,
    meets: impl Fn(u32, u32) -> bool,
) -> std::result::Result<(), String> {
    for (s, (&i, &j)) in ct.i.iter().zip(&ct.j).enumerate() {
        if i != FREE && !meets(i, j) {
            return Err(format!(
                "slot {s}: pair ({i}, {j}) is in the table but its stored boxes do not overlap"
            ));
        }
    }
    for (list, what) in [(&ct.far, "far"), (&ct.apart, "apart")] {
        if let Some(&[i, j]) = list.pairs().iter().find(|&&[i, j]| !meets(i, j)) {
            return Err(format!(
                "{what} pair ({i}, {j}) is in the table but its stored boxes do not overlap"
            ));
        }
    }
    // Duplicates: along each first particle's chain and its far and apart pairs (each
    // list sorted), a stamp per second particle (O(pairs + particles)). The chains were
    // rebuilt from the slots, so they end.
    let mut stamp = vec![u32::MAX; n];
    let (far, apart) = (ct.far.pairs(), ct.apart.pairs());
    let (mut f, mut a) = (0, 0);
    for i in 0..n {
        let mut s = ct.head[i];
        let chain = std::iter::from_fn(|| {
            (s != u32::MAX).then(|| {
                let j = ct.j[s as usize];
                s = ct.next[s as usize];
                j
            })
        });
        let (start_f, start_a) = (f, a);
        while f < far.len() && far[f][0] as usize == i {
            f += 1;
        }
        while a < apart.len() && apart[a][0] as usize == i {
            a += 1;
        }
        let listed = far[start_f..f].iter().chain(&apart[start_a..a]).map(|p| p[1]);
        for j in chain.chain(listed) {
            let j = j as usize;
            if stamp[j] == i as u32 {
                return Err(format!("pair ({i}, {j}) is in the table twice"));
            }
            stamp[j] = i as u32;
        }
    }
    match found {
        Some(found) if found != ct.len() => Err(format!(
            "{} pairs in the table, but the neighbour search finds {found} pairs of overlapping stored boxes",
            ct.len()
        )),
        _ => Ok(()),
    }
}

/// A 3D table's far or apart pairs (section `name`, `contact.far` or `contact.apart`):
/// each i < j < `n`, in increasing order. A checkpoint written before they existed (format
/// version 2 or older for the far ones, 3 or older for the apart ones) has none: its pairs
/// are all in slots (those that do not touch leave them at the table's next compaction or
/// rebuild), and so has one with the `contact.near` marks of the versions before, which
/// are not read.
pub(super) fn slotless_from(r: &Reader, name: &'static str, n: usize) -> Result<SlotlessPairs> {
    let mut list = SlotlessPairs::default();
    if r.src.section(name).is_none() {
        return Ok(list);
    }
    let pairs: Vec<[u32; 2]> = r.get(name)?;
    for (k, &[i, j]) in pairs.iter().enumerate() {
        let why = if !(i < j && (j as usize) < n) {
            format!("with {n} particles")
        } else if k > 0 && pairs[k - 1] >= [i, j] {
            format!("after {:?}: not in increasing order", pairs[k - 1])
        } else {
            continue;
        };
        return Err(r.err(name, format!("pair {k}: ({i}, {j}) {why}")));
    }
    list.reset(pairs);
    Ok(list)
}

/// Every far pair must be so by its stored boxes (`boxes`, the particles' first): the
/// pairs were tested against these boxes after the update that made them, and a pair
/// wrongly kept far would get no force.
pub(super) fn check_far_pairs(far: &SlotlessPairs, boxes: &[Aabb], radius: &[f64]) -> std::result::Result<(), String> {
    use talus_kernels::neighbor::near_pairs::may_touch;
    match far.pairs().iter().find(|&&[i, j]| may_touch((boxes, radius), i, j)) {
        Some([i, j]) => Err(format!(
            "pair ({i}, {j}) kept far, but its boxes' cores are within reach"
        )),
        None => Ok(()),
    }
}
