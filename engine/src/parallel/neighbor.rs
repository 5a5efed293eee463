//! The neighbour search on the pool: the sweep's axes sorted in pieces, the quadtree's
//! scan and pair search in pieces; the test of the table's apart pairs (3D) in pieces.
use super::*;

/// Which pairs [`Workers::touching_pairs`] tests.
pub(crate) enum Tier<'a> {
    /// Every pair; those within `gap` of touching (and not touching) listed in `near`.
    All { gap: f64, near: &'a mut Vec<u32> },
    /// The pairs at these indices.
    Near(&'a [u32]),
}

impl Workers {
    /// The indices in `pairs` of those (not marked `FREE`) whose balls touch now, in order,
    /// into `out`: of every pair, with those whose surfaces are less than a gap apart into
    /// the tier's list too (`Tier::All`), or of the listed ones (`Tier::Near`). Each thread
    /// tests a contiguous share, and the shares are concatenated in order.
    pub(crate) fn touching_pairs(
        &mut self,
        pairs: &[[u32; 2]],
        balls: &talus_kernels::neighbor::near_pairs::Balls,
        tier: Tier,
        out: &mut Vec<u32>,
    ) -> Result<()> {
        use talus_kernels::neighbor::near_pairs::{touching_within, Balls};
        let threads = self.threads();
        // The second particles' centres and radii asked for ahead: the list runs in
        // first-particle order, and its second particles are scattered.
        const AHEAD: usize = 16;
        let n = balls.radius.len();
        let (listed, gap) = match &tier {
            Tier::All { gap, .. } => (None, *gap),
            Tier::Near(near) => (Some(*near), 0.0),
        };
        let len = listed.map_or(pairs.len(), |l| l.len());
        let states = &self.threads;
        self.pool.run(Phase::Contacts, &|t| {
            let mut state = states[t].lock();
            let ThreadState {
                apart_found: found,
                apart_near: near,
                ..
            } = &mut *state;
            found.clear();
            near.clear();
            // The balls' arrays cut to one length here, in the thread's own code: a pair's
            // particles checked once against it, not once an array (those checks and the
            // tier's test in each turn of the loop were half its instructions).
            let balls = &Balls {
                pos: balls.pos.map(|p| &p[..n]),
                radius: &balls.radius[..n],
                inv_mass: &balls.inv_mass[..n],
            };
            let ask = |j: u32| {
                if (j as usize) < n {
                    let j = j as usize;
                    for a in balls.pos {
                        crate::forces::prefetch_line(a.as_ptr().wrapping_add(j) as *const u8);
                    }
                    crate::forces::prefetch_line(balls.radius.as_ptr().wrapping_add(j) as *const u8);
                }
            };
            let range = chunk(len, t, threads);
            let end = range.end;
            // Pair k tested; `ALL`: every pair, those near touching listed too.
            #[inline(always)]
            fn test<const ALL: bool>(
                balls: &Balls,
                pairs: &[[u32; 2]],
                k: usize,
                gap: f64,
                found: &mut Vec<u32>,
                near: &mut Vec<u32>,
            ) {
                let [i, j] = pairs[k];
                if j == crate::contacts::FREE {
                    return;
                }
                let (touches, within) = touching_within(balls, i, j, gap);
                if touches {
                    found.push(k as u32);
                } else if ALL && within {
                    near.push(k as u32);
                }
            }
            match listed {
                Some(l) => {
                    let l = &l[range.start..end];
                    for (q, &k) in l.iter().enumerate() {
                        if let Some(&a) = l.get(q + AHEAD) {
                            ask(pairs[a as usize][1]);
                        }
                        test::<false>(balls, pairs, k as usize, gap, found, near);
                    }
                }
                None => {
                    for k in range {
                        if k + AHEAD < end {
                            ask(pairs[k + AHEAD][1]);
                        }
                        test::<true>(balls, pairs, k, gap, found, near);
                    }
                }
            }
        })?;
        out.clear();
        let mut tier_out = match tier {
            Tier::All { near, .. } => {
                near.clear();
                Some(near)
            }
            Tier::Near(_) => None,
        };
        for state in &self.threads {
            let state = state.lock();
            out.extend_from_slice(&state.apart_found);
            if let Some(n) = tier_out.as_mut() {
                n.extend_from_slice(&state.apart_near);
            }
        }
        Ok(())
    }

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
