//! Cohesion proportional to the contact's size, LIGGGHTS `cohesion sjkr` (a simplified
//! JKR): every touching pair is pulled together by F = k A, with k the cohesion energy
//! density of the pair of materials and A the size of the contact: in 3D the area of the
//! disc where the two spheres' surfaces cross (k in J/m^3 = N/m^2), in 2D the length of
//! the chord where the two circles cross (k in J/m^2 = N/m). A pair that does not touch
//! feels none.
//!
//! LIGGGHTS' `cohesion sjkr2` (3D) takes a size that grows linearly with the overlap
//! delta instead: A = 2 pi (2 R*) delta between spheres (R* = Ri Rj / (Ri + Rj)), twice
//! sjkr's crossing area for small overlaps, and A = 2 pi R delta against a wall, sjkr's
//! area for small overlaps (LIGGGHTS-PUBLIC `cohesion_model_sjkr2.h`).

/// Which size of contact the cohesion pulls with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CohesionModel {
    /// LIGGGHTS sjkr: the crossing area (3D) or chord (2D).
    #[default]
    Sjkr,
    /// LIGGGHTS sjkr2 (3D): 2 pi (2 R*) delta, a wall 2 pi R delta.
    Sjkr2,
}

impl CohesionModel {
    /// LIGGGHTS' name of the model.
    pub fn name(self) -> &'static str {
        match self {
            CohesionModel::Sjkr => "sjkr",
            CohesionModel::Sjkr2 => "sjkr2",
        }
    }
}

/// sjkr2's area of spheres of radii `ri`, `rj` at centre distance `d`: 2 pi (2 R*) delta.
#[inline(always)]
pub fn sjkr2_area(d: f64, ri: f64, rj: f64) -> f64 {
    2.0 * std::f64::consts::PI * (2.0 * ri * rj / (ri + rj)) * (ri + rj - d)
}

/// sjkr2's area of a sphere of radius `r` `overlap` deep in a flat wall: 2 pi r delta.
#[inline(always)]
pub fn sjkr2_wall_area(r: f64, overlap: f64) -> f64 {
    2.0 * std::f64::consts::PI * r * overlap
}

/// The chord where circles of radii `ri`, `rj` at centre distance `d` cross: twice the
/// height of the triangle (d, ri, rj), from Heron's product (exact where d is tiny against
/// the radii, where the usual (d^2 + ri^2 - rj^2) / 2d cancels). A circle inside the
/// other (or coincident centres) touches along its whole diameter.
#[inline(always)]
pub fn chord(d: f64, ri: f64, rj: f64) -> f64 {
    if d <= (ri - rj).abs() {
        return 2.0 * ri.min(rj);
    }
    heron(d, ri, rj).max(0.0).sqrt() / d
}

/// The area of the disc where spheres of radii `ri`, `rj` at centre distance `d` cross
/// (LIGGGHTS sjkr's A = pi/4 (d - ri - rj)(d + ri - rj)(d - ri + rj)(d + ri + rj) / d^2,
/// signs taken so that it is positive for touching spheres); a sphere inside the other
/// touches over its whole cross-section.
#[inline(always)]
pub fn crossing_area(d: f64, ri: f64, rj: f64) -> f64 {
    if d <= (ri - rj).abs() {
        let r = ri.min(rj);
        return std::f64::consts::PI * r * r;
    }
    0.25 * std::f64::consts::PI * heron(d, ri, rj).max(0.0) / (d * d)
}

/// (ri + rj - d)(d + ri - rj)(d - ri + rj)(ri + rj + d): 16 times the squared area of the
/// triangle of sides d, ri, rj, which is (2 d h)^2 with h the triangle's height over d.
#[inline(always)]
fn heron(d: f64, ri: f64, rj: f64) -> f64 {
    (ri + rj - d) * (d + ri - rj) * (d - ri + rj) * (ri + rj + d)
}

