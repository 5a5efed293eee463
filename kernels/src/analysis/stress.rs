//! The stress of a granular assembly from its contact forces: the Love-Weber sum of branch
//! vector and contact force (Love 1927; Weber 1966; Christoffersen, Mehrabadi &
//! Nemat-Nasser 1981, eq. 2.7), the granular form of the virial that LAMMPS' `compute
//! stress/atom` tallies for its granular pair styles. A contact between i and j, with
//! branch vector r = x_i - x_j and force f on i, adds -r (x) f to the assembly's stress
//! times volume, half of it to each of the two particles; a wall contact, with r from the
//! contact point to the particle's centre, adds all of it to its particle (the wall takes
//! no share). LAMMPS' sign: compression is negative, the pressure is -trace / DIM.
use crate::math::{Vector, DIM};

/// A stress tensor, or a stress times a volume: row a, column b (`s[a][b]`, the
/// component a of the branch vector with the component b of the force).
pub type Tensor = [[f64; DIM]; DIM];

/// What one contact adds to a stress times volume: -r (x) f.
#[inline]
pub fn contact_virial(r: Vector, f: Vector) -> Tensor {
    std::array::from_fn(|a| std::array::from_fn(|b| -r[a] * f[b]))
}

/// `acc += s * t`, componentwise.
#[inline]
pub fn add_scaled(acc: &mut Tensor, s: f64, t: &Tensor) {
    for (ra, ta) in acc.iter_mut().zip(t) {
        for (x, y) in ra.iter_mut().zip(ta) {
            *x += s * y;
        }
    }
}

/// The pressure of a stress tensor (LAMMPS' sign: positive in compression).
pub fn pressure(s: &Tensor) -> f64 {
    -(0..DIM).map(|a| s[a][a]).sum::<f64>() / DIM as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two particles pushed apart along x by a force of 2 on i (branch 3 from j to i):
    /// compression, -r f = -6 in xx and nothing else.
    #[test]
    fn a_compressed_pair_gives_a_negative_normal_stress() {
        let mut r = [0.0; DIM];
        let mut f = [0.0; DIM];
        r[0] = 3.0;
        f[0] = 2.0;
        let v = contact_virial(r, f);
        for (a, row) in v.iter().enumerate() {
            for (b, &x) in row.iter().enumerate() {
                assert_eq!(x, if a == 0 && b == 0 { -6.0 } else { 0.0 });
            }
        }
        assert_eq!(pressure(&v), 6.0 / DIM as f64);
        let mut acc = [[1.0; DIM]; DIM];
        add_scaled(&mut acc, 0.5, &v);
        assert_eq!(acc[0][0], -2.0);
        assert_eq!(acc[DIM - 1][0], 1.0);
    }
}
