//! The hot loops built for the processor at hand: one source, compiled for the x86-64
//! baseline (SSE2: two f64 lanes), for AVX2 (four) and for AVX-512 F/VL/DQ (eight, and
//! mask registers for the selects), the widest the processor has chosen at run time. On a
//! Zen 4 VM the AVX-512 build ran 5,832 and 58,320 spheres 9-10 % faster than the AVX2 one
//! (medians of 10 rounds), 10^4 discs 17-52 % (BENCHMARKS.md, issue 19).
//!
//! A run may be held to a narrower build than the processor's widest ([`Build::limit`],
//! `talus --vector-build`): a tuning study times each, and on some processors AVX-512
//! lowers the clock.
//!
//! No fused multiply-add (never formed by the compiler from separate `*` and `+`, and not
//! part of the AVX2 feature set): a vector lane rounds every operation exactly as the
//! scalar code does, so the results are bitwise those of the baseline build, and a run or
//! a checkpoint does not depend on the processor it ran on.

use std::sync::atomic::{AtomicU8, Ordering};

/// A build of the hot loops that this processor runs: the x86-64 baseline, AVX2 or
/// AVX-512, ordered narrowest first. Made only by [`Build::widest`], [`Build::detect`],
/// [`Build::all`] and [`Build::from_name`], each of which asks the processor: running one
/// ([`Build::run`]) is sound, with no test of its own in the hot loops (such a test within
/// the sphere loop's batches cost it 0.9 % more instructions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Build(Width);

/// The vector width of a build, narrowest first; its number is the limit's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Width {
    /// The x86-64 baseline (SSE2), or the target's default elsewhere.
    Baseline,
    /// AVX2: four f64 lanes.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512 (F, VL, DQ): eight f64 lanes, and mask registers for the selects.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

/// Every width of this target, narrowest first.
#[cfg(target_arch = "x86_64")]
const WIDTHS: &[Width] = &[Width::Baseline, Width::Avx2, Width::Avx512];
#[cfg(not(target_arch = "x86_64"))]
const WIDTHS: &[Width] = &[Width::Baseline];

impl Build {
    /// The build the hot loops run: the processor's widest ([`Build::widest`]), or the
    /// limit set for the process if that is narrower ([`Build::limit`]).
    #[inline]
    pub fn detect() -> Self {
        let limit = (LIMIT.load(Ordering::Relaxed) as usize).min(WIDTHS.len() - 1);
        Build(Build::widest().0.min(WIDTHS[limit]))
    }

    /// The widest build this processor runs: AVX-512 (F, VL and DQ) where it has it, else
    /// AVX2 where it has that.
    #[inline]
    pub fn widest() -> Self {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx512dq")
        {
            return Build(Width::Avx512);
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Build(Width::Avx2);
        }
        Build(Width::Baseline)
    }

    /// Hold the process's hot loops to this build or narrower (from now on, every thread).
    pub fn limit(self) {
        LIMIT.store(self.0 as u8, Ordering::Relaxed);
    }

    /// The build named `name` ("baseline", "avx2" or "avx512"); an error naming the
    /// target's builds if none is called so, or the processor's widest if it does not run
    /// that one.
    pub fn from_name(name: &str) -> Result<Build, String> {
        let Some(&w) = WIDTHS.iter().find(|&&w| Build(w).name() == name) else {
            let names: Vec<&str> = WIDTHS.iter().map(|&w| Build(w).name()).collect();
            return Err(format!("not a build of this target (one of {})", names.join(", ")));
        };
        let widest = Build::widest();
        if w > widest.0 {
            return Err(format!(
                "this processor does not run the {name} build of the hot loops (its widest: {})",
                widest.name()
            ));
        }
        Ok(Build(w))
    }

    /// Every build this processor runs, the baseline first.
    pub fn all() -> Vec<Build> {
        let widest = Build::widest().0;
        WIDTHS.iter().filter(|&&w| w <= widest).map(|&w| Build(w)).collect()
    }

    /// "avx512", "avx2" or "baseline" (for the run's reports: a tuning study should know
    /// which code it timed).
    pub fn name(self) -> &'static str {
        match self.0 {
            Width::Baseline => "baseline",
            #[cfg(target_arch = "x86_64")]
            Width::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Width::Avx512 => "avx512",
        }
    }

    /// Run `f` compiled for this build. The closure should be marked `#[inline(always)]`
    /// and call only `#[inline(always)]` code in its loop: only what is inlined into the
    /// AVX2 or AVX-512 build is compiled for it.
    #[inline(always)]
    pub fn run<R>(self, f: impl FnOnce() -> R) -> R {
        match self.0 {
            Width::Baseline => f(),
            // SAFETY: a `Build` of this width is made only after the processor said it has
            // AVX2 (see the type's notes), the one requirement of `avx2`.
            #[cfg(target_arch = "x86_64")]
            Width::Avx2 => unsafe { avx2(f) },
            // SAFETY: as for `Avx2`, with AVX-512 F, VL and DQ, the requirements of `avx512`.
            #[cfg(target_arch = "x86_64")]
            Width::Avx512 => unsafe { avx512(f) },
        }
    }
}

/// The widest build the process may run ([`Build::limit`]; at first none narrower than
/// the widest of all).
static LIMIT: AtomicU8 = AtomicU8::new(u8::MAX);

/// Run `f`, built for the widest vectors the processor has, or the process's limit (see
/// [`Build::run`], [`Build::detect`]).
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

    /// Names read back, builds the processor lacks refused by name, and `detect` held to
    /// the limit.
    #[test]
    fn builds_by_name_and_limit() {
        let widest = Build::widest();
        for &w in WIDTHS {
            let b = Build(w);
            assert_eq!(Build::from_name(b.name()).is_ok(), b <= widest, "{}", b.name());
            if let Ok(named) = Build::from_name(b.name()) {
                assert_eq!(named, b);
                named.limit();
                assert_eq!(Build::detect(), b, "limited to {}", b.name());
            }
        }
        assert!(Build::from_name("sse9")
            .unwrap_err()
            .contains("not a build of this target"));
        assert_eq!(Build::detect(), widest);
        assert_eq!(Build::all().last(), Some(&widest));
    }
}
