//! The sine and cosine of a body's angle, inline: the world-vertex pass needs one pair per
//! polygon and step, and the C library's `sincos` (a call, with branches on the size of its
//! argument) took about 145 instructions a pair, half of that pass in a rotating drum.
//!
//! The argument is reduced by the nearest multiple k of pi/2 in three parts of 33 bits
//! (Cody & Waite; the constants of fdlibm's `__ieee754_rem_pio2`, whose products with k are
//! exact for |k| < 2^20), and the remainder r, |r| <= pi/4, goes into fdlibm's minimax
//! polynomials of `__kernel_sin` and `__kernel_cos` (degree 13 and 14). Without fdlibm's
//! tail of r the result is within a few eps of the exact value, absolutely (a body's
//! corners then move by a few eps of its size). Angles beyond 2^19 pi/2 (about 8e5
//! radians) and non-finite ones go to the library.

const PIO2_1: f64 = 1.570_796_326_734_125_6;
const PIO2_2: f64 = 6.077_100_506_303_966e-11;
const PIO2_3: f64 = 2.022_266_248_711_166_5e-21;
const INV_PIO2: f64 = std::f64::consts::FRAC_2_PI;
/// Adding and subtracting it rounds to the nearest integer (|x| < 2^51).
const ROUND: f64 = 6_755_399_441_055_744.0;
/// 2^19 pi/2, rounded down.
const LIMIT: f64 = 823_549.6;
/// 2^-27.
const TINY: f64 = 7.450_580_596_923_828e-9;

const S: [f64; 6] = [
    -0.166_666_666_666_666_32,
    0.008_333_333_333_322_49,
    -0.000_198_412_698_298_579_5,
    2.755_731_370_707_006_8e-6,
    -2.505_076_025_340_686_3e-8,
    1.589_690_995_211_55e-10,
];
const C: [f64; 6] = [
    0.041_666_666_666_666_6,
    -0.001_388_888_888_887_411,
    2.480_158_728_947_673e-5,
    -2.755_731_435_139_066_3e-7,
    2.087_572_321_298_175e-9,
    -1.135_964_755_778_819_5e-11,
];

/// (sin x, cos x).
#[inline]
pub fn sin_cos(x: f64) -> (f64, f64) {
    // (Also false for NaN.)
    let small = x.abs() <= LIMIT;
    if !small {
        return x.sin_cos();
    }
    // Below 2^-27, sin x = x and cos x = 1 in f64 (fdlibm's shortcut; it also keeps the
    // sign of -0.0).
    if x.abs() < TINY {
        return (x, 1.0);
    }
    let k = (x * INV_PIO2 + ROUND) - ROUND;
    let r = ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
    let z = r * r;
    let sp = S[1] + z * (S[2] + z * (S[3] + z * (S[4] + z * S[5])));
    let s = r + r * z * (S[0] + z * sp);
    let cp = z * (C[0] + z * (C[1] + z * (C[2] + z * (C[3] + z * (C[4] + z * C[5])))));
    // 1 - z/2 + z cp with the rounding of 1 - z/2 taken back (fdlibm's form).
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    let c = w + (((1.0 - w) - hz) + z * cp);
    match (k as i64) & 3 {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// Within 3 eps (absolute) of the library's sine and cosine, which are within one unit
    /// of the last place themselves: at random angles of sizes 1e-8 to 1e5 and up to the
    /// limit, next to multiples of pi/2 up to 7.9e5 (where the reduction cancels), and past
    /// the limit (the library's); and the sign of a zero kept.
    #[test]
    fn agrees_with_the_library() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let mut worst = 0.0f64;
        let mut check = |x: f64| {
            let (s, c) = sin_cos(x);
            let (ls, lc) = x.sin_cos();
            let e = (s - ls).abs().max((c - lc).abs());
            assert!(e <= 3.0 * f64::EPSILON, "{x}: ({s}, {c}) against ({ls}, {lc})");
            worst = worst.max(e);
        };
        for _ in 0..200_000 {
            let scale = 10f64.powi(rng.random_range(-8..6));
            check(rng.random_range(-1.0..1.0) * scale);
            check(rng.random_range(-LIMIT..LIMIT));
            let k = rng.random_range(-500_000i64..500_000) as f64;
            check(k * std::f64::consts::FRAC_PI_2 + rng.random_range(-1e-9..1e-9));
        }
        for x in [0.0, -0.0, 1e-300, LIMIT, -LIMIT, 1e6, 1e300, f64::MAX] {
            check(x);
        }
        assert!(sin_cos(-0.0).0.is_sign_negative() && sin_cos(0.0).0.is_sign_positive());
        let (s, c) = sin_cos(f64::NAN);
        assert!(s.is_nan() && c.is_nan());
        assert!(worst > 0.0, "compared nothing");
    }
}
