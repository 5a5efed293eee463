//! How a phase's work is shared out between the pool's threads: a static split, blocks
//! stolen from the back of other threads' shares, chunks claimed from a counter, guided
//! chunks (large first) and cuts of equal work. Pure bookkeeping, no threads of its own.
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crossbeam::utils::CachePadded;

/// Thread t's share of 0..n in a static split: contiguous, sizes differing by at most one.
pub fn chunk(n: usize, t: usize, threads: usize) -> std::ops::Range<usize> {
    let (q, r) = (n / threads, n % threads);
    let start = t * q + t.min(r);
    start..start + q + usize::from(t < r)
}

/// Cut `s` into consecutive pieces of the given lengths.
pub(crate) fn split_lengths<T>(mut s: &mut [T], lengths: impl Iterator<Item = usize>) -> Vec<&mut [T]> {
    let mut out = Vec::new();
    for len in lengths {
        let (a, b) = std::mem::take(&mut s).split_at_mut(len);
        out.push(a);
        s = b;
    }
    out
}

/// Cut `s` into consecutive shared pieces of the given lengths.
pub(crate) fn split_ref<T>(mut s: &[T], lengths: impl Iterator<Item = usize>) -> Vec<&[T]> {
    let mut out = Vec::new();
    for len in lengths {
        let (a, b) = s.split_at(len);
        out.push(a);
        s = b;
    }
    out
}

/// Each thread's static share cut into blocks, claimed by the thread that owns the share
/// from its front, and by any thread that has run out of its own from its back (work
/// stealing). The streaming passes keep the static split's locality (a thread works on the
/// particles whose pages it first touched, and a thief takes the part the owner would
/// reach last) while a thread that starts late or runs slow, on a machine shared with
/// others, is helped instead of waited for at the barrier.
pub struct Stealing {
    /// Per share: the next block from the front (low 32 bits) and one past the last
    /// unclaimed block (high 32 bits), changed together by compare-and-swap.
    ends: Vec<CachePadded<AtomicU64>>,
    per: usize,
}

impl Stealing {
    /// `per` blocks per thread for `threads` threads; blocks are numbered
    /// `t * per + k` for the k-th block of thread t's share.
    pub fn new(threads: usize, per: usize) -> Stealing {
        let per = per.clamp(1, u32::MAX as usize);
        Stealing {
            ends: (0..threads)
                .map(|_| CachePadded::new(AtomicU64::new((per as u64) << 32)))
                .collect(),
            per,
        }
    }

    /// The next block for thread `t`: its own from the front, then the others' from the
    /// back, or None when every block is taken. Each block is handed out once.
    pub fn claim(&self, t: usize) -> Option<usize> {
        let threads = self.ends.len();
        (0..threads).find_map(|k| {
            let owner = (t + k) % threads;
            let own = k == 0;
            let cell = &self.ends[owner];
            let mut cur = cell.load(Ordering::Relaxed);
            loop {
                let (front, back) = (cur & 0xffff_ffff, cur >> 32);
                if front >= back {
                    return None;
                }
                let (next, block) = if own {
                    (cur + 1, front)
                } else {
                    (cur - (1 << 32), back - 1)
                };
                match cell.compare_exchange_weak(cur, next, Ordering::Relaxed, Ordering::Relaxed) {
                    Ok(_) => return Some(owner * self.per + block as usize),
                    Err(now) => cur = now,
                }
            }
        })
    }
}

/// Chunks of 0..n claimed one after another from an atomic counter (dynamic split).
pub struct Dynamic {
    next: CachePadded<AtomicUsize>,
    n: usize,
    size: usize,
}

impl Dynamic {
    /// Chunks of `size` (at least 1) over 0..n, none claimed yet.
    pub fn new(n: usize, size: usize) -> Dynamic {
        Dynamic {
            next: CachePadded::new(AtomicUsize::new(0)),
            n,
            size: size.max(1),
        }
    }

    /// The next unclaimed chunk index, or None when all are taken.
    pub fn claim(&self) -> Option<usize> {
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        (k * self.size < self.n).then_some(k)
    }
}

