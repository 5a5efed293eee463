//! The time step against the shortest contact duration: too coarse a dt integrates
//! contacts badly, an absurdly small one makes the run endless. Warned about, not refused.

/// A dt above this fraction of the shortest contact duration is warned about (DEM
/// practice, LAMMPS and LIGGGHTS users' rule of thumb: t_c / dt >= 10, better 50).
pub const DT_FRACTION_WARN: f64 = 0.1;

/// A dt below this (seconds) is warned about: 10^12 steps per simulated second.
pub const DT_TINY: f64 = 1e-12;

/// Warnings about the time step `dt` against the shortest contact duration `tc`: a dt
/// above [`DT_FRACTION_WARN`] of it resolves contacts in too few steps; a dt below
/// [`DT_TINY`] makes a simulated second take 10^12 steps or more. `steps` is the run's
/// length. Valid runs all the same: warned about, not refused.
pub fn dt_warnings(dt: f64, tc: f64, steps: u64) -> Vec<String> {
    let mut out = Vec::new();
    let ratio = dt / tc;
    let per_second = 1.0 / dt;
    if ratio > DT_FRACTION_WARN {
        let what = if ratio >= 1.0 {
            "longer than a whole contact"
        } else {
            "a large fraction of a contact"
        };
        out.push(format!(
            "dt = {dt:.4e} s is {what}: the shortest contact lasts t_c = {tc:.4e} s, dt/t_c = {ratio:.3} \
             ({:.1} steps per contact; DEM practice, as in LAMMPS and LIGGGHTS, is 10 to 50 or more), so \
             contacts are integrated too coarsely (energy gained, particles passing through one another); \
             {per_second:.3e} steps per simulated second. dt_fraction = 50 gives dt = {:.4e} s",
            1.0 / ratio,
            tc / 50.0
        ));
    }
    if dt < DT_TINY {
        out.push(format!(
            "dt = {dt:.4e} s is tiny: {per_second:.3e} steps per simulated second, so the run's {steps} steps \
             simulate {:.3e} s (the shortest contact lasts t_c = {tc:.4e} s, dt/t_c = {ratio:.3}); is a \
             stiffness (kn) or a mass off by orders of magnitude?",
            steps as f64 * dt
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dt_warnings_give_the_numbers() {
        assert!(dt_warnings(1e-5, 1e-4, 100).is_empty(), "t_c/10 is fine");
        let w = dt_warnings(5e-5, 1e-4, 100);
        assert_eq!(w.len(), 1);
        assert!(
            w[0].contains("dt = 5.0000e-5 s is a large fraction")
                && w[0].contains("t_c = 1.0000e-4 s, dt/t_c = 0.500 (2.0 steps per contact")
                && w[0].contains("2.000e4 steps per simulated second")
                && w[0].contains("dt = 2.0000e-6 s"),
            "{}",
            w[0]
        );
        assert!(dt_warnings(2e-4, 1e-4, 100)[0].contains("longer than a whole contact"));
        let w = dt_warnings(1e-18, 5e-17, 1000);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("1.000e18 steps per simulated second") && w[0].contains("1000 steps simulate 1.000e-15 s"),
            "{}",
            w[0]
        );
    }
}
