//! Verlet lists (Verlet 1967; Muth et al., section 3.1): the pairs whose boxes, enlarged
//! by half a skin on every side, overlap, found with linked cells and kept for as long as
//! every current box still lies inside its enlarged box; each refresh filters the list
//! down to the pairs whose current boxes overlap (the exact set) and diffs it with the
//! last one.
//!
//! The skin is chosen automatically from how long lists last: it starts at a fifth of the
//! median box width, grows by half when a list lasted fewer than `SHORT` refreshes (the
//! particles move fast: rebuilds dominate) and shrinks by a fifth when one lasted more than
//! `LONG` (the list is fatter than needed: filtering dominates). So the rebuild interval
//! follows the largest displacement, as in Muth et al., without the user naming either.
use super::{boxes_overlap, scan_query, Aabb, Box64, Boxes, LinkedCells, NeighborSearch, PairSet, WholeSet, DIM};

/// A list that lasted fewer refreshes than this makes the skin grow.
const SHORT: u64 = 4;
/// One that lasted more makes it shrink.
const LONG: u64 = 40;

/// Verlet lists with an automatic skin (see the module documentation).
#[derive(Debug, Default, Clone)]
pub struct VerletLists {
    boxes: Vec<Aabb>,
    /// Boxes at the last build, enlarged by half the skin on every side.
    enlarged: Vec<Box64>,
    /// Candidate pairs (enlarged boxes overlap), sorted.
    list: Vec<(u32, u32)>,
    cells: LinkedCells,
    /// Skin, and the median box width it is measured against.
    skin: f64,
    width: f64,
    set: PairSet,
    /// Refreshes since the last build.
    age: u64,
    /// Particles added or renumbered: rebuild at the next refresh.
    stale: bool,
    /// Lists built so far.
    pub builds: u64,
    /// Refreshes so far.
    pub refreshes: u64,
}

impl VerletLists {
    /// An empty search; the first rebuild stores the boxes.
    pub fn new() -> Self {
        Self::default()
    }

    /// The current skin (absolute, in box units).
    pub fn skin(&self) -> f64 {
        self.skin
    }

    /// Candidate pairs in the list.
    pub fn list_len(&self) -> usize {
        self.list.len()
    }

    /// A new list around the stored boxes.
    fn build(&mut self) {
        if self.width == 0.0 {
            let mut w: Vec<f64> = self
                .boxes
                .iter()
                .map(|b| (0..DIM).map(|a| (b[2 * a + 1] - b[2 * a]) as f64).fold(0.0, f64::max))
                .filter(|w| w.is_finite())
                .collect();
            if !w.is_empty() {
                let m = w.len() / 2;
                self.width = *w.select_nth_unstable_by(m, |a, b| a.total_cmp(b)).1;
            }
            self.skin = 0.2 * self.width;
        }
        let h = 0.5 * self.skin;
        self.enlarged.clear();
        self.enlarged.extend(
            self.boxes
                .iter()
                .map(|b| std::array::from_fn(|k| if k % 2 == 0 { b[k] as f64 - h } else { b[k] as f64 + h })),
        );
        let mut list = std::mem::take(&mut self.list);
        self.cells.rebuild(&Boxes(&self.enlarged), &mut list);
        self.list = list;
        self.age = 0;
        self.stale = false;
        self.builds += 1;
    }

    /// Is every stored box still inside its enlarged box of the last build?
    fn list_holds(&self) -> bool {
        !self.stale
            && self.enlarged.len() == self.boxes.len()
            && self.boxes.iter().zip(&self.enlarged).all(|(b, e)| {
                (0..2 * DIM).all(|k| {
                    if k % 2 == 0 {
                        b[k] as f64 >= e[k]
                    } else {
                        b[k] as f64 <= e[k]
                    }
                })
            })
    }

    /// The exact pair set: the list's pairs whose stored boxes overlap.
    fn filter(&self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        out.extend(
            self.list
                .iter()
                .copied()
                .filter(|&(p, q)| boxes_overlap(&self.boxes[p as usize], &self.boxes[q as usize])),
        );
    }
}

impl WholeSet for VerletLists {
    const NAME: &'static str = "verlet";

    kept_fields!();

    fn index(&mut self, fresh: bool) {
        if fresh {
            self.build();
            return;
        }
        self.refreshes += 1;
        self.age += 1;
        if !self.list_holds() {
            if !self.stale {
                // Adapt the skin to how long this list lasted.
                if self.age < SHORT {
                    self.skin = (self.skin * 1.5).min(2.0 * self.width);
                } else if self.age > LONG {
                    self.skin = (self.skin * 0.8).max(0.01 * self.width);
                }
            }
            self.build();
        }
    }

    fn find(&self, out: &mut Vec<(u32, u32)>) {
        self.filter(out)
    }

    fn query_index(&self, r: &Aabb, out: &mut Vec<u32>) {
        if self.stale {
            scan_query(&self.boxes, r, out);
            return;
        }
        // The cells hold the enlarged boxes of the last build, which contain the stored
        // ones: ask them, then test the stored boxes.
        self.cells.query(r, out);
        out.retain(|&p| boxes_overlap(&self.boxes[p as usize], r));
    }

    fn forget(&mut self) {
        self.stale = true;
    }

    fn index_bytes(&self) -> usize {
        self.enlarged.capacity() * std::mem::size_of::<Box64>() + self.list.capacity() * 8 + self.cells.memory_bytes()
    }
}
