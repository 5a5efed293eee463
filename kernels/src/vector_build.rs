//! The hot loops built for the processor at hand: one source, compiled once for the x86-64
//! baseline (SSE2: two f64 lanes) and once for AVX2 (four), the AVX2 build chosen at run
//! time where the processor has it.
//!
//! No fused multiply-add (not part of the AVX2 feature set, and never formed by the
//! compiler from separate `*` and `+`): a vector lane rounds every operation exactly as
//! the scalar code does, so the results are bitwise those of the baseline build, and a run
//! or a checkpoint does not depend on the processor it ran on.

/// A build of the hot loops: the x86-64 baseline, or AVX2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    /// The x86-64 baseline (SSE2), or the target's default elsewhere.
    Baseline,
    /// AVX2: four f64 lanes.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Build {
    /// The build this processor runs: AVX2 where it has it.
    #[inline]
    pub fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Build::Avx2;
        }
        Build::Baseline
    }

    /// "avx2" or "baseline" (for the run's reports: a tuning study should know which code
    /// it timed).
    pub fn name(self) -> &'static str {
        match self {
            Build::Baseline => "baseline",
            #[cfg(target_arch = "x86_64")]
            Build::Avx2 => "avx2",
        }
    }

    /// Run `f` compiled for this build. The closure should be marked `#[inline(always)]`
    /// and call only `#[inline(always)]` code in its loop: only what is inlined into the
    /// AVX2 build is compiled for it.
    #[inline(always)]
    pub fn run<R>(self, f: impl FnOnce() -> R) -> R {
        match self {
            Build::Baseline => f(),
            // SAFETY: `Avx2` is only made by `detect`, after the processor said it has
            // AVX2, the one requirement of `avx2`.
            #[cfg(target_arch = "x86_64")]
            Build::Avx2 => unsafe { avx2(f) },
        }
    }
}

/// Run `f`, built for AVX2 where the processor has it (see [`Build::run`]).
#[inline(always)]
pub fn vectorized<R>(f: impl FnOnce() -> R) -> R {
    Build::detect().run(f)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn avx2<R>(f: impl FnOnce() -> R) -> R {
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
        let mut baseline = vec![0.0; a.len()];
        Build::Baseline.run(
            #[inline(always)]
            || f(&a, &b, &mut baseline),
        );
        assert!(scalar.iter().zip(&baseline).all(|(s, v)| s.to_bits() == v.to_bits()));
    }
}