/// Cuts of `0..n` into `runs` runs of equal work: `cost(q)` is the work of the items before
/// `q` (not decreasing in q); cut k is the first item at which it reaches k / runs of the
/// whole. `runs + 1` entries, the first 0, the last `n`.
pub fn cuts_by_work(n: usize, runs: usize, cost: impl Fn(usize) -> usize) -> Vec<usize> {
    let total = cost(n);
    (0..=runs).map(|k| cut_by_work(n, runs, total, k, &cost)).collect()
}

/// Cut k of [`cuts_by_work`], `total` being `cost(n)`: a bisection over the items.
pub(crate) fn cut_by_work(n: usize, runs: usize, total: usize, k: usize, cost: &impl Fn(usize) -> usize) -> usize {
    if k == 0 || k >= runs {
        return if k == 0 { 0 } else { n };
    }
    let target = total * k / runs;
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if cost(mid) < target {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Chunk bounds for a guided split of 0..n over `threads` (OpenMP's schedule(guided)):
/// each chunk takes 1/(2 threads) of what is left, never fewer than `min` items, so the
/// first chunks are large and the last ones small enough to even out the finish. One
/// thread gets one chunk. Returns the starts and the end: `bounds[k]..bounds[k + 1]`.
pub fn guided_bounds(n: usize, threads: usize, min: usize) -> Vec<usize> {
    let mut bounds = vec![0];
    let mut at = 0;
    while at < n {
        let size = if threads <= 1 {
            n
        } else {
            ((n - at) / (2 * threads)).max(min.max(1))
        };
        at = (at + size).min(n);
        bounds.push(at);
    }
    bounds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guided_bounds_shrink_and_cover() {
        assert_eq!(guided_bounds(0, 2, 10), vec![0]);
        assert_eq!(guided_bounds(1000, 1, 10), vec![0, 1000]);
        let b = guided_bounds(100_000, 2, 1000);
        assert_eq!((b[0], *b.last().unwrap()), (0, 100_000));
        assert_eq!(b[1], 25_000);
        let sizes: Vec<usize> = b.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(sizes.windows(2).all(|w| w[1] <= w[0]), "{sizes:?}");
        assert!(sizes[..sizes.len() - 1].iter().all(|&s| s >= 1000), "{sizes:?}");
    }

    #[test]
    fn stolen_blocks_are_each_handed_out_once() {
        for (threads, per) in [(1, 1), (2, 8), (3, 5), (4, 1)] {
            let st = Stealing::new(threads, per);
            let seen: Vec<AtomicUsize> = (0..threads * per).map(|_| AtomicUsize::new(0)).collect();
            let own: Vec<AtomicUsize> = (0..threads).map(|_| AtomicUsize::new(0)).collect();
            std::thread::scope(|sc| {
                for t in 0..threads {
                    let (st, seen, own) = (&st, &seen, &own);
                    sc.spawn(move || {
                        while let Some(b) = st.claim(t) {
                            seen[b].fetch_add(1, Ordering::Relaxed);
                            if b / per == t {
                                own[t].fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    });
                }
            });
            assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1), "{threads} x {per}");
            assert!(st.claim(0).is_none());
        }
        // A lone thread takes its own blocks front to back, then the others' back to
        // front, in thread order.
        let st = Stealing::new(3, 2);
        let order: Vec<usize> = std::iter::from_fn(|| st.claim(1)).collect();
        assert_eq!(order, [2, 3, 5, 4, 1, 0]);
        // Owner and thief meet in the middle of a share.
        let st = Stealing::new(2, 5);
        let (a, b) = (st.claim(0), st.claim(1));
        assert_eq!((a, b), (Some(0), Some(5)));
        let taken: Vec<usize> = [1, 1, 1, 1, 1, 0].iter().filter_map(|&t| st.claim(t)).collect();
        assert_eq!(taken, [6, 7, 8, 9, 4, 1]);
    }

    #[test]
    fn chunks_cover_exactly() {
        for n in [0, 1, 5, 100, 101] {
            for threads in 1..6 {
                let mut next = 0;
                for t in 0..threads {
                    let r = chunk(n, t, threads);
                    assert_eq!(r.start, next);
                    assert!(r.len() <= n / threads + 1);
                    next = r.end;
                }
                assert_eq!(next, n);
            }
        }
        let d = Dynamic::new(10, 4);
        assert_eq!(
            (d.claim(), d.claim(), d.claim(), d.claim()),
            (Some(0), Some(1), Some(2), None)
        );
    }
}
