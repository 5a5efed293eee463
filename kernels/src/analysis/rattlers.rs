//! Rattlers and the coordination number without them. By counting constraints, a
//! frictionless contact blocks one degree of freedom, so a frictionless particle needs
//! DIM + 1 contacts to be held in place (the rattlers of frictionless packings: fewer than
//! d + 1 contacts, Göncü, Durán & Luding 2010); a frictional contact blocks DIM, so two
//! hold a frictional particle. Taking a rattler out takes a contact from each of its
//! partners, which may make them rattlers in turn, so the rule is applied until nothing
//! changes (a queue, O(N + contacts)).
//!
//! Where two contacts hold a particle (friction), a rattler has at most one partner left
//! when it is taken out, and the XOR of the indices of a particle's partners names that
//! one: the peeling needs no adjacency, only three numbers per particle gathered in the
//! caller's pass over the contacts (XOR peeling, as in Goodrich & Mitzenmacher's
//! invertible Bloom lookup tables, 2011). Where more hold it, the partners are put in
//! compressed rows first.
use crate::math::DIM;

/// Contacts a frictionless particle needs so as not to be a rattler.
pub const HELD_FRICTIONLESS: u32 = DIM as u32 + 1;
/// Contacts a frictional particle needs.
pub const HELD_FRICTIONAL: u32 = 2;

/// One particle's contacts, as [`ContactCounts`] gathers them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Count {
    /// All of its contacts: with other particles, with walls, and with bodies that are not
    /// peeled (these never go away). `u32::MAX` for such a body itself.
    pub all: u32,
    /// Its contacts with other particles that are peeled.
    pub pairs: u32,
    /// The XOR of those partners' indices.
    pub partners: u32,
}

/// Each particle's contacts, gathered in one pass over them: where the peeling starts.
/// A record per particle: a contact updates one record at each end, not three arrays.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContactCounts {
    /// The particles' counts, by index.
    pub of: Vec<Count>,
}

impl ContactCounts {
    /// `n` particles without contacts.
    pub fn new(n: usize) -> Self {
        ContactCounts {
            of: vec![Count::default(); n],
        }
    }

    /// `n` particles without contacts again, in the buffers of an earlier count.
    pub fn reset(&mut self, n: usize) {
        self.of.clear();
        self.of.resize(n, Count::default());
    }

    /// A contact of particle `p` with a wall or a body that is not peeled.
    #[inline]
    pub fn add_fixed(&mut self, p: u32) {
        self.of[p as usize].all += 1;
    }

    /// Particle `p` is a body that is not peeled: never a rattler, holding what it touches.
    pub fn keep(&mut self, p: u32) {
        self.of[p as usize].all = u32::MAX;
    }
}

/// One side of a contact between two peeled particles: on the particle whose record is
/// `of[k]` (a [`ContactCounts`]'s, or a piece of it a thread owns), with `partner`. Each
/// contact is added at both its sides.
#[inline(always)]
pub fn add_side(of: &mut [Count], k: usize, partner: u32) {
    let c = &mut of[k];
    c.all += 1;
    c.pairs += 1;
    c.partners ^= partner;
}

/// What the peeling finds, besides which particles are rattlers ([`Peeling::rattler`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Peeled {
    /// How many particles are rattlers.
    pub rattlers: usize,
    /// The pairs in contact between particles that are not rattlers.
    pub held_pairs: usize,
}

/// The peeling's buffers, kept from one peeling to the next (at 10^6 particles their
/// first use faulted in as many pages as the peeling took).
#[derive(Debug, Clone, Default)]
pub struct Peeling {
    /// Which particles are out.
    out: Vec<bool>,
    /// Out particles yet to take their contacts from their partners.
    queue: Vec<u32>,
    /// Compressed rows of partners (more than two hold a particle): row p's start...
    at: Vec<u32>,
    /// ... and the partners.
    adj: Vec<u32>,
}

