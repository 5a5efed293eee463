//! What the bitwise tests of the batched pair loops (`disc_disc.rs`, `sphere_sphere.rs`)
//! share: their random numbers, candidate slots and coefficients, and the builds of the
//! law they run.
use talus_kernels::contact::ContactParams;
use talus_kernels::vector_build::Build;

use crate::contacts::FREE;

/// Uniform numbers in [0, 1) from a xorshift generator (Marsaglia 2003) seeded by `seed`.
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> f64 {
    let mut st = seed;
    move || {
        st ^= st << 13;
        st ^= st >> 7;
        st ^= st << 17;
        (st >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Slot `s`'s pair among `n` particles: a free slot every 37th, else a random i < j.
pub(crate) fn candidate(s: usize, n: usize, rnd: &mut impl FnMut() -> f64) -> (u32, u32) {
    if s % 37 == 5 {
        return (FREE, FREE);
    }
    let i = (rnd() * (n - 1) as f64) as u32;
    let j = i + 1 + (rnd() * (n - 1 - i as usize) as f64) as u32;
    (i, j)
}

/// Slots 1 and 4 (where there are) made the pair of the two fixed bodies 0 and 1, and
/// the coincident pair 2 and 3.
pub(crate) fn fixed_and_coincident(ci: &mut [u32], cj: &mut [u32]) {
    for (s, (i, j)) in [(0u32, 1u32), (2, 3)].into_iter().enumerate() {
        if 3 * s + 1 < ci.len() {
            ci[3 * s + 1] = i;
            cj[3 * s + 1] = j;
        }
    }
}

/// The first material of the tests: the LAMMPS peer's coefficients (e = 0.5).
pub(crate) const PEER: ContactParams = ContactParams {
    kn: 1e6,
    kt: 2.86e5,
    gamma_n: 6876.3,
    gamma_t: 3438.0,
    mu: 0.5,
};

/// The second: stiffer, less damped and less frictional, with tangential stiffness `kt`.
pub(crate) const fn other(kt: f64) -> ContactParams {
    ContactParams {
        kn: 2e6,
        kt,
        gamma_n: 100.0,
        gamma_t: 0.0,
        mu: 0.2,
    }
}

/// The table lengths (with their seeds) the tests run: around the batch's 64.
pub(crate) const LENGTHS: [(usize, u64); 6] = [(1, 1), (63, 2), (64, 3), (65, 4), (1000, 5), (4099, 6)];

/// Every build of the law this processor runs: the baseline, AVX2 and AVX-512 where it
/// has them.
pub(crate) fn laws() -> Vec<Build> {
    let laws = Build::all();
    if laws.len() == 1 {
        eprintln!("no AVX2 here: the baseline build only");
    }
    laws
}

/// `run` (the loop over a bed of `n` particles with slots `ci`, `cj`, in batches of `batch`
/// slots, with each build of the law) stops with a message naming a particle beyond the
/// store for a live slot that names one: in a batch with a free slot or without, as the
/// first or the second particle, or with a second particle `FREE` (a slot is free by its
/// first).
pub(crate) fn refuses_slots_beyond_the_store(
    n: usize,
    batch: usize,
    ci: &[u32],
    cj: &[u32],
    run: impl Fn(Vec<u32>, Vec<u32>, Build),
) {
    let beyond = n as u32;
    for free in [false, true] {
        for second in [None, Some(beyond), Some(FREE)] {
            let (mut ci, mut cj) = (ci.to_vec(), cj.to_vec());
            let s = ci.iter().rposition(|&i| i != FREE).unwrap();
            // The free slot must share the batch of the slot beyond the store.
            assert!(s % batch != 0, "the last live slot opens a batch");
            if free {
                (ci[s - 1], cj[s - 1]) = (FREE, FREE);
            }
            match second {
                None => (ci[s], cj[s]) = (beyond, beyond + 1),
                Some(j) => cj[s] = j,
            }
            for law in laws() {
                // Nothing the closure touches is used after its panic: each call builds its own bed.
                let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(ci.clone(), cj.clone(), law)));
                let e = got.expect_err("a particle beyond the store");
                let msg = e.downcast_ref::<&str>().copied().unwrap_or_default();
                assert!(msg.contains("beyond the store"), "{free} {second:?}: {msg}");
            }
        }
    }
}
