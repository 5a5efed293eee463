//! The dimension of the build and the small vector algebra the kernels share (parry's
//! layout): one source compiled twice, as `talus-kernels` (2D, this crate's default) and as
//! `talus-kernels3d` (3D: `kernels3d/Cargo.toml`, the same `src/` with the feature `dim3`).
//! Code that exists in both dimensions is written once against [`DIM`], [`ANG`] and
//! [`Vector`]; kernels of one dimension only (polygons in 2D, spheres in 3D) sit in
//! their own files behind `#[cfg]`.

/// Spatial dimensions of this build.
#[cfg(not(feature = "dim3"))]
pub const DIM: usize = 2;
/// Spatial dimensions of this build.
#[cfg(feature = "dim3")]
pub const DIM: usize = 3;

/// Components of an angular velocity or a torque: 1 in 2D (about z), 3 in 3D.
pub const ANG: usize = if DIM == 2 { 1 } else { 3 };

/// A position, velocity or force.
pub type Vector = [f64; DIM];

/// An axis-aligned box `[lo_x, hi_x, lo_y, hi_y (, lo_z, hi_z)]`.
pub type Box64 = [f64; 2 * DIM];

/// A box rounded outward to `f32`, as the neighbour searches store it.
pub type Aabb = [f32; 2 * DIM];

/// `a + b`.
#[inline(always)]
pub fn add<const N: usize>(a: [f64; N], b: [f64; N]) -> [f64; N] {
    std::array::from_fn(|k| a[k] + b[k])
}

/// `a - b`.
#[inline(always)]
pub fn sub<const N: usize>(a: [f64; N], b: [f64; N]) -> [f64; N] {
    std::array::from_fn(|k| a[k] - b[k])
}

/// `s a`.
#[inline(always)]
pub fn scale<const N: usize>(s: f64, a: [f64; N]) -> [f64; N] {
    a.map(|x| s * x)
}

/// `a . b`, summed from the first component on.
#[inline(always)]
pub fn dot<const N: usize>(a: [f64; N], b: [f64; N]) -> f64 {
    let mut s = a[0] * b[0];
    for k in 1..N {
        s += a[k] * b[k];
    }
    s
}

/// `|a|^2`.
#[inline(always)]
pub fn norm2<const N: usize>(a: [f64; N]) -> f64 {
    dot(a, a)
}

/// `a x b` of two 3-vectors.
#[inline(always)]
pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_algebra_of_a_right_handed_frame() {
        let (x, y, z) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
        assert_eq!(cross(x, y), z);
        assert_eq!(cross(y, z), x);
        assert_eq!(cross(z, x), y);
        assert_eq!(dot([1.0, 2.0, 3.0], [4.0, -5.0, 6.0]), 12.0);
        assert_eq!(sub(add([1.0, 2.0], [3.0, 4.0]), [1.0, 1.0]), [3.0, 5.0]);
        assert_eq!(norm2(scale(2.0, [3.0, 4.0])), 100.0);
        assert_eq!(DIM, if cfg!(feature = "dim3") { 3 } else { 2 });
        let v: Vector = [0.0; DIM];
        assert_eq!(v.len(), DIM);
        assert_eq!(ANG, if DIM == 3 { 3 } else { 1 });
    }
}
