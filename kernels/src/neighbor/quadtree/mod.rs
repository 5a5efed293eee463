//! The incrementally migrated quadtree (Watanabe, Krengel & Matuttis, "Tree code based
//! neighborhood algorithms for DEM", sections 2.3-2.5); in the 3D build the same source
//! is an octree (2^DIM children per node, each split on every axis).
//!
//! A fixed square (cube) root is split recursively; a leaf holds one entry (it splits when a
//! second one arrives; below `MAX_DEPTH` a leaf keeps a chain, for coincident centres).
//! The tree is never rebuilt during a run: after each step an entry whose centre has left
//! its leaf is lifted to the lowest ancestor that contains its new centre (the "highest
//! node it can reach" of their Fig. 4) and descends from there. A leaf left empty stays,
//! to be reused by the next entry that arrives in its square (empty siblings are reused);
//! only when all 2^DIM children of a node are empty leaves are they given back, to a free
//! list from which later splits take them. Merging as soon as the children would fit in
//! one leaf made every migration a merge plus a split (2.8x faster than a rebuild at 10^5
//! instead of 5x). Per entry the tree keeps only its leaf and its chain links; no particle
//! data lives in the tree.
//!
//! Large and elongated particles are cut into tiles of about the typical particle size,
//! each tile an entry of its own (their Fig. 3), so that the search radius stays that of a
//! typical particle: the search around an entry reaches every entry whose centre can lie
//! within its half-size plus the largest tile half-size (the widened search of their
//! Fig. 7). The tiles of a box cover it exactly (adjacent tiles share the same boundary
//! value), so two boxes overlap exactly when some of their tiles do; a pair of particles
//! with several tiles is reported once.
//!
//! The whole pair set is collected anew at each refresh (particle by particle, so that it
//! comes out sorted) and diffed with the previous one.
mod migrate;
mod nodes;
mod pairs;
#[cfg(test)]
mod tests;
mod tiles;
mod validate;

use super::{
    boxes_overlap, diff_pairs, renumber_boxes, renumber_pairs, round_down, round_up, store_boxes, Aabb, Box64,
    BoxSource, NeighborSearch, DIM, EMPTY_BOX,
};
use crate::math::Vector;

const NONE: u32 = u32::MAX;
/// Children of an interior node: 4 in 2D (a quadtree), 8 in 3D (an octree).
const CHILDREN: usize = 1 << DIM;

/// Deeper than this a leaf chains its entries instead of splitting (coincident centres).
const MAX_DEPTH: u8 = 40;
/// A box whose half-size exceeds this many typical half-sizes is cut into tiles.
const TILE_FACTOR: f64 = 2.0;

/// Work counters, for the benchmarks and the run summary.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct QuadtreeStats {
    /// Trees built from scratch.
    pub rebuilds: u64,
    /// Incremental updates.
    pub refreshes: u64,
    /// Entries that left their leaf and were moved.
    pub migrations: u64,
    /// Leaves split into 2^DIM children.
    pub splits: u64,
    /// Nodes that gave back their 2^DIM empty children.
    pub merges: u64,
}

/// Work buffers of a pair search ([`Quadtree::pairs_of`]), one per thread.
#[derive(Debug, Default, Clone)]
pub struct SearchScratch {
    found: Vec<u32>,
    stack: Vec<u32>,
}

/// One node, all in one record: a descent reads `mid` and `child`, a climb `lo`, `hi` and
/// `parent`, of the same node (one or two cache lines instead of one per field).
#[derive(Debug, Default, Clone, Copy)]
struct Node {
    lo: Vector,
    hi: Vector,
    mid: Vector,
    /// First of the 2^DIM children, or NONE for a leaf.
    child: u32,
    parent: u32,
    /// First entry of a leaf's chain, and the chain's length.
    head: u32,
    count: u32,
    depth: u8,
}

