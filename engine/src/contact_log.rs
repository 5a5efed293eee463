//! The forces of one step, kept per contact for the analysis of a run (stress, coordination,
//! wall forces, the force network): the force phase writes them only on a step the caller
//! asked for ([`crate::Simulation::log_next_run`]), so that a step without analysis runs
//! exactly the loop it ran before (the log is a second sink wrapped around the strategy's,
//! monomorphised apart).
use talus_kernels::math::Vector;

/// A touching pair: particles `i < j` (store indices at the logged step), the force on `i`
/// (`j` gets `-f`) and the overlap. The torques are not kept: nothing reads them, and in 3D
/// they would be 48 more bytes in every record, written by the logged step and read by the
/// analysis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairForce {
    /// First particle (the smaller store index).
    pub i: u32,
    /// Second particle (> i).
    pub j: u32,
    /// The force on `i` (N).
    pub f: Vector,
    /// Depth of the overlap (m; a polygon pair's: its area over the contact line's length).
    /// Zero for two discs (2D): their batched loop's law needs no overlap beyond the force,
    /// and the radii less the distance give it (as the contact network's writer does).
    pub overlap: f64,
}

/// A touching pair as the log keeps it: [`PairForce`] without its overlap, which the
/// run keeps apart, and only once one is not zero (a bed of discs has none: 24 bytes a
/// pair in 2D instead of 32, written by the logged step and read by the analysis).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PairRecord {
    pub i: u32,
    pub j: u32,
    pub f: Vector,
}

/// The touching pairs of one chunk of the force phase, in slot order, and their overlaps:
/// none while every overlap was zero, else one per pair.
#[derive(Debug, Clone, Default)]
pub(crate) struct LogRun {
    pub pairs: Vec<PairRecord>,
    overlaps: Vec<f64>,
}

impl LogRun {
    /// Empty, keeping the buffers, with room for `pairs` more pairs (their overlaps find
    /// room as they come).
    pub fn clear_for(&mut self, pairs: usize) {
        self.pairs.clear();
        self.overlaps.clear();
        self.pairs.reserve(pairs);
    }

    #[inline(always)]
    pub fn push(&mut self, p: PairRecord, overlap: f64) {
        if !self.overlaps.is_empty() {
            self.overlaps.push(overlap);
        } else if overlap != 0.0 {
            self.first_overlap(overlap);
        }
        self.pairs.push(p);
    }

    /// The first overlap that is not zero, of the pair about to be pushed: the ones before
    /// it zero.
    #[cold]
    #[inline(never)]
    fn first_overlap(&mut self, overlap: f64) {
        self.overlaps.resize(self.pairs.len(), 0.0);
        self.overlaps.push(overlap);
    }

    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Pair k with its overlap.
    #[inline]
    pub fn get(&self, k: usize) -> PairForce {
        let p = self.pairs[k];
        PairForce {
            i: p.i,
            j: p.j,
            f: p.f,
            overlap: self.overlaps.get(k).copied().unwrap_or(0.0),
        }
    }

    /// Keep the pairs `keep` says yes to (it may change them), with their overlaps.
    fn retain(&mut self, mut keep: impl FnMut(&mut PairRecord) -> bool) {
        let mut kept = 0;
        for k in 0..self.pairs.len() {
            let mut p = self.pairs[k];
            if keep(&mut p) {
                self.pairs[kept] = p;
                if !self.overlaps.is_empty() {
                    self.overlaps[kept] = self.overlaps[k];
                }
                kept += 1;
            }
        }
        self.pairs.truncate(kept);
        self.overlaps.truncate(kept);
    }
}

/// A particle touching a wall: the wall's force on particle `p` (`f`; the particle's force
/// on the wall is `-f`) and the overlap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WallForce {
    /// The particle (store index).
    pub p: u32,
    /// The wall (index in the simulation's walls).
    pub wall: u16,
    /// The wall's force on the particle (N).
    pub f: Vector,
    /// Depth of the overlap (m; a polygon's: its overlap's area).
    pub overlap: f64,
}

