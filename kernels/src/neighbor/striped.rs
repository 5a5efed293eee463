//! Striped sort (Perkins' thesis, section 5.2, "Striping DESS"): sort-and-sweep in
//! horizontal strips.
//!
//! A sort along x over the whole sample meets ~sqrt(N) box ends per unit of x, so the
//! insertion sort does ~sqrt(N) swaps per moving particle and the whole step grows as
//! N^1.5 (the sweep's exponent 1.33-1.40 in `talus neighbors`). Cut the sample into strips
//! as high as the tallest box, and sort each strip on its own: a strip holds a band one
//! particle high, so the ends met per unit of x, the swaps and the scan per particle no
//! longer grow with N. A box belongs to the strip of its lower edge; it can only overlap
//! boxes of its own strip or of the strips just above and below, so each strip is swept
//! against itself and against the next one up. The pair set is found anew each refresh
//! (each pair once, from the box whose lower x end comes first) and diffed with the last.
use super::{boxes_overlap, scan_query, PairSet, WholeSet};

const IDX_MASK: u64 = (1 << 32) - 1;

/// Lower x end of box p as a sort key: ordered bits of the value, then the index.
#[inline]
fn key(v: f32, p: usize) -> u64 {
    let b = v.to_bits();
    let ordered = if b & 0x8000_0000 != 0 { !b } else { b | 0x8000_0000 };
    ((ordered as u64) << 32) | p as u64
}

/// Sort-and-sweep in horizontal strips (see the module documentation).
#[derive(Debug, Default, Clone)]
pub struct StripedSort {
    boxes: Vec<[f32; 4]>,
    /// Strips: lower edge and height, and per strip its boxes sorted by lower x end.
    y0: f64,
    height: f64,
    strips: Vec<Vec<u64>>,
    /// Strip of each box at the last refresh.
    strip_of: Vec<u32>,
    set: PairSet,
    /// Insertion-sort moves of the last refresh.
    pub swaps: u64,
}

impl StripedSort {
    /// An empty search; the first rebuild stores the boxes.
    pub fn new() -> Self {
        Self::default()
    }

    fn strip(&self, b: &[f32; 4]) -> u32 {
        let s = ((b[2] as f64 - self.y0) / self.height).floor();
        s.clamp(0.0, (self.strips.len() - 1) as f64) as u32
    }

    /// Strips laid out anew over the stored boxes.
    fn layout(&mut self) {
        let n = self.boxes.len();
        let (mut lo, mut hi, mut h) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
        for b in &self.boxes {
            lo = lo.min(b[2] as f64);
            hi = hi.max(b[2] as f64);
            h = h.max((b[3] - b[2]) as f64);
        }
        if n == 0 || !lo.is_finite() {
            (lo, hi, h) = (0.0, 0.0, 1.0);
        }
        // Strips at least as high as the tallest box; not more of them than boxes.
        let h = h.max((hi - lo) / n.max(1) as f64).max(f64::MIN_POSITIVE);
        self.y0 = lo;
        self.height = h;
        let count = (((hi - lo) / h).floor() as usize + 1).min(n.max(1));
        self.strips = vec![Vec::new(); count];
        self.strip_of.clear();
        for p in 0..n {
            let s = self.strip(&self.boxes[p]);
            self.strip_of.push(s);
            self.strips[s as usize].push(key(self.boxes[p][0], p));
        }
        for s in &mut self.strips {
            s.sort_unstable();
        }
    }

    /// Keys renewed, boxes that changed strip moved, each strip insertion-sorted.
    fn update(&mut self) {
        let n = self.boxes.len();
        let mut moved = Vec::new();
        for p in 0..n {
            let s = self.strip(&self.boxes[p]);
            if s != self.strip_of[p] {
                moved.push((p, self.strip_of[p], s));
                self.strip_of[p] = s;
            }
        }
        if !moved.is_empty() {
            let strip_of = &self.strip_of;
            for &(_, from, _) in &moved {
                self.strips[from as usize].retain(|&k| strip_of[(k & IDX_MASK) as usize] == from);
            }
            for &(p, _, to) in &moved {
                self.strips[to as usize].push(key(self.boxes[p][0], p));
            }
        }
        self.swaps = 0;
        for list in &mut self.strips {
            for k in list.iter_mut() {
                let p = (*k & IDX_MASK) as usize;
                *k = key(self.boxes[p][0], p);
            }
            self.swaps += super::insertion_sort(list);
        }
    }

    /// The whole pair set, sorted, into `out`.
    fn find_pairs(&self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        let boxes = &self.boxes;
        let idx = |k: u64| (k & IDX_MASK) as usize;
        let push = |out: &mut Vec<(u32, u32)>, p: usize, q: usize| {
            if boxes_overlap(&boxes[p], &boxes[q]) {
                out.push(if p < q {
                    (p as u32, q as u32)
                } else {
                    (q as u32, p as u32)
                });
            }
        };
        for (s, a) in self.strips.iter().enumerate() {
            // Within the strip: from each box, the later lower ends up to its upper end.
            for (i, &k) in a.iter().enumerate() {
                let p = idx(k);
                let end = boxes[p][1];
                for &kq in &a[i + 1..] {
                    let q = idx(kq);
                    if boxes[q][0] > end {
                        break;
                    }
                    push(out, p, q);
                }
            }
            // Against the strip above: from each box of either, the later lower ends of
            // the other up to its upper end (each pair from the one that starts first).
            let Some(b) = self.strips.get(s + 1) else { continue };
            for (x, y) in [(a, b), (b, a)] {
                let mut from = 0;
                for &k in x {
                    while from < y.len() && y[from] < k {
                        from += 1;
                    }
                    let p = idx(k);
                    let end = boxes[p][1];
                    for &kq in &y[from..] {
                        let q = idx(kq);
                        if boxes[q][0] > end {
                            break;
                        }
                        push(out, p, q);
                    }
                }
            }
        }
        out.sort_unstable();
    }
}

impl WholeSet for StripedSort {
    const NAME: &'static str = "striped";

    kept_fields!();

    fn index(&mut self, fresh: bool) {
        // Lay the strips out anew after a rebuild, new particles, or boxes that outgrew
        // the strips; otherwise move and re-sort.
        let tallest = self.boxes.iter().map(|b| (b[3] - b[2]) as f64).fold(0.0, f64::max);
        if fresh || self.strip_of.len() != self.boxes.len() || tallest > self.height {
            self.layout();
        } else {
            self.update();
        }
    }

    fn find(&self, out: &mut Vec<(u32, u32)>) {
        self.find_pairs(out)
    }

    fn query_index(&self, r: &[f32; 4], out: &mut Vec<u32>) {
        scan_query(&self.boxes, r, out);
    }

    fn forget(&mut self) {
        self.strip_of.clear();
    }

    fn index_bytes(&self) -> usize {
        self.strips.iter().map(|s| s.capacity() * 8).sum::<usize>() + self.strip_of.capacity() * 4
    }
}
