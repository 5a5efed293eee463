//! The checkpoint sections of turning walls: "walls.turn", the drums turned by laws of
//! time ([`crate::wall_motion::WallTurn`]), per drum its wall, the law's start and the law
//! ([`crate::wall_motion::Displacement::push_words`]); "walls.tilt", the lines and planes
//! turned about a pivot ([`WallTilt`]), per wall its index, the law's start, the pivot,
//! axis, point and normal at angle 0, the normal when its contacts were listed and the
//! lever then, and the law.
use talus_kernels::math::{Vector, ANG, DIM};

use super::state_records::{wall_index, Reader, WordReader};
use crate::error::Result;
use crate::wall_motion::{farthest_corner, WallTilt, WallTurn};
use crate::walls::Wall;

/// The section's words (empty without turns: no section).
pub(super) fn turn_words(turns: &[WallTurn]) -> Vec<f64> {
    let mut words = Vec::new();
    for t in turns {
        words.extend([t.wall as f64, t.start]);
        t.law.push_words(&mut words);
    }
    words
}

/// The drums turned by laws of a checkpoint (none without "walls.turn"): cylinders of
/// `walls`, not removed, each once, their laws sound and their starts finite.
pub(super) fn wall_turns_from(r: &Reader, walls: &[Wall]) -> Result<Vec<WallTurn>> {
    if r.src.section("walls.turn").is_none() {
        return Ok(Vec::new());
    }
    let words: Vec<f64> = r.get("walls.turn")?;
    let bad = |m: String| r.err("walls.turn", m);
    let mut turns: Vec<WallTurn> = Vec::new();
    let mut w = WordReader(&words);
    while !w.0.is_empty() {
        let head = w
            .take(2)
            .ok_or_else(|| bad(format!("turn {} cut short", turns.len())))?;
        let (index, start) = (wall_index(head[0], walls.len()).map_err(bad)?, head[1]);
        if walls[index].removed || walls[index].point().is_some() {
            return Err(bad(format!("wall {index}: not a drum (removed, or a line or plane)")));
        }
        if turns.iter().any(|t| t.wall == index) {
            return Err(bad(format!("wall {index} turns twice")));
        }
        if !(start.is_finite() && start >= 0.0) {
            return Err(bad(format!("wall {index}: start {start}")));
        }
        let law = w.law().map_err(|m| bad(format!("wall {index}: {m}")))?;
        law.check().map_err(|m| bad(format!("wall {index}: {m}")))?;
        turns.push(WallTurn {
            wall: index,
            law,
            start,
        });
    }
    Ok(turns)
}

/// The "walls.tilt" words (empty without tilts: no section).
pub(super) fn tilt_words(tilts: &[WallTilt]) -> Vec<f64> {
    let mut words = Vec::new();
    for t in tilts {
        words.extend([t.wall as f64, t.start]);
        words.extend(t.pivot.iter().chain(&t.axis).chain(&t.point).chain(&t.normal));
        words.extend(t.listed.iter().chain([&t.lever]));
        t.law.push_words(&mut words);
    }
    words
}

/// The tilted walls of a checkpoint (none without "walls.tilt"): lines or planes of
/// `walls`, not removed, not `moved` otherwise, each once; pivots, points and the lever
/// finite, axes and normals of unit length, laws sound; the lever at least the distance
/// from the pivot to the farthest corner of the `domain` (a shorter one would let a
/// contact go unlisted). Each wall's spin is set from its law at `time` (the walls section
/// keeps the pose, not the spin).
pub(super) fn wall_tilts_from(
    r: &Reader,
    walls: &mut [Wall],
    moved: &[usize],
    time: f64,
    domain: [Vector; 2],
) -> Result<Vec<WallTilt>> {
    if r.src.section("walls.tilt").is_none() {
        return Ok(Vec::new());
    }
    let words: Vec<f64> = r.get("walls.tilt")?;
    let bad = |m: String| r.err("walls.tilt", m);
    let mut tilts: Vec<WallTilt> = Vec::new();
    let mut w = WordReader(&words);
    const HEAD: usize = 2 + 4 * DIM + ANG + 1;
    while !w.0.is_empty() {
        let h = w
            .take(HEAD)
            .ok_or_else(|| bad(format!("tilt {} cut short", tilts.len())))?;
        let index = wall_index(h[0], walls.len()).map_err(bad)?;
        let fail = |m: &str| Err(bad(format!("wall {index}: {m}")));
        if walls[index].removed || walls[index].point().is_none() {
            return fail("not a line or plane (removed, or a cylinder)");
        }
        if tilts.iter().any(|t| t.wall == index) || moved.contains(&index) {
            return fail("moves twice");
        }
        let vector = |k: usize| -> Vector { std::array::from_fn(|a| h[k + a]) };
        let (start, pivot, point) = (h[1], vector(2), vector(2 + DIM + ANG));
        let axis: [f64; ANG] = std::array::from_fn(|a| h[2 + DIM + a]);
        let (normal, listed, lever) = (vector(2 + 2 * DIM + ANG), vector(2 + 3 * DIM + ANG), h[HEAD - 1]);
        let unit = |v: &[f64]| (v.iter().map(|x| x * x).sum::<f64>() - 1.0).abs() < 1e-9;
        if !(start.is_finite() && start >= 0.0) {
            return fail(&format!("start {start}"));
        }
        if !h[2..].iter().all(|x| x.is_finite()) || lever < 0.0 {
            return fail("a pivot, point, normal or lever not finite (or a negative lever)");
        }
        let corner = farthest_corner(pivot, domain[0], domain[1], 0.0);
        if lever < corner {
            return fail(&format!(
                "lever {lever} m short of the domain's farthest corner, {corner} m"
            ));
        }
        if !(unit(&axis) && unit(&normal)) {
            return fail(&format!("axis {axis:?} or normal {normal:?} not of unit length"));
        }
        let law = w.law().map_err(|m| bad(format!("wall {index}: {m}")))?;
        law.check().map_err(|m| bad(format!("wall {index}: {m}")))?;
        let tilt = WallTilt {
            wall: index,
            pivot,
            axis,
            point,
            normal,
            law,
            start,
            listed,
            lever,
        };
        let (.., spin) = tilt.pose(time);
        let n = walls[index].normal_at(point);
        walls[index].set_tilt(n, spin);
        tilts.push(tilt);
    }
    Ok(tilts)
}