/// The contact forces of the step that ended at `step`, in the contact table's and the
/// wall-contact list's order (particles taken out since: their contacts dropped, the
/// others renumbered). The pairs come in runs, one per chunk of the force phase (no copy
/// into one array: at 10^6 particles that copy cost more than the step); the buffers are
/// kept for the next logged step.
#[derive(Debug, Clone, Default)]
pub struct ContactLog {
    /// The step the forces belong to: the simulation's step count once it ended.
    pub step: u64,
    pub(crate) runs: Vec<LogRun>,
    /// The particle-wall contacts, in the wall-contact list's order.
    pub walls: Vec<WallForce>,
}

impl ContactLog {
    /// Empty the log, keeping its buffers.
    pub(crate) fn clear(&mut self) {
        self.runs.iter_mut().for_each(|r| r.clear_for(0));
        self.walls.clear();
    }

    /// Renumber with the particles (`map[old] = new`, or `u32::MAX` for one taken out):
    /// the contacts of particles taken out are dropped.
    pub(crate) fn remap(&mut self, map: &[u32]) {
        for run in &mut self.runs {
            run.retain(|c| {
                let (a, b) = (map[c.i as usize], map[c.j as usize]);
                if a == u32::MAX || b == u32::MAX {
                    return false;
                }
                if a > b {
                    // The force is on the first particle of the pair.
                    c.f = c.f.map(|x| -x);
                }
                (c.i, c.j) = (a.min(b), a.max(b));
                true
            });
        }
        self.walls.retain_mut(|c| {
            c.p = map[c.p as usize];
            c.p != u32::MAX
        });
    }

    /// The touching pairs, in the table's order.
    pub fn pairs(&self) -> impl Iterator<Item = PairForce> + Clone + '_ {
        self.runs.iter().flat_map(|r| (0..r.len()).map(|k| r.get(k)))
    }

    /// How many pairs touch.
    pub fn pair_count(&self) -> usize {
        self.runs.iter().map(LogRun::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use talus_kernels::math::DIM;

    fn pair(i: u32, j: u32) -> PairRecord {
        PairRecord {
            i,
            j,
            f: [i as f64; DIM],
        }
    }

    /// Overlaps are kept from the first that is not zero on, the ones before it read as
    /// zero, and renumbering keeps each pair's overlap with it.
    #[test]
    fn overlaps_follow_their_pairs() {
        let mut log = ContactLog::default();
        let mut run = LogRun::default();
        run.push(pair(0, 1), 0.0);
        run.push(pair(1, 2), 0.0);
        assert!(run.overlaps.is_empty(), "no overlap kept while all are zero");
        run.push(pair(2, 3), 0.5);
        run.push(pair(3, 4), 0.0);
        run.push(pair(4, 5), 0.25);
        log.runs.push(run);
        let overlaps: Vec<f64> = log.pairs().map(|c| c.overlap).collect();
        assert_eq!(overlaps, [0.0, 0.0, 0.5, 0.0, 0.25]);
        // Particle 2 taken out, the others moved down one; 5 becomes 0 (the pair turns).
        log.remap(&[1, 2, u32::MAX, 3, 4, 0]);
        let kept: Vec<(u32, u32, f64, f64)> = log.pairs().map(|c| (c.i, c.j, c.f[0], c.overlap)).collect();
        assert_eq!(kept, [(1, 2, 0.0, 0.0), (3, 4, 3.0, 0.0), (0, 4, -4.0, 0.25)]);
        log.clear();
        assert_eq!(log.pair_count(), 0);
        log.runs[0].push(pair(0, 1), 0.0);
        assert_eq!(
            log.pairs().next().map(|c| c.overlap),
            Some(0.0),
            "no overlap of the last log left"
        );
    }
}
