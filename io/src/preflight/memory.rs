//! Memory: particle counts the engine cannot index, or this machine cannot hold, are
//! refused before anything is allocated. The estimate is per kind of particle: a disc
//! costs a few hundred bytes, a polygon more with each corner, so a bed of discs with one
//! large polygon is not costed as a bed of large polygons.
use std::collections::BTreeMap;
use std::path::Path;

use talus_engine::sim::Shape;
use talus_engine::store::{BYTES_PER_PARTICLE, LOADS};
use talus_engine::ParticleInit;
use talus_kernels::contact::Spring;
use talus_kernels::math::DIM;

use crate::scenario as sc;

/// The most particles the engine can index: the sort-and-sweep packs a 31-bit index into
/// its keys.
pub const MAX_PARTICLES: u64 = talus_engine::MAX_PARTICLES as u64;

/// Candidate pairs per particle the contact table is sized for in the estimate (a dense
/// 2D bed with the default skin has 2.5 to 3; slots grow by doubling).
pub const PAIRS_PER_PARTICLE: u64 = 4;

/// Bytes per particle of a run, by where they are held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    /// Corners of the particle (0: a disc), for messages.
    pub corners: u64,
    /// The particle store (exact).
    pub store: u64,
    /// The contact table at [`PAIRS_PER_PARTICLE`] slots, its chains' heads, the wall list.
    pub contacts: u64,
    /// The neighbour search (sort-and-sweep: two box ends of 4 bytes per axis, a box of
    /// two `f32` per axis, and as many staged for an update, positions in the sorted lists).
    pub neighbor: u64,
    /// Gear's history (four derivatives of each degree of freedom), polygon corners
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
        // i, j (u32), the spring, next (u32); polygons add features (u32) and area (f64).
        let slot = 4 + 4 + std::mem::size_of::<Spring>() as u64 + 4 + if polygon { 4 + 8 } else { 0 };
        // Chains' heads (u32); wall contacts: about one particle in ten has one, 22 bytes
        // in the list and as many in its rebuild buffers.
        let contacts = PAIRS_PER_PARTICLE * slot + 4 + 5;
        let neighbor = (2 * DIM * 4 + 2 * 2 * DIM * 4 + 8) as u64;
        let extra = if gear { 4 * LOADS as u64 * 8 } else { 0 } + if polygon { 4 + vertices * 2 * 16 } else { 0 };
        let setup = (std::mem::size_of::<ParticleInit>()
            + std::mem::size_of::<Option<Shape>>()
            + std::mem::size_of::<talus_engine::generate::Ball>()) as u64
            + vertices * 16;
        Footprint {
            corners: vertices,
            store: BYTES_PER_PARTICLE as u64,
            contacts,
            neighbor,
            extra,
            setup,
        }
    }

    /// All bytes per particle.
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

    /// `count` particles of this footprint, in words.
    fn kind(&self, count: u64) -> String {
        let s = if count == 1 { "" } else { "s" };
        match self.corners {
            0 if DIM == 3 => format!("{count} sphere{s}"),
            0 => format!("{count} disc{s}"),
            n => format!("{count} polygon{s} of up to {n} corners"),
        }
    }
}

