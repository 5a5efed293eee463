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
    pub(crate) runs: Vec<Vec<PairForce>>,
    /// The particle-wall contacts, in the wall-contact list's order.
    pub walls: Vec<WallForce>,
}

impl ContactLog {
    /// Empty the log, keeping its buffers.
    pub(crate) fn clear(&mut self) {
        self.runs.iter_mut().for_each(Vec::clear);
        self.walls.clear();
    }

    /// Renumber with the particles (`map[old] = new`, or `u32::MAX` for one taken out):
    /// the contacts of particles taken out are dropped.
    pub(crate) fn remap(&mut self, map: &[u32]) {
        for run in &mut self.runs {
            run.retain_mut(|c| {
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
    pub fn pairs(&self) -> impl Iterator<Item = &PairForce> + Clone + '_ {
        self.runs.iter().flatten()
    }

    /// How many pairs touch.
    pub fn pair_count(&self) -> usize {
        self.runs.iter().map(Vec::len).sum()
    }
}
