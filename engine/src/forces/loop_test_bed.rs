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

/// Every build of the law this processor runs: the baseline, and AVX2 where it has it.
pub(crate) fn laws() -> Vec<Build> {
    let mut laws = vec![Build::Baseline];
    if Build::detect() == Build::Baseline {
        eprintln!("no AVX2 here: the baseline build only");
    } else {
        laws.push(Build::detect());
    }
    laws
}