/// The incrementally migrated quadtree (an octree in 3D); see the module documentation.
#[derive(Debug, Default, Clone)]
pub struct Quadtree {
    /// Fixed root square (cube), if the caller gives one (the simulation domain);
    /// otherwise the square around the entries at the last rebuild, padded.
    domain: Option<Box64>,
    boxes: Vec<Aabb>,
    // Entries (tiles): owner particle, centre, half-size.
    owner: Vec<u32>,
    centre: Vec<Vector>,
    half: Vec<Vector>,
    /// Per particle: its entries are `first_entry[p]..first_entry[p + 1]`, and how many
    /// tiles per axis its box was cut into.
    first_entry: Vec<u32>,
    tiles: Vec<[u16; DIM]>,
    /// Largest entry half-size on each axis: how far the search reaches out.
    reach: Vector,
    /// Half-size above which a box is tiled.
    tile_limit: f64,
    // Entry chains of the leaves.
    leaf: Vec<u32>,
    /// The square of each entry's leaf [lo_x, hi_x, lo_y, hi_y (, lo_z, hi_z)], kept with the entry so
    /// that the per-step "still inside?" scan reads entries in order instead of jumping to
    /// each one's leaf (at 10^5 entries that scan was as costly as the moves). In f32,
    /// rounded inwards (by at most two f32 steps): half the bytes to stream, and a centre
    /// inside it is inside the leaf; the few centres within f32 rounding of an edge are
    /// flagged and then found still at home by the exact test of the move.
    leaf_box: Vec<Aabb>,
    next: Vec<u32>,
    prev: Vec<u32>,
    /// Nodes; children come in blocks of 2^DIM (child = (x >= mid) + 2 (y >= mid) (+ 4 (z
    /// >= mid))), the root alone at 0.
    nodes: Vec<Node>,
    free_blocks: Vec<u32>,
    pairs: Vec<(u32, u32)>,
    scratch: Vec<(u32, u32)>,
    /// The particles were renumbered: the entries must be made anew.
    stale: bool,
    search_scratch: SearchScratch,
    /// Entries a leaf holds before it splits: 1 in Watanabe et al.
    capacity: u32,
    /// A tree that is only ever rebuilt keeps no `leaf_box` (see [`Quadtree::rebuilt_only`]).
    rebuilt_only: bool,
    /// Inside `insert_all`: `link` leaves `leaf_box` to one pass at the end.
    bulk: bool,
    /// Work counters.
    pub stats: QuadtreeStats,
}

impl Quadtree {
    /// A tree over a fixed square (cube) containing `domain` ([lo_x, hi_x, lo_y, hi_y (,
    /// lo_z, hi_z)]), or, with
    /// `None`, over the entries found at each rebuild. Centres outside the root are
    /// placed as if clamped to it: always correct, only slower if many are outside.
    pub fn new(domain: Option<Box64>) -> Self {
        Self::with_capacity(domain, 1)
    }

    /// A tree whose leaves split when entry `capacity + 1` arrives (Watanabe et al. split
    /// at the second: `capacity` 1; larger buckets make the tree shallower and the pair
    /// search cheaper).
    pub fn with_capacity(domain: Option<Box64>, capacity: u32) -> Self {
        Quadtree {
            domain,
            capacity: capacity.max(1),
            ..Default::default()
        }
    }

    /// A tree that will only ever be rebuilt (the reference of the tree-update benchmark):
    /// it skips the per-entry leaf squares that only the migration scan reads.
    pub fn rebuilt_only(mut self) -> Self {
        self.rebuilt_only = true;
        self
    }

    /// Leaf capacity (a `Default` tree has 0 stored: it means 1).
    #[inline]
    fn cap(&self) -> u32 {
        self.capacity.max(1)
    }

    /// Live nodes (allocated minus free).
    pub fn nodes(&self) -> usize {
        self.nodes.len() - CHILDREN * self.free_blocks.len()
    }

    /// Entries (tiles) in the tree.
    pub fn entries(&self) -> usize {
        self.owner.len()
    }

    /// Particles (stored boxes): how a caller splits the pair search of
    /// [`Quadtree::pairs_of`].
    pub fn particles(&self) -> usize {
        self.boxes.len()
    }
}

