//! The checkpoint section "walls.turn": the drums turned by laws of time
//! ([`crate::wall_motion::WallTurn`]), per drum its wall, the law's start and the law
//! ([`Displacement::push_words`]).
use super::state_records::{wall_index, Reader, WordReader};
use crate::error::Result;
use crate::wall_motion::WallTurn;
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
