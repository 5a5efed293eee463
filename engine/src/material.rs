//! Materials and the table of contact coefficients for every pair of materials.
use talus_kernels::contact::ContactParams;

#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    pub name: String,
    /// Areal density (kg/m^2): a disc of radius r has mass density * pi * r^2.
    pub density: f64,
    pub contact: ContactParams,
}

/// Coefficients of every pair of materials, `n x n`, row-major. Mixing rule for unlike
/// materials: stiffnesses in series-like harmonic mean (equal materials give their own
/// value), damping arithmetic mean, friction the smaller of the two.
#[derive(Debug, Clone)]
pub struct PairTable {
    pub n: usize,
    pub params: Vec<ContactParams>,
}

impl PairTable {
    pub fn new(materials: &[Material]) -> Self {
        let n = materials.len();
        let mut params = Vec::with_capacity(n * n);
        let h = |a: f64, b: f64| if a + b > 0.0 { 2.0 * a * b / (a + b) } else { 0.0 };
        for a in materials {
            for b in materials {
                let (p, q) = (&a.contact, &b.contact);
                params.push(if p == q {
                    *p
                } else {
                    ContactParams {
                        kn: h(p.kn, q.kn),
                        kt: h(p.kt, q.kt),
                        gamma_n: 0.5 * (p.gamma_n + q.gamma_n),
                        gamma_t: 0.5 * (p.gamma_t + q.gamma_t),
                        mu: p.mu.min(q.mu),
                    }
                });
            }
        }
        PairTable { n, params }
    }

    #[inline(always)]
    pub fn get(&self, a: u16, b: u16) -> &ContactParams {
        &self.params[a as usize * self.n + b as usize]
    }
}
