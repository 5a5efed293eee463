//! The neighbour search on the pool: the sweep's axes sorted in pieces, the quadtree's
//! scan and pair search in pieces.
use super::*;

impl Workers {
    /// The quadtree's refresh on the pool (Watanabe et al.: the migration through unchanged
    /// nodes in parallel): the scan for entries that left their leaf and the pair search
    /// are split over the threads by contiguous ranges and concatenated in range order;
    /// the moves themselves, which change the tree, stay on thread 0. The result is the
    /// serial one exactly. The same for the 3D build's octree.
    pub(crate) fn quadtree_refresh<B: talus_kernels::neighbor::BoxSource>(
        &mut self,
        tree: &mut talus_kernels::neighbor::Quadtree,
        src: &B,
        adds: &mut Vec<(u32, u32)>,
        removes: &mut Vec<(u32, u32)>,
    ) -> Result<()> {
        use talus_kernels::neighbor::{NeighborSearch, SearchScratch};
        if !tree.set_boxes(src) {
            // New particles or a new tiling: a rebuild.
            self.pool.serial(Phase::Neighbor, || tree.refresh(src, adds, removes));
            return Ok(());
        }
        let threads = self.threads();
        let entries = tree.entries();
        // The scan and the walk to each leaver's new leaf in parallel, the moves serial.
        let movers: Vec<Mutex<Vec<(u32, u32)>>> = (0..threads).map(|_| Mutex::new(Vec::new())).collect();
        {
            let t: &talus_kernels::neighbor::Quadtree = tree;
            self.pool.run(Phase::Neighbor, &|k| {
                t.leavers(chunk(entries, k, threads), true, &mut movers[k].lock());
            })?;
        }
        let all: Vec<(u32, u32)> = movers.into_iter().flat_map(|m| m.into_inner()).collect();
        self.pool.serial(Phase::Neighbor, || tree.migrate_listed(&all));
        let n = tree.particles();
        type Part = (Vec<(u32, u32)>, SearchScratch);
        let parts: Vec<Mutex<Part>> = (0..threads).map(|_| Mutex::new(Default::default())).collect();
        {
            let t: &talus_kernels::neighbor::Quadtree = tree;
            self.pool.run(Phase::Neighbor, &|k| {
                let mut part = parts[k].lock();
                let (out, scratch) = &mut *part;
                t.pairs_of(chunk(n, k, threads), scratch, out);
            })?;
        }
        let new: Vec<(u32, u32)> = parts.into_iter().flat_map(|p| p.into_inner().0).collect();
        self.pool
            .serial(Phase::Neighbor, || tree.finish_refresh(new, adds, removes));
        Ok(())
    }

    /// The sort-and-sweep update: the new boxes staged by all threads, then the pieces of
    /// the axes' sorts claimed by the threads (Chen & Matuttis's one thread per axis left
    /// 14 of 16 threads waiting: 14-18 % of the step of 10^5 polygons, BENCHMARKS.md),
    /// then the seams and the merge of the changes on thread 0.
    pub(crate) fn sweep_update<B: talus_kernels::neighbor::BoxSource + Sync>(
        &mut self,
        sweep: &mut talus_kernels::neighbor::SweepAndPrune,
        src: &B,
    ) -> Result<()> {
        let (n, threads) = (src.len(), self.threads());
        {
            let lens = (0..threads).map(|k| chunk(n, k, threads).len());
            let parts: Vec<_> = sweep.staging(n).split(lens).into_iter().map(Mutex::new).collect();
            self.pool.run(Phase::Neighbor, &|t| {
                parts[t].lock().fill(src, chunk(n, t, threads).start);
            })?;
        }
        {
            let pieces: Vec<_> = sweep.pieces(n).into_iter().map(Mutex::new).collect();
            let claims = Dynamic::new(pieces.len(), 1);
            self.pool.run(Phase::Neighbor, &|_| {
                while let Some(k) = claims.claim() {
                    pieces[k].lock().run();
                }
            })?;
        }
        self.pool.serial(Phase::Neighbor, || sweep.finish_update());
        Ok(())
    }
}