/// What a set of particles needs: each share's count times its footprint, in words.
fn describe(shares: &[(u64, Footprint)]) -> String {
    match shares {
        [(_, f)] => f.describe(),
        _ => shares
            .iter()
            .map(|(c, f)| format!("{} at {}", f.kind(*c), f.describe()))
            .collect::<Vec<_>>()
            .join("; "),
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

/// Refuse the particles of `shares` (how many of each footprint; `what` names them and
/// their largest source) when the engine cannot index them all, or when the memory they
/// would need is more than `available` (from [`available_memory`]; None: not known, only
/// the index limit and the address space are checked, and every large allocation reports
/// its own failure).
pub fn check_memory(what: &str, shares: &[(u64, Footprint)], available: Option<(u64, &str)>) -> Result<(), String> {
    let count = shares.iter().fold(0u64, |n, (c, _)| n.saturating_add(*c));
    let need: u128 = shares.iter().map(|(c, f)| *c as u128 * f.total() as u128).sum();
    if count > MAX_PARTICLES {
        return Err(format!(
            "{what}: {count} particles are more than talus can hold: at most {MAX_PARTICLES} \
             (the sort-and-sweep's keys hold a 31-bit particle index); they would also need about {} \
             ({})",
            gib(need),
            describe(shares)
        ));
    }
    if need > isize::MAX as u128 {
        return Err(format!(
            "{what}: {count} particles would need about {}, more than this machine can address ({})",
            gib(need),
            describe(shares)
        ));
    }
    if let Some((have, from)) = available {
        if need > have as u128 {
            return Err(format!(
                "{what}: {count} particles would need about {} ({}), but this machine has {} available \
                 ({from}); lower the count, or run on a machine with more memory",
                gib(need),
                describe(shares),
                gib(have as u128)
            ));
        }
    }
    Ok(())
}

/// Corners of the particles a source generates, at most (0: discs or spheres).
fn generated_corners(source: &sc::ParticleSource) -> u64 {
    match source {
        #[cfg(not(feature = "dim3"))]
        sc::ParticleSource::Generate { shape, .. } => corners(shape),
        _ => 0,
    }
}

/// Corners of the particles a shape specification makes, at most (0: discs).
#[cfg(not(feature = "dim3"))]
fn corners(shape: &sc::ShapeSpec) -> u64 {
    match shape {
        sc::ShapeSpec::Disc => 0,
        sc::ShapeSpec::Random { vertices, .. } => vertices[1] as u64,
        sc::ShapeSpec::Regular { vertices } | sc::ShapeSpec::Ellipse { vertices, .. } => *vertices as u64,
    }
}

/// The particles a scenario makes before reading any data file, and pours in over the
/// run (the store must hold a stream's total by its end): their name in messages, naming
/// the largest source, and how many of each footprint (a source's shapes at their most
/// corners; single bodies and drums' segments too). None where no source generates or
/// pours any.
pub fn generated_demand(scenario: &sc::Scenario) -> Option<(String, Vec<(u64, Footprint)>)> {
    let gear = scenario.integrator.scheme == sc::Scheme::Gear;
    // Particles by their corners.
    let mut by_corners: BTreeMap<u64, u64> = BTreeMap::new();
    let mut add = |corners: u64, count: u64| {
        let n = by_corners.entry(corners).or_insert(0);
        *n = n.saturating_add(count);
    };
    let mut total = 0u64;
    let mut largest: Option<(usize, u64)> = None;
    for (k, src) in scenario.particles.iter().enumerate() {
        if let sc::ParticleSource::Generate { count, .. } = &src.source {
            total = total.saturating_add(*count);
            add(generated_corners(&src.source), *count);
            if largest.is_none_or(|(_, c)| *count > c) {
                largest = Some((k, *count));
            }
        }
    }
    let mut poured = 0u64;
    for i in &scenario.inserts {
        let n = i.total.unwrap_or(0);
        poured = poured.saturating_add(n);
        #[cfg(not(feature = "dim3"))]
        add(corners(&i.shape), n);
        #[cfg(feature = "dim3")]
        add(0, n);
    }
    #[cfg(not(feature = "dim3"))]
    for b in &scenario.bodies {
        add(b.vertices.len() as u64, 1);
    }
    #[cfg(not(feature = "dim3"))]
    for d in &scenario.drums {
        add(4, d.segments);
    }
    let what = match largest {
        None if poured == 0 => return None,
        None => format!("the poured particles ([[insert]] totals: {poured})"),
        Some((k, count)) if total == count && poured == 0 => format!("particles[{k}] (count = {count})"),
        Some((k, count)) if poured == 0 => {
            format!("the generated particles (largest source: particles[{k}], count = {count})")
        }
        Some((k, count)) => format!(
            "the generated and poured particles (largest source: particles[{k}], count = {count}; [[insert]] totals: {poured})"
        ),
    };
    let shares = by_corners
        .into_iter()
        .filter(|&(_, n)| n > 0)
        .map(|(c, n)| (n, Footprint::of(c, gear)))
        .collect();
    Some((what, shares))
}

/// Refuse generated and poured counts the engine cannot index or this machine cannot
/// hold (see [`check_memory`], [`generated_demand`]), naming the largest source.
pub fn check_generated_memory(scenario: &sc::Scenario) -> Result<(), String> {
    match generated_demand(scenario) {
        Some((what, shares)) => check_memory(&what, &shares, available_memory()),
        None => Ok(()),
    }
}

#[cfg(all(test, not(feature = "dim3")))]
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
        check_memory("particles[0]", &[(1_000_000, f)], have).unwrap();
        let e = check_memory("particles[0]", &[(100_000_000, f)], have).unwrap_err();
        assert!(
            e.contains("particles[0]: 100000000 particles would need about")
                && e.contains(&format!("{} bytes per particle", f.total()))
                && e.contains("contact table")
                && e.contains("16.0 GiB available (MemAvailable in /proc/meminfo)"),
            "{e}"
        );
        // Unknown memory: no refusal below the index limit, which holds without it.
        check_memory("particles[0]", &[(100_000_000, f)], None).unwrap();
        let e = check_memory("particles[1]", &[(10_000_000_000, f)], None).unwrap_err();
        assert!(e.contains("at most 2147483647") && e.contains("particles[1]"), "{e}");
        // The index limit is on the sum of the shares.
        let e = check_memory("all", &[(MAX_PARTICLES, f), (1, Footprint::of(4, false))], None).unwrap_err();
        assert!(e.contains("2147483648 particles are more than"), "{e}");
        // Polygons and Gear cost more.
        assert!(Footprint::of(8, true).total() > f.total() + 96 + 8 * 32);
        // This machine: a readable /proc/meminfo gives a figure.
        if std::fs::read_to_string("/proc/meminfo").is_ok() {
            assert!(available_memory().is_some_and(|(b, _)| b > 0));
        }
    }

    /// A generated source of `count` particles of `shape`.
    fn source(count: u64, shape: sc::ShapeSpec) -> sc::Particles {
        sc::Particles {
            material: 0,
            type_id: 1,
            source: sc::ParticleSource::Generate {
                count,
                radius: sc::RadiusDist::Fixed(1e-3),
                packing: sc::Packing::Lattice,
                region_min: [0.0, 0.0],
                region_max: [1.0, 1.0],
                velocity: [0.0; 2],
                velocity_jitter: 0.0,
                shape,
            },
        }
    }

    /// 8 million discs and one 64-gon cost as 8 million discs and one 64-gon, not as
    /// 8 000 001 64-gons (the footprint of the largest shape applied to all refused them
    /// with 8 GiB available); 8 million 64-gons are still refused, as are the discs where
    /// there is too little for them.
    #[test]
    fn each_source_is_costed_by_its_own_shapes() {
        let disc = Footprint::of(0, false).total() as u128;
        let gon = Footprint::of(64, false).total() as u128;
        let mut s = sc::default_scenario();
        s.inserts.clear();
        s.bodies.clear();
        s.drums.clear();
        s.particles = vec![
            source(8_000_000, sc::ShapeSpec::Disc),
            source(1, sc::ShapeSpec::Regular { vertices: 64 }),
        ];
        let (what, shares) = generated_demand(&s).unwrap();
        assert_eq!(
            what,
            "the generated particles (largest source: particles[0], count = 8000000)"
        );
        assert_eq!(
            shares,
            vec![(8_000_000, Footprint::of(0, false)), (1, Footprint::of(64, false))]
        );
        let eight = 8u64 << 30;
        // Between what they need and what the largest footprint for all would claim.
        assert!(8_000_000 * disc + gon < eight as u128 && 8_000_001 * gon > eight as u128);
        check_memory(&what, &shares, Some((eight, "test"))).unwrap();
        let e = check_memory(&what, &shares, Some((1u64 << 30, "test"))).unwrap_err();
        assert!(
            e.contains(&format!(
                "8000001 particles would need about {} (",
                gib(8_000_000 * disc + gon)
            )) && e.contains("8000000 discs at ")
                && e.contains("1 polygon of up to 64 corners at "),
            "{e}"
        );
        // A poured stream of 64-gons counts its total.
        s.particles.truncate(1);
        s.inserts = sc::parse_scenario(
            &format!(
                "{}\n[[insert]]\nmaterial = \"glass\"\nregion = {{ min = [0.5, 0.2], max = [1.5, 0.29] }}\n\
                 radius = {{ kind = \"fixed\", value = 0.004 }}\nshape = {{ kind = \"regular\", vertices = [64] }}\n\
                 per_insert = 10\nevery = 100\ntotal = 8000000\n",
                sc::DEFAULT_SCENARIO
            ),
            Path::new("test.toml"),
        )
        .unwrap()
        .inserts;
        let (what, shares) = generated_demand(&s).unwrap();
        assert!(what.contains("[[insert]] totals: 8000000"), "{what}");
        let e = check_memory(&what, &shares, Some((eight, "test"))).unwrap_err();
        assert!(e.contains("8000000 polygons of up to 64 corners at "), "{e}");
    }
}
