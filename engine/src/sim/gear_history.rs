//! The Gear predictor-corrector's history of each degree of freedom (its higher time
//! derivatives), kept beside the particle store and renumbered with it.
use super::*;

/// History of the Gear predictor for the three degrees of freedom (x, y, angle):
/// acceleration and the third to fifth derivatives.
#[derive(Debug, Default, Clone)]
pub(super) struct GearHistory {
    pub(super) a: [Vec<f64>; 3],
    pub(super) b: [Vec<f64>; 3],
    pub(super) c: [Vec<f64>; 3],
    pub(super) d: [Vec<f64>; 3],
}

impl GearHistory {
    pub(super) fn arrays(&mut self) -> impl Iterator<Item = &mut Vec<f64>> {
        self.a
            .iter_mut()
            .chain(&mut self.b)
            .chain(&mut self.c)
            .chain(&mut self.d)
    }

    /// The three degrees of freedom (x, y, angle) as views for the Gear kernels.
    pub(super) fn dofs<'a>(
        &'a mut self,
        pos: [&'a mut Vec<f64>; 3],
        vel: [&'a mut Vec<f64>; 3],
    ) -> [Derivatives<'a>; 3] {
        let [a0, a1, a2] = &mut self.a;
        let [b0, b1, b2] = &mut self.b;
        let [c0, c1, c2] = &mut self.c;
        let [d0, d1, d2] = &mut self.d;
        let [x0, x1, x2] = pos;
        let [v0, v1, v2] = vel;
        let dof = |x, v, a, b, c, d| Derivatives { x, v, a, b, c, d };
        [
            dof(x0, v0, a0, b0, c0, d0),
            dof(x1, v1, a1, b1, c1, d1),
            dof(x2, v2, a2, b2, c2, d2),
        ]
    }
}
