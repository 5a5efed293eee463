//! The Gear predictor-corrector's history of each degree of freedom (its higher time
//! derivatives), kept beside the particle store and renumbered with it.
use super::*;
use crate::store::LOADS;

/// History of the Gear predictor for the degrees of freedom, the axes then the angular
/// components (x, y, angle in 2D; x, y, z and the rotations about them in 3D):
/// acceleration and the third to fifth derivatives.
#[derive(Debug, Default, Clone)]
pub(super) struct GearHistory {
    pub(super) a: [Vec<f64>; LOADS],
    pub(super) b: [Vec<f64>; LOADS],
    pub(super) c: [Vec<f64>; LOADS],
    pub(super) d: [Vec<f64>; LOADS],
}

impl GearHistory {
    pub(super) fn arrays(&mut self) -> impl Iterator<Item = &mut Vec<f64>> {
        self.a
            .iter_mut()
            .chain(&mut self.b)
            .chain(&mut self.c)
            .chain(&mut self.d)
    }

    /// The degrees of freedom as views for the Gear kernels, from the store's values and
    /// rates ([`crate::store::ParticleStore::gear_views`]).
    pub(super) fn dofs<'a>(
        &'a mut self,
        values: [Option<&'a mut [f64]>; LOADS],
        rates: [&'a mut [f64]; LOADS],
    ) -> [Derivatives<'a>; LOADS] {
        let (mut x, mut v) = (values.into_iter(), rates.into_iter());
        let (mut a, mut b) = (self.a.iter_mut(), self.b.iter_mut());
        let (mut c, mut d) = (self.c.iter_mut(), self.d.iter_mut());
        std::array::from_fn(|_| Derivatives {
            x: x.next().expect("LOADS values"),
            v: v.next().expect("LOADS rates"),
            a: a.next().expect("LOADS arrays"),
            b: b.next().expect("LOADS arrays"),
            c: c.next().expect("LOADS arrays"),
            d: d.next().expect("LOADS arrays"),
        })
    }
}