impl Peeling {
    /// Which particles the last peeling ([`Peeling::peel`], or [`mark_range`] over
    /// [`Peeling::marks`] and [`Peeling::cascade`]) found to be rattlers.
    pub fn rattler(&self) -> &[bool] {
        &self.out
    }

    /// Find the rattlers (fewer than `held` contacts, repeatedly), in the counts
    /// themselves: each particle's `all` becomes its contacts while it is in, `pairs` its
    /// partners left, `partners` the XOR of those (no copy of them: at 10^6 particles the
    /// copies were a fifth of the peeling). `pairs` must give exactly the pairs counted
    /// with [`add_side`], each once; it is read only where `held > 2`, so a caller passes
    /// an iterator over its own records rather than a list. On one thread; the analysis
    /// runs its first step on the pool ([`Peeling::marks`] and [`mark_range`] over ranges
    /// of the particles), then [`Peeling::cascade`].
    pub fn peel<I>(&mut self, counts: &mut ContactCounts, held: u32, pairs: I) -> Peeled
    where
        I: IntoIterator<Item = (u32, u32)>,
    {
        let mut queue = Vec::new();
        mark_range(&counts.of, held, 0, self.marks(counts.of.len()), &mut queue);
        let ends = counts.of.iter().map(|c| c.pairs as usize).sum();
        self.cascade(counts, held, ends, pairs, [queue.as_slice()])
    }

    /// The marks of `n` particles, for [`mark_range`] to set, each once.
    pub fn marks(&mut self, n: usize) -> &mut [bool] {
        self.out.resize(n, false);
        &mut self.out
    }

    /// Take the particles out that the first rattlers (`queues`, in the order of their
    /// ranges, as [`mark_range`] listed them over all the particles) leave with fewer than
    /// `held` contacts, and so on (the queue: one thread). `ends`: exactly the sides counted
    /// with [`add_side`] (twice the pairs; the tally takes the ends of the pairs that go out
    /// from it). The rattlers and the pairs left are counted as they go, not by a pass over
    /// every particle after.
    pub fn cascade<'q, I>(
        &mut self,
        counts: &mut ContactCounts,
        held: u32,
        ends: usize,
        pairs: I,
        queues: impl IntoIterator<Item = &'q [u32]>,
    ) -> Peeled
    where
        I: IntoIterator<Item = (u32, u32)>,
    {
        let c = &mut counts.of;
        self.queue.clear();
        queues.into_iter().for_each(|q| self.queue.extend_from_slice(q));
        // The ends on particles still in: those of the first rattlers go with them.
        let mut tally = Tally {
            out: self.queue.len(),
            ends: ends - self.queue.iter().map(|&p| c[p as usize].pairs as usize).sum::<usize>(),
        };
        if held <= 2 {
            // A particle taken out had fewer than two contacts: at most one partner is
            // left, and the XOR of those left names it. Each pair is taken by the first of
            // its two particles to leave the queue.
            while let Some(p) = self.queue.pop() {
                let p = p as usize;
                debug_assert!(c[p].pairs <= 1, "an out particle has fewer than two contacts");
                if c[p].pairs == 0 {
                    continue;
                }
                let q = c[p].partners as usize;
                c[p].pairs = 0;
                c[q].partners ^= p as u32;
                lose(c, &mut self.out, &mut self.queue, q, held, &mut tally);
            }
        } else {
            // Adjacency in compressed rows: the partners of p are adj[at[p]..at[p + 1]].
            // `at` first holds where each row ends and is counted down as the rows are
            // filled, which leaves it at their starts.
            self.at.clear();
            let mut total = 0;
            self.at.extend(c.iter().map(|c| {
                total += c.pairs;
                total
            }));
            self.at.push(total);
            self.adj.clear();
            self.adj.resize(total as usize, 0);
            for (i, j) in pairs {
                self.at[i as usize] -= 1;
                self.adj[self.at[i as usize] as usize] = j;
                self.at[j as usize] -= 1;
                self.adj[self.at[j as usize] as usize] = i;
            }
            while let Some(p) = self.queue.pop() {
                let p = p as usize;
                for k in self.at[p]..self.at[p + 1] {
                    let q = self.adj[k as usize] as usize;
                    if !self.out[q] {
                        lose(c, &mut self.out, &mut self.queue, q, held, &mut tally);
                    }
                }
            }
        }
        debug_assert_eq!(tally.ends % 2, 0, "a pair left with one end");
        Peeled {
            rattlers: tally.out,
            held_pairs: tally.ends / 2,
        }
    }
}

