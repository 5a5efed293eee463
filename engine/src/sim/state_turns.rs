//! The checkpoint section "walls.turn": the drums turned by laws of time
//! ([`crate::wall_motion::WallTurn`]), per drum its wall, the law's start and the law
//! ([`Displacement::push_words`]).
use super::state_records::Reader;
use crate::error::Result;
use crate::wall_motion::{Displacement, WallTurn};
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
    let mut k = 0;
    while k < words.len() {
        const HEAD: usize = 4;
        if k + HEAD > words.len() {
            return Err(bad(format!("a turn cut short at word {k}")));
        }
        let [w, start, kind, count] = [words[k], words[k + 1], words[k + 2], words[k + 3]];
        let index = w as usize;
        if !(w >= 0.0 && w.fract() == 0.0 && index < walls.len()) {
            return Err(bad(format!("wall {w}: not one of {} walls", walls.len())));
        }
        if walls[index].removed || walls[index].point().is_some() {
            return Err(bad(format!("wall {index}: not a drum (removed, or a line or plane)")));
        }
        if turns.iter().any(|t| t.wall == index) {
            return Err(bad(format!("wall {index} turns twice")));
        }
        if !(start.is_finite() && start >= 0.0) {
            return Err(bad(format!("wall {index}: start {start}")));
        }
        if !(count >= 0.0 && count.fract() == 0.0 && k + HEAD + count as usize <= words.len()) {
            return Err(bad(format!("wall {index}: {count} values")));
        }
        let values = &words[k + HEAD..k + HEAD + count as usize];
        let law = Displacement::from_words(kind, values)
            .ok_or_else(|| bad(format!("wall {index}: law {kind} with {} values", values.len())))?;
        law.check().map_err(|m| bad(format!("wall {index}: {m}")))?;
        turns.push(WallTurn {
            wall: index,
            law,
            start,
        });
        k += HEAD + count as usize;
    }
    Ok(turns)
}
