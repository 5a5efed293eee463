//! Checks of a scenario's particles before anything is simulated: what would fail or
//! explode later is refused (or warned about) at set-up, naming the source and a
//! particle.
//!
//! - memory: a count that would not fit in the machine's memory (or in the engine's
//!   particle indices) is refused before anything is allocated ([`check_memory`]);
//! - placement: particles that start outside the domain, behind a wall or deep in it are
//!   refused ([`check_placement`]);
//! - overlaps: coincident and deeply overlapping pairs are warned about
//!   ([`overlap_warnings`]);
//! - time step: a dt that is a large fraction of the contact duration, or absurdly small,
//!   is warned about ([`dt_warnings`]).
use std::ops::Range;
use std::path::Path;

use talus_engine::overlaps::{census, OverlapPair};
use talus_engine::store::BYTES_PER_PARTICLE;
use talus_engine::{ParticleInit, PolygonShape, Simulation, Wall};

use crate::scenario as sc;

/// Overlap, as a fraction of the smaller radius, above which two particles are "deeply
/// overlapping" (a settled bed's contacts overlap by about 2 %, the LAMMPS S2D bed's by
/// at most 1.9 % of a radius).
pub const DEEP_OVERLAP: f64 = 0.1;

/// Overlap with a wall, as a fraction of the particle's radius, above which a particle
/// is refused (the settled S2D bed reaches 1.9 % into its floor).
pub const WALL_OVERLAP: f64 = 0.1;

/// A dt above this fraction of the shortest contact duration is warned about (DEM
/// practice, LAMMPS and LIGGGHTS users' rule of thumb: t_c / dt >= 10, better 50).
pub const DT_FRACTION_WARN: f64 = 0.1;

/// A dt below this (seconds) is warned about: 10^12 steps per simulated second.
pub const DT_TINY: f64 = 1e-12;

/// One `[[particles]]` entry: its name in messages and its particles' places in the
/// build's list.
#[derive(Debug, Clone)]
pub struct Source {
    pub label: String,
    pub range: Range<usize>,
}

/// The label of `[[particles]]` entry `k` in messages.
pub fn source_label(k: usize, source: &sc::ParticleSource) -> String {
    match source {
        sc::ParticleSource::Generate {
            region_min, region_max, ..
        } => format!("particles[{k}] (source = \"generate\", region {region_min:?}..{region_max:?})"),
        sc::ParticleSource::Lammps { file } => format!("particles[{k}] (data file {})", file.display()),
    }
}