/// The chord of a circle of radius `r` whose centre is `overlap` short of a flat wall
/// being `r` away: 2 sqrt(delta (2 r - delta)), the whole diameter past the centre.
#[inline(always)]
pub fn wall_chord(r: f64, overlap: f64) -> f64 {
    let o = overlap.min(r);
    2.0 * (o * (2.0 * r - o)).max(0.0).sqrt()
}

/// The area where a sphere of radius `r` crosses a flat wall at depth `overlap`:
/// pi delta (2 r - delta), its whole cross-section past the centre.
#[inline(always)]
pub fn wall_crossing_area(r: f64, overlap: f64) -> f64 {
    let o = overlap.min(r);
    std::f64::consts::PI * (o * (2.0 * r - o)).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chord_of_two_circles() {
        // Radii 5 and 5 at distance 8: the crossing points are 3 up and down the middle.
        assert!((chord(8.0, 5.0, 5.0) - 6.0).abs() < 1e-12);
        // Radii 5 and 3 (x^2 + y^2 = 25, (x - 4)^2 + y^2 = 9): the points (4, +-3).
        assert!((chord(4.0, 5.0, 3.0) - 6.0).abs() < 1e-12);
        assert!((chord(4.0, 3.0, 5.0) - 6.0).abs() < 1e-12);
        // Just touching: none; one inside the other or coincident: the smaller diameter.
        assert_eq!(chord(10.0, 5.0, 5.0), 0.0);
        assert_eq!(chord(1.0, 5.0, 2.0), 4.0);
        assert_eq!(chord(0.0, 5.0, 5.0), 10.0);
        // Tiny overlaps: 2 sqrt(2 r_eff delta) to first order.
        let (r, delta): (f64, f64) = (1e-3, 1e-9);
        let expect = 2.0 * (2.0 * (r / 2.0) * delta).sqrt();
        assert!((chord(2.0 * r - delta, r, r) / expect - 1.0).abs() < 1e-5);
    }

    /// sjkr2 grows with the overlap: twice sjkr's crossing area between spheres and
    /// sjkr's area against a wall, for small overlaps; its own formula for large ones.
    #[test]
    fn sjkr2_areas() {
        let (ri, rj, delta) = (1e-3, 2e-3, 1e-9);
        let d = ri + rj - delta;
        let r_eff = ri * rj / (ri + rj);
        // (ri + rj - d) loses digits to the cancellation: 1e-6 relative.
        assert!((sjkr2_area(d, ri, rj) / (4.0 * std::f64::consts::PI * r_eff * delta) - 1.0).abs() < 1e-6);
        assert!((sjkr2_area(d, ri, rj) / crossing_area(d, ri, rj) - 2.0).abs() < 1e-5);
        assert!((sjkr2_wall_area(ri, delta) / wall_crossing_area(ri, delta) - 1.0).abs() < 1e-5);
        assert_eq!(sjkr2_area(ri + rj, ri, rj), 0.0);
        assert_eq!(sjkr2_wall_area(1.0, 0.25), 0.5 * std::f64::consts::PI);
    }

    #[test]
    fn crossing_area_is_the_chord_disc() {
        for (d, ri, rj) in [(8.0, 5.0, 5.0), (4.0, 5.0, 3.0), (1.9e-3, 1e-3, 1e-3)] {
            let c = chord(d, ri, rj);
            let a = crossing_area(d, ri, rj);
            assert!(
                (a / (std::f64::consts::PI * c * c / 4.0) - 1.0).abs() < 1e-12,
                "{d} {ri} {rj}"
            );
        }
        assert_eq!(crossing_area(0.5, 2.0, 1.0), std::f64::consts::PI);
    }

    #[test]
    fn wall_sizes() {
        // Radius 5, 2 deep: the chord at 3 from the centre is 2 * 4.
        assert!((wall_chord(5.0, 2.0) - 8.0).abs() < 1e-12);
        assert!((wall_crossing_area(5.0, 2.0) - 16.0 * std::f64::consts::PI).abs() < 1e-12);
        assert_eq!(wall_chord(5.0, 7.0), 10.0);
        assert_eq!(wall_chord(5.0, 0.0), 0.0);
    }
}