/// Most tiles of one box along one axis: 2^18 tiles per box at most in either dimension
/// (512 per axis in 3D would allow 10^8).
pub const MAX_TILES_PER_AXIS: usize = if DIM == 2 { 512 } else { 64 };

impl NeighborSearch for Quadtree {
    fn name(&self) -> &'static str {
        "quadtree"
    }

    fn rebuild<B: BoxSource>(&mut self, src: &B, pairs: &mut Vec<(u32, u32)>) {
        self.store(src);
        self.make_entries();
        self.rebuild_tree();
        let mut found = std::mem::take(&mut self.pairs);
        self.find_pairs(&mut found);
        pairs.clear();
        pairs.extend_from_slice(&found);
        self.pairs = found;
        self.stale = false;
        self.stats.rebuilds += 1;
    }

    /// The tree is built anew from the saved boxes: its shape may differ from the migrated
    /// tree of the saved run, but its pair set is the same, and the changes are reported
    /// sorted (a diff of sorted sets), so the run continues exactly.
    fn restore(&mut self, boxes: &[Aabb], _ends: [&[u32]; DIM]) -> Result<Option<usize>, String> {
        super::check_stored_boxes(boxes)?;
        self.boxes = boxes.to_vec();
        self.make_entries();
        self.rebuild_tree();
        let mut found = std::mem::take(&mut self.pairs);
        self.find_pairs(&mut found);
        self.pairs = found;
        self.stale = false;
        Ok(Some(self.pairs.len()))
    }

    fn refresh<B: BoxSource>(&mut self, src: &B, adds: &mut Vec<(u32, u32)>, removes: &mut Vec<(u32, u32)>) {
        if !self.set_boxes(src) {
            // New or renumbered particles, or a box that needs another tiling: start afresh.
            let old = std::mem::take(&mut self.pairs);
            let mut new = Vec::new();
            self.rebuild(src, &mut new);
            diff_pairs(&old, &new, adds, removes);
            return;
        }
        self.migrate();
        let mut found = std::mem::take(&mut self.scratch);
        self.find_pairs(&mut found);
        diff_pairs(&self.pairs, &found, adds, removes);
        self.scratch = std::mem::replace(&mut self.pairs, found);
        self.stats.refreshes += 1;
    }

    fn query(&self, r: &Aabb, out: &mut Vec<u32>) {
        out.clear();
        if self.nodes.is_empty() {
            return;
        }
        let s = self.clamp_rect(std::array::from_fn(|k| {
            if k % 2 == 0 {
                r[k] as f64 - self.reach[k / 2]
            } else {
                r[k] as f64 + self.reach[k / 2]
            }
        }));
        let mut stack = Vec::new();
        self.search(0, s, &mut stack, |f| {
            let q = self.owner[f as usize];
            if boxes_overlap(&self.boxes[q as usize], r) {
                out.push(q);
            }
        });
        out.sort_unstable();
        out.dedup();
    }

    fn stored_boxes(&self) -> &[Aabb] {
        &self.boxes
    }

    fn push_particle(&mut self) {
        self.boxes.push(EMPTY_BOX);
    }

    fn renumber(&mut self, map: &[u32]) {
        renumber_boxes(&mut self.boxes, map);
        renumber_pairs(&mut self.pairs, map);
        self.stale = true;
    }

    fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        let entries = self.owner.capacity() * 4
            + (self.centre.capacity() + self.half.capacity()) * size_of::<Vector>()
            + (self.leaf.capacity() + self.next.capacity() + self.prev.capacity()) * 4
            + self.leaf_box.capacity() * size_of::<Aabb>();
        let nodes = self.nodes.capacity() * size_of::<Node>();
        self.boxes.capacity() * size_of::<Aabb>()
            + entries
            + nodes
            + (self.first_entry.capacity() + self.free_blocks.capacity()) * 4
            + self.tiles.capacity() * size_of::<[u16; DIM]>()
            + (self.pairs.capacity() + self.scratch.capacity()) * 8
    }
}