/// What the cascade has taken out so far, and the ends of pairs left on the particles
/// still in.
struct Tally {
    out: usize,
    ends: usize,
}

/// The first rattlers among the particles `lo..lo + c.len()` (`c` their counts, `out`
/// their marks): those with fewer than `held` contacts, marked and listed in `queue`.
pub fn mark_range(c: &[Count], held: u32, lo: usize, out: &mut [bool], queue: &mut Vec<u32>) {
    queue.clear();
    for (k, (o, c)) in out.iter_mut().zip(c).enumerate() {
        *o = c.all < held;
        if *o {
            queue.push((lo + k) as u32);
        }
    }
}

/// Particle q loses a partner taken out: an out particle only its count of partners left
/// (so that the pair is taken once), one still in a contact as well, which may take it
/// out (and its ends left with it).
fn lose(c: &mut [Count], out: &mut [bool], queue: &mut Vec<u32>, q: usize, held: u32, tally: &mut Tally) {
    c[q].pairs -= 1;
    if out[q] {
        return;
    }
    tally.ends -= 1;
    c[q].all -= 1;
    if c[q].all < held {
        out[q] = true;
        queue.push(q as u32);
        tally.out += 1;
        tally.ends -= c[q].pairs as usize;
    }
}

/// Mean contacts per particle, 2 C / N, for `pairs` pairs among `particles` (zero
/// particles: zero).
pub fn coordination(pairs: usize, particles: usize) -> f64 {
    if particles == 0 {
        0.0
    } else {
        2.0 * pairs as f64 / particles as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counts of `n` particles with these pairs and wall contacts, in `c`'s buffers.
    fn count_into(c: &mut ContactCounts, n: usize, pairs: &[(u32, u32)], fixed: &[u32]) {
        c.reset(n);
        for &(i, j) in pairs {
            add_side(&mut c.of, i as usize, j);
            add_side(&mut c.of, j as usize, i);
        }
        for (p, &k) in fixed.iter().enumerate() {
            (0..k).for_each(|_| c.add_fixed(p as u32));
        }
    }

    fn counts(n: usize, pairs: &[(u32, u32)], fixed: &[u32]) -> ContactCounts {
        let mut c = ContactCounts::new(n);
        count_into(&mut c, n, pairs, fixed);
        c
    }

    /// The rule applied as it reads: take out any particle held by fewer than `held`
    /// contacts with walls and with particles not yet out, until none is left.
    fn brute_force(n: usize, pairs: &[(u32, u32)], fixed: &[u32], kept: &[bool], held: u32) -> Vec<bool> {
        let mut out = vec![false; n];
        loop {
            let found = (0..n).find(|&p| {
                let partners = pairs
                    .iter()
                    .filter(|&&(i, j)| (i as usize == p && !out[j as usize]) || (j as usize == p && !out[i as usize]))
                    .count() as u32;
                !out[p] && !kept[p] && fixed[p] + partners < held
            });
            match found {
                Some(p) => out[p] = true,
                None => return out,
            }
        }
    }

    /// Frictionless: a particle held by DIM cluster members and one more partner that is
    /// a rattler goes once that partner is gone; the cluster (each member touching every
    /// other: DIM + 1 partners) stays. Frictional: only the partner (one contact) goes.
    #[test]
    fn rattlers_peel_off_until_nothing_changes() {
        let k = DIM as u32 + 2;
        let mut pairs = Vec::new();
        for i in 0..k {
            for j in i + 1..k {
                pairs.push((i, j));
            }
        }
        // Particle k: DIM cluster members and particle k + 1 (HELD contacts at first).
        pairs.extend((0..DIM as u32).map(|m| (m, k)));
        pairs.push((k, k + 1));
        let n = k as usize + 2;
        let c = counts(n, &pairs, &vec![0; n]);
        let mut peeling = Peeling::default();
        let r = peeling.peel(&mut c.clone(), HELD_FRICTIONLESS, pairs.iter().copied());
        let out = peeling.rattler();
        assert!(out[..k as usize].iter().all(|&x| !x), "{out:?}");
        assert!(out[k as usize..].iter().all(|&x| x), "{out:?}");
        assert_eq!(r.rattlers, 2);
        // The cluster alone: DIM + 1 partners each.
        let kept = n - r.rattlers;
        assert_eq!(coordination(r.held_pairs, kept), (DIM + 1) as f64);
        assert_eq!(coordination(0, 0), 0.0);
        let r = peeling.peel(&mut c.clone(), HELD_FRICTIONAL, []);
        assert_eq!(r.rattlers, 1);
        assert!(peeling.rattler()[k as usize + 1]);
        assert_eq!(r.held_pairs, pairs.len() - 1);
    }

    /// Contacts with walls hold a particle as well as particles do.
    #[test]
    fn wall_contacts_hold() {
        for held in [HELD_FRICTIONLESS, HELD_FRICTIONAL] {
            let fixed = vec![held, held - 1];
            let mut peeling = Peeling::default();
            peeling.peel(&mut counts(2, &[], &fixed), held, []);
            assert_eq!(peeling.rattler(), [false, true]);
        }
    }

    /// Random contact graphs, sparse to dense, some particles touching walls and some
    /// kept (bodies that hold what they touch): the peeling (the XOR one for two
    /// contacts, the rows' for more) takes out exactly what the rule does, and counts
    /// the pairs left between the others.
    #[test]
    fn peeling_agrees_with_the_rule_applied_by_hand() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        let (mut peeling, mut c) = (Peeling::default(), ContactCounts::default());
        for case in 0..300 {
            let n = 2 + next(40) as usize;
            let want = next(3 * n as u64) as usize;
            let mut pairs: Vec<(u32, u32)> = Vec::new();
            let kept: Vec<bool> = (0..n).map(|_| next(8) == 0).collect();
            for _ in 0..4 * want {
                let (i, j) = (next(n as u64) as u32, next(n as u64) as u32);
                let (i, j) = (i.min(j), i.max(j));
                if i != j && !pairs.contains(&(i, j)) && !kept[i as usize] && !kept[j as usize] {
                    pairs.push((i, j));
                }
            }
            let fixed: Vec<u32> = (0..n)
                .map(|_| if next(4) == 0 { 1 + next(2) as u32 } else { 0 })
                .collect();
            count_into(&mut c, n, &pairs, &fixed);
            (0..n).filter(|&p| kept[p]).for_each(|p| c.keep(p as u32));
            for held in [1, 2, 3, 4] {
                let want = brute_force(n, &pairs, &fixed, &kept, held);
                // One peeling's buffers for every case: what an earlier one left must not
                // matter.
                let r = peeling.peel(&mut c.clone(), held, pairs.iter().copied());
                assert_eq!(peeling.rattler(), want, "case {case}, held {held}");
                let between = pairs
                    .iter()
                    .filter(|&&(i, j)| !want[i as usize] && !want[j as usize])
                    .count();
                assert_eq!(r.held_pairs, between, "case {case}, held {held}");
                assert_eq!(r.rattlers, want.iter().filter(|&&x| x).count());
            }
        }
    }
}
