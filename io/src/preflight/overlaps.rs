//! Coincident and deeply overlapping pairs at the start: valid, but the stored energy
//! throws them apart, so they are warned about with how many and an example pair.
use talus_engine::overlaps::{census, OverlapPair};
use talus_engine::{ParticleInit, Simulation};

use super::Source;

/// Overlap, as a fraction of the smaller radius, above which two particles are "deeply
/// overlapping" (a settled bed's contacts overlap by about 2 %, the LAMMPS S2D bed's by
/// at most 1.9 % of a radius).
pub const DEEP_OVERLAP: f64 = 0.1;

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
    let at = |c: &[f64]| c.iter().map(f64::to_string).collect::<Vec<_>>().join(", ");
    let pair = |e: &OverlapPair| {
        format!(
            "ids {} at ({}){} and {} at ({}){}",
            e.ids[0],
            at(&e.centres[0]),
            from(e.ids[0]),
            e.ids[1],
            at(&e.centres[1]),
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
