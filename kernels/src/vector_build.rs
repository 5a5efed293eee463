//! The hot loops built for the processor at hand: one source, compiled for the x86-64
//! baseline (SSE2: two f64 lanes), for AVX2 (four) and for AVX-512 F/VL/DQ (eight, and
//! mask registers for the selects), the widest the processor has chosen at run time. On a
//! Zen 4 VM the AVX-512 build ran 5,832 and 58,320 spheres 9-10 % faster than the AVX2 one
//! (medians of 10 rounds), 10^4 discs 17-52 % (BENCHMARKS.md, issue 19).
//!
//! No fused multiply-add (never formed by the compiler from separate `*` and `+`, and not
//! part of the AVX2 feature set): a vector lane rounds every operation exactly as the
//! scalar code does, so the results are bitwise those of the baseline build, and a run or
//! a checkpoint does not depend on the processor it ran on.

/// A build of the hot loops: the x86-64 baseline, AVX2 or AVX-512.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    /// The x86-64 baseline (SSE2), or the target's default elsewhere.
    Baseline,
    /// AVX2: four f64 lanes.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512 (F, VL, DQ): eight f64 lanes, and mask registers for the selects.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Build {
    /// The build this processor runs: AVX-512 (F, VL and DQ) where it has it, else AVX2
    /// where it has that.
    #[inline]
    pub fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx512dq")
        {
            return Build::Avx512;
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Build::Avx2;
        }
        Build::Baseline
    }

    /// Every build this processor runs, the baseline first.
    pub fn all() -> Vec<Build> {
        let mut all = vec![Build::Baseline];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                all.push(Build::Avx2);
            }
            if Build::detect() == Build::Avx512 {
                all.push(Build::Avx512);
            }
        }
        all
    }

    /// "avx512", "avx2" or "baseline" (for the run's reports: a tuning study should know
    /// which code it timed).
    pub fn name(self) -> &'static str {
        match self {
            Build::Baseline => "baseline",
            #[cfg(target_arch = "x86_64")]
            Build::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Build::Avx512 => "avx512",
        }
    }

    /// Run `f` compiled for this build. The closure should be marked `#[inline(always)]`
    /// and call only `#[inline(always)]` code in its loop: only what is inlined into the
    /// AVX2 or AVX-512 build is compiled for it.
    #[inline(always)]
    pub fn run<R>(self, f: impl FnOnce() -> R) -> R {
        match self {
            Build::Baseline => f(),
            // SAFETY: `Avx2` is only made by `detect`, after the processor said it has
            // AVX2, the one requirement of `avx2`.
            #[cfg(target_arch = "x86_64")]
            Build::Avx2 => unsafe { avx2(f) },
            // SAFETY: as for `Avx2`, with AVX-512 F, VL and DQ, the requirements of `avx512`.
            #[cfg(target_arch = "x86_64")]
            Build::Avx512 => unsafe { avx512(f) },
        }
    }
}

/// Run `f`, built for the widest vectors the processor has (see [`Build::run`]).
#[inline(always)]
pub fn vectorized<R>(f: impl FnOnce() -> R) -> R {
    Build::detect().run(f)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq")]
unsafe fn avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vector build of a loop of divisions, square roots and selects gives the scalar
    /// loop's results bit for bit.
    #[test]
    fn vector_build_rounds_as_scalar_code() {
        let a: Vec<f64> = (0..1003).map(|k| ((k as f64 + 0.37) * 1.618).sin() * 1e3).collect();
        let b: Vec<f64> = (0..1003).map(|k| ((k as f64 + 0.11) * 0.577).cos() * 7.0).collect();
        #[inline(always)]
        fn f(a: &[f64], b: &[f64], out: &mut [f64]) {
            let n = out.len();
            let (a, b) = (&a[..n], &b[..n]);
            for k in 0..n {
                let d = (a[k] * a[k] + b[k] * b[k]).sqrt();
                let q = if d > 1.0 { a[k] / d } else { b[k] - a[k] * 0.5 };
                out[k] = q * b[k] + a[k] / (b[k] + 9.0);
            }
        }
        let mut scalar = vec![0.0; a.len()];
        for k in 0..a.len() {
            f(&a[k..k + 1], &b[k..k + 1], &mut scalar[k..k + 1]);
        }
        let mut vector = vec![0.0; a.len()];
        vectorized(
            #[inline(always)]
            || f(&a, &b, &mut vector),
        );
        assert!(scalar.iter().zip(&vector).all(|(s, v)| s.to_bits() == v.to_bits()));
        for build in Build::all() {
            let mut out = vec![0.0; a.len()];
            build.run(
                #[inline(always)]
                || f(&a, &b, &mut out),
            );
            let same = scalar.iter().zip(&out).all(|(s, v)| s.to_bits() == v.to_bits());
            assert!(same, "{}", build.name());
        }
    }
}