/// The scenario's walls as the engine's line walls, each with its name in messages (a box
/// is four walls, three with `open_top`: floor, left, right, top).
pub fn line_walls(walls: &[sc::Wall]) -> Vec<(String, Wall)> {
    let mut out = Vec::new();
    for (k, w) in walls.iter().enumerate() {
        match *w {
            sc::Wall::Line {
                point,
                normal,
                material,
            } => out.push((
                format!("wall[{k}] (line through {point:?}, normal {normal:?})"),
                Wall::fixed(point, normal, material as u16),
            )),
            sc::Wall::Box {
                min,
                max,
                open_top,
                material,
            } => {
                let m = material as u16;
                let side = |s: &str, at: String| format!("wall[{k}] (box, {s}: {at})");
                out.push((
                    side("floor", format!("y = {}", min[1])),
                    Wall::fixed(min, [0.0, 1.0], m),
                ));
                out.push((
                    side("left side", format!("x = {}", min[0])),
                    Wall::fixed(min, [1.0, 0.0], m),
                ));
                out.push((
                    side("right side", format!("x = {}", max[0])),
                    Wall::fixed(max, [-1.0, 0.0], m),
                ));
                if !open_top {
                    out.push((side("top", format!("y = {}", max[1])), Wall::fixed(max, [0.0, -1.0], m)));
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Memory.

/// The most particles the engine can index: the sort-and-sweep packs a 31-bit index into
/// its keys.
pub const MAX_PARTICLES: u64 = talus_engine::MAX_PARTICLES as u64;

/// Candidate pairs per particle the contact table is sized for in the estimate (a dense
/// 2D bed with the default skin has 2.5 to 3; slots grow by doubling).
pub const PAIRS_PER_PARTICLE: u64 = 4;

/// Bytes per particle of a run, by where they are held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    /// The particle store (exact).
    pub store: u64,
    /// The contact table at [`PAIRS_PER_PARTICLE`] slots, its chains' heads, the wall list.
    pub contacts: u64,
    /// The neighbour search (sort-and-sweep: four box ends of 8 bytes, a box of four
    /// `f32`, positions in the sorted lists).
    pub neighbor: u64,
    /// Gear's history (four derivatives of three degrees of freedom), polygon corners
    /// (body and world frame).
    pub extra: u64,
    /// What building the scenario holds at the same time (the particle list, the shapes,
    /// the generated discs), freed before the run.
    pub setup: u64,
}

impl Footprint {
    /// A particle of a run: `vertices` corners (0 for a disc), with Gear or not.
    pub fn of(vertices: u64, gear: bool) -> Footprint {
        let polygon = vertices > 0;
        // i, j (u32), xi (f64), next (u32); polygons add features (u32) and area (f64).
        let slot = 4 + 4 + 8 + 4 + if polygon { 4 + 8 } else { 0 };
        // Chains' heads (u32); wall contacts: about one particle in ten has one, 22 bytes
        // in the list and as many in its rebuild buffers.
        let contacts = PAIRS_PER_PARTICLE * slot + 4 + 5;
        let neighbor = 4 * 8 + 16 + 8;
        let extra = if gear { 12 * 8 } else { 0 } + if polygon { 4 + vertices * 2 * 16 } else { 0 };
        let setup = (std::mem::size_of::<ParticleInit>()
            + std::mem::size_of::<Option<PolygonShape>>()
            + std::mem::size_of::<talus_engine::generate::Disc>()) as u64
            + vertices * 16;
        Footprint {
            store: BYTES_PER_PARTICLE as u64,
            contacts,
            neighbor,
            extra,
            setup,
        }
    }

    pub fn total(&self) -> u64 {
        self.store + self.contacts + self.neighbor + self.extra + self.setup
    }

    fn describe(&self) -> String {
        let mut s = format!(
            "{} bytes per particle: {} in the particle store, {} in the contact table at about \
             {PAIRS_PER_PARTICLE} candidate pairs per particle, {} in the neighbour search",
            self.total(),
            self.store,
            self.contacts,
            self.neighbor
        );
        if self.extra > 0 {
            s += &format!(", {} for Gear's history and polygon corners", self.extra);
        }
        s + &format!(", {} while the scenario is built", self.setup)
    }
}

/// Memory this process may still use, and where that figure comes from: the cgroup's
/// limit less its use where a limit is set and tighter (a batch job, a container), else
/// MemAvailable of /proc/meminfo. None where neither can be read.
pub fn available_memory() -> Option<(u64, &'static str)> {
    let meminfo = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| parse_meminfo(&t));
    let cgroup = cgroup_room();
    match (meminfo, cgroup) {
        (Some(m), Some(c)) if c < m => Some((c, "the cgroup's memory.max less memory.current")),
        (Some(m), _) => Some((m, "MemAvailable in /proc/meminfo")),
        (None, Some(c)) => Some((c, "the cgroup's memory.max less memory.current")),
        (None, None) => None,
    }
}

/// MemAvailable of a /proc/meminfo text, in bytes.
pub fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut f = line.split_ascii_whitespace().skip(1);
    let kb: u64 = f.next()?.parse().ok()?;
    match f.next() {
        Some("kB") | None => kb.checked_mul(1024),
        Some(_) => None,
    }
}

/// Room left under this process's cgroup (v2) memory limit, if it has one.
fn cgroup_room() -> Option<u64> {
    let cg = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let rel = cg.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = Path::new("/sys/fs/cgroup").join(rel.trim_start_matches('/'));
    let max: u64 = std::fs::read_to_string(dir.join("memory.max"))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    let current: u64 = std::fs::read_to_string(dir.join("memory.current"))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(max.saturating_sub(current))
}

fn gib(b: u128) -> String {
    format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)
}

/// Refuse `count` particles (of which `what` names the largest source) when the engine
/// cannot index them, or when the memory they would need (`footprint` each) is more than
/// `available` (from [`available_memory`]; None: not known, only the index limit and the
/// address space are checked, and every large allocation reports its own failure).
pub fn check_memory(
    what: &str,
    count: u64,
    footprint: Footprint,
    available: Option<(u64, &str)>,
) -> Result<(), String> {
    let need = count as u128 * footprint.total() as u128;
    if count > MAX_PARTICLES {
        return Err(format!(
            "{what}: {count} particles are more than talus can hold: at most {MAX_PARTICLES} \
             (the sort-and-sweep's keys hold a 31-bit particle index); they would also need about {} \
             ({})",
            gib(need),
            footprint.describe()
        ));
    }
    if need > isize::MAX as u128 {
        return Err(format!(
            "{what}: {count} particles would need about {}, more than this machine can address ({})",
            gib(need),
            footprint.describe()
        ));
    }
    if let Some((have, from)) = available {
        if need > have as u128 {
            return Err(format!(
                "{what}: {count} particles would need about {} ({}), but this machine has {} available \
                 ({from}); lower the count, or run on a machine with more memory",
                gib(need),
                footprint.describe(),
                gib(have as u128)
            ));
        }
    }
    Ok(())
}

/// Refuse generated counts the engine cannot index or this machine cannot hold (see
/// [`check_memory`]), naming the largest source.
pub fn check_generated_memory(scenario: &sc::Scenario) -> Result<(), String> {
    let mut total = 0u64;
    let mut vertices = 0u64;
    let mut largest: Option<(usize, u64)> = None;
    for (k, src) in scenario.particles.iter().enumerate() {
        if let sc::ParticleSource::Generate { count, shape, .. } = &src.source {
            total = total.saturating_add(*count);
            vertices = vertices.max(match shape {
                sc::ShapeSpec::Disc => 0,
                sc::ShapeSpec::Random { vertices, .. } => vertices[1] as u64,
                sc::ShapeSpec::Regular { vertices } | sc::ShapeSpec::Ellipse { vertices, .. } => *vertices as u64,
            });
            if largest.is_none_or(|(_, c)| *count > c) {
                largest = Some((k, *count));
            }
        }
    }
    // A pouring stream's total arrives over the run: the store must hold it all by then.
    let mut poured = 0u64;
    for i in &scenario.inserts {
        poured = poured.saturating_add(i.total.unwrap_or(0));
        vertices = vertices.max(match &i.shape {
            sc::ShapeSpec::Disc => 0,
            sc::ShapeSpec::Random { vertices, .. } => vertices[1] as u64,
            sc::ShapeSpec::Regular { vertices } | sc::ShapeSpec::Ellipse { vertices, .. } => *vertices as u64,
        });
    }
    let what = match largest {
        None if poured == 0 => return Ok(()),
        None => format!("the poured particles ([[insert]] totals: {poured})"),
        Some((k, count)) if total == count && poured == 0 => format!("particles[{k}] (count = {count})"),
        Some((k, count)) if poured == 0 => {
            format!("the generated particles (largest source: particles[{k}], count = {count})")
        }
        Some((k, count)) => format!(
            "the generated and poured particles (largest source: particles[{k}], count = {count}; [[insert]] totals: {poured})"
        ),
    };
    let total = total.saturating_add(poured);
    let gear = scenario.integrator.scheme == sc::Scheme::Gear;
    check_memory(&what, total, Footprint::of(vertices, gear), available_memory())
}

// ---------------------------------------------------------------------------------------
// Placement.

/// How deep particle `p` reaches behind `wall` (positive: overlapping it; more than the
/// radius: its centre is behind it). A polygon reaches as deep as its deepest corner.
fn wall_depth(p: &ParticleInit, shape: Option<&PolygonShape>, wall: &Wall) -> f64 {
    match shape {
        None => p.radius - wall.line.distance(p.x, p.y),
        Some(sh) => {
            let (s, c) = p.angle.sin_cos();
            sh.vertices
                .iter()
                .map(|v| {
                    let (x, y) = (p.x + c * v[0] - s * v[1], p.y + s * v[0] + c * v[1]);
                    -wall.line.distance(x, y)
                })
                .fold(f64::NEG_INFINITY, f64::max)
        }
    }
}

/// Refuse the sources whose particles start outside the domain (centre beyond its
/// bounds), with their centre behind a wall, or reaching into a wall by more than
/// [`WALL_OVERLAP`] of their radius: such a bed explodes at the first step. The message
/// names each such source, how many of its particles, and the first of them.
pub fn check_placement(
    sources: &[Source],
    inits: &[ParticleInit],
    shapes: &[Option<PolygonShape>],
    domain: &sc::Domain,
    walls: &[(String, Wall)],
) -> Result<(), String> {
    let (lo, hi) = (domain.min, domain.max);
    let mut problems = Vec::new();
    for src in sources {
        let (mut outside, mut first_outside) = (0usize, None);
        let (mut into, mut first_into) = (0usize, None);
        for q in src.range.clone() {
            let p = &inits[q];
            if !(p.x >= lo[0] && p.x <= hi[0] && p.y >= lo[1] && p.y <= hi[1]) {
                outside += 1;
                first_outside.get_or_insert(q);
                continue;
            }
            let shape = shapes.get(q).and_then(|s| s.as_ref());
            let worst = walls
                .iter()
                .enumerate()
                .map(|(w, (_, wall))| (w, wall_depth(p, shape, wall)))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((w, depth)) = worst {
                if depth > WALL_OVERLAP * p.radius {
                    into += 1;
                    first_into.get_or_insert((q, w, depth));
                }
            }
        }
        let n = src.range.len();
        let at = |p: &ParticleInit| format!("particle id {} at ({}, {}) with radius {}", p.id, p.x, p.y, p.radius);
        if let Some(q) = first_outside {
            problems.push(format!(
                "{}: {outside} of its {n} particles start outside the domain {lo:?}..{hi:?}, e.g. {}",
                src.label,
                at(&inits[q])
            ));
        }
        if let Some((q, w, depth)) = first_into {
            let p = &inits[q];
            let how = if depth > p.radius {
                format!("has its centre {:.3e} m behind {}", depth - p.radius, walls[w].0)
            } else {
                format!(
                    "reaches {depth:.3e} m ({:.0} % of its radius) into {}",
                    100.0 * depth / p.radius,
                    walls[w].0
                )
            };
            problems.push(format!(
                "{}: {into} of its {n} particles start behind a wall or reach into it by more than {:.0} % \
                 of their radius, e.g. {} {how}",
                src.label,
                100.0 * WALL_OVERLAP,
                at(p)
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}; such particles are thrown out at the first step: keep the regions (and data files' atoms) \
             inside the domain and on the particles' side of every wall",
            problems.join("; ")
        ))
    }
}

// ---------------------------------------------------------------------------------------
// Overlaps.

/// Warnings about coincident and deeply overlapping pairs of the built simulation, each
/// with how many and an example pair (ids, centres, the sources they come from).
pub fn overlap_warnings(sim: &Simulation, sources: &[Source], inits: &[ParticleInit]) -> Vec<String> {
    let c = census(sim, DEEP_OVERLAP);
    let from = |id: u64| {
        sources
            .iter()
            .find(|s| inits[s.range.clone()].iter().any(|p| p.id == id))
            .map_or(String::new(), |s| format!(", {}", s.label))
    };
    let pair = |e: &OverlapPair| {
        format!(
            "ids {} at ({}, {}){} and {} at ({}, {}){}",
            e.ids[0],
            e.centres[0][0],
            e.centres[0][1],
            from(e.ids[0]),
            e.ids[1],
            e.centres[1][0],
            e.centres[1][1],
            from(e.ids[1])
        )
    };
    let mut out = Vec::new();
    if let Some(e) = &c.coincident_example {
        out.push(format!(
            "{} pair{} of particles start at the same centre, e.g. {}: two sources filling one region, or a \
             data file holding an atom twice? Each such pair is pushed apart along x with the force of a full \
             overlap (the sum of the radii)",
            c.coincident,
            if c.coincident == 1 { "" } else { "s" },
            pair(e)
        ));
    }
    if let Some(e) = &c.deepest {
        out.push(format!(
            "{} pair{} of particles start overlapping by more than {:.0} % of the smaller radius, the deepest \
             {:.0} % ({:.3e} m): {}; the stored energy will throw them apart",
            c.deep,
            if c.deep == 1 { "" } else { "s" },
            100.0 * DEEP_OVERLAP,
            100.0 * e.fraction(),
            e.depth,
            pair(e)
        ));
    }
    out
}

// ---------------------------------------------------------------------------------------
// Time step.

/// Warnings about the time step `dt` against the shortest contact duration `tc`: a dt
/// above [`DT_FRACTION_WARN`] of it resolves contacts in too few steps; a dt below
/// [`DT_TINY`] makes a simulated second take 10^12 steps or more. `steps` is the run's
/// length. Valid runs all the same: warned about, not refused.
pub fn dt_warnings(dt: f64, tc: f64, steps: u64) -> Vec<String> {
    let mut out = Vec::new();
    let ratio = dt / tc;
    let per_second = 1.0 / dt;
    if ratio > DT_FRACTION_WARN {
        let what = if ratio >= 1.0 {
            "longer than a whole contact"
        } else {
            "a large fraction of a contact"
        };
        out.push(format!(
            "dt = {dt:.4e} s is {what}: the shortest contact lasts t_c = {tc:.4e} s, dt/t_c = {ratio:.3} \
             ({:.1} steps per contact; DEM practice, as in LAMMPS and LIGGGHTS, is 10 to 50 or more), so \
             contacts are integrated too coarsely (energy gained, particles passing through one another); \
             {per_second:.3e} steps per simulated second. dt_fraction = 50 gives dt = {:.4e} s",
            1.0 / ratio,
            tc / 50.0
        ));
    }
    if dt < DT_TINY {
        out.push(format!(
            "dt = {dt:.4e} s is tiny: {per_second:.3e} steps per simulated second, so the run's {steps} steps \
             simulate {:.3e} s (the shortest contact lasts t_c = {tc:.4e} s, dt/t_c = {ratio:.3}); is a \
             stiffness (kn) or a mass off by orders of magnitude?",
            steps as f64 * dt
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_is_read_in_bytes_and_anything_else_is_none() {
        let t = "MemTotal:       24576000 kB\nMemFree:         1000 kB\nMemAvailable:   22000000 kB\n";
        assert_eq!(parse_meminfo(t), Some(22_000_000 * 1024));
        assert_eq!(parse_meminfo("MemTotal: 5 kB\n"), None);
        assert_eq!(parse_meminfo("MemAvailable: lots\n"), None);
        assert_eq!(parse_meminfo("MemAvailable: 5 MB\n"), None);
        assert_eq!(parse_meminfo(""), None);
    }

    #[test]
    fn memory_is_refused_with_what_it_needs_and_what_there_is() {
        let f = Footprint::of(0, false);
        assert!(
            f.store == BYTES_PER_PARTICLE as u64 && f.total() > 300 && f.total() < 600,
            "{f:?}"
        );
        let have = Some((16u64 << 30, "MemAvailable in /proc/meminfo"));
        check_memory("particles[0]", 1_000_000, f, have).unwrap();
        let e = check_memory("particles[0]", 100_000_000, f, have).unwrap_err();
        assert!(
            e.contains("particles[0]: 100000000 particles would need about")
                && e.contains(&format!("{} bytes per particle", f.total()))
                && e.contains("contact table")
                && e.contains("16.0 GiB available (MemAvailable in /proc/meminfo)"),
            "{e}"
        );
        // Unknown memory: no refusal below the index limit, which holds without it.
        check_memory("particles[0]", 100_000_000, f, None).unwrap();
        let e = check_memory("particles[1]", 10_000_000_000, f, None).unwrap_err();
        assert!(e.contains("at most 2147483647") && e.contains("particles[1]"), "{e}");
        // Polygons and Gear cost more.
        assert!(Footprint::of(8, true).total() > f.total() + 96 + 8 * 32);
        // This machine: a readable /proc/meminfo gives a figure.
        if std::fs::read_to_string("/proc/meminfo").is_ok() {
            assert!(available_memory().is_some_and(|(b, _)| b > 0));
        }
    }

    #[test]
    fn dt_warnings_give_the_numbers() {
        assert!(dt_warnings(1e-5, 1e-4, 100).is_empty(), "t_c/10 is fine");
        let w = dt_warnings(5e-5, 1e-4, 100);
        assert_eq!(w.len(), 1);
        assert!(
            w[0].contains("dt = 5.0000e-5 s is a large fraction")
                && w[0].contains("t_c = 1.0000e-4 s, dt/t_c = 0.500 (2.0 steps per contact")
                && w[0].contains("2.000e4 steps per simulated second")
                && w[0].contains("dt = 2.0000e-6 s"),
            "{}",
            w[0]
        );
        assert!(dt_warnings(2e-4, 1e-4, 100)[0].contains("longer than a whole contact"));
        let w = dt_warnings(1e-18, 5e-17, 1000);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("1.000e18 steps per simulated second") && w[0].contains("1000 steps simulate 1.000e-15 s"),
            "{}",
            w[0]
        );
    }
}
