//! Materials and the table of contact coefficients for every pair of materials.
use talus_kernels::contact::{CohesionModel, ContactParams, PairExtras, RollingModel};
use talus_kernels::math::DIM;

/// A material: its name, density and contact coefficients.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Name, as the scenario gives it.
    pub name: String,
    /// Density: areal in 2D (kg/m^2: a disc of radius r has mass density * pi * r^2), of
    /// volume in 3D (kg/m^3: a sphere's mass is density * 4/3 pi r^3).
    pub density: f64,
    /// Coefficients of a contact between two particles of this material ([`PairTable`] mixes unlike ones).
    pub contact: ContactParams,
}

/// Coefficients of every pair of materials, `n x n`, row-major. Mixing rule for unlike
/// materials: stiffnesses in series-like harmonic mean (equal materials give their own
/// value), damping arithmetic mean, friction the smaller of the two; any pair may be set
/// explicitly ([`PairTable::set`], a scenario's `[[pair]]`), as LAMMPS `pair_coeff i j`.
/// Cohesion and rolling resistance ([`PairExtras`]) are per pair too, none unless set.
#[derive(Debug, Clone, PartialEq)]
pub struct PairTable {
    /// Number of materials.
    pub n: usize,
    /// Coefficients of every pair, row-major: materials `a` and `b` at `a * n + b`.
    pub params: Vec<ContactParams>,
    /// Cohesion and rolling friction per pair, `n x n` as `params`.
    pub extras: Vec<PairExtras>,
    /// The rolling-resistance law of every pair with a rolling friction.
    pub rolling: RollingModel,
    /// The size of contact every pair with cohesion pulls with.
    pub cohesion: CohesionModel,
}

impl PairTable {
    /// The table of `materials` by the mixing rule above, without extras.
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
        PairTable {
            n,
            params,
            extras: vec![PairExtras::NONE; n * n],
            rolling: RollingModel::default(),
            cohesion: CohesionModel::default(),
        }
    }

    /// Set the coefficients and extras of materials `a` and `b` (both orders).
    pub fn set(&mut self, a: u16, b: u16, params: ContactParams, extras: PairExtras) {
        let (a, b) = (a as usize, b as usize);
        for k in [a * self.n + b, b * self.n + a] {
            self.params[k] = params;
            self.extras[k] = extras;
        }
    }

    /// Whether any pair has cohesion or rolling resistance: the pair loops then add them.
    pub fn has_extras(&self) -> bool {
        self.extras.iter().any(PairExtras::any)
    }

    /// Whether any pair has rolling resistance (round grains only: a polygon's corners
    /// resist its rolling already).
    pub fn has_rolling(&self) -> bool {
        self.extras.iter().any(|e| e.rolling_friction != 0.0)
    }

    /// What is wrong with the table, if anything: its size, a coefficient that is negative
    /// or not finite, or a pair whose two orders differ (named by materials).
    pub fn check(&self, materials: usize) -> Result<(), String> {
        if DIM == 2 && self.cohesion == CohesionModel::Sjkr2 {
            return Err("cohesion sjkr2 is for spheres (3D): discs take sjkr's chord".into());
        }
        if self.n != materials || self.params.len() != self.n * self.n || self.extras.len() != self.n * self.n {
            return Err(format!("a pair table of {} materials for {materials}", self.n));
        }
        for a in 0..self.n {
            for b in 0..self.n {
                let (p, e) = (&self.params[a * self.n + b], &self.extras[a * self.n + b]);
                let words = [
                    ("kn", p.kn),
                    ("kt", p.kt),
                    ("gamma_n", p.gamma_n),
                    ("gamma_t", p.gamma_t),
                    ("friction", p.mu),
                    ("cohesion", e.cohesion),
                    ("rolling_friction", e.rolling_friction),
                ];
                if let Some((name, v)) = words.iter().find(|(_, v)| !(v.is_finite() && *v >= 0.0)) {
                    return Err(format!("materials {a} and {b}: {name} = {v}"));
                }
                if (*p, *e) != (self.params[b * self.n + a], self.extras[b * self.n + a]) {
                    return Err(format!("materials {a} and {b}: the pair differs from {b} and {a}"));
                }
            }
        }
        Ok(())
    }

    /// Coefficients of materials `a` and `b`.
    #[inline(always)]
    pub fn get(&self, a: u16, b: u16) -> &ContactParams {
        &self.params[a as usize * self.n + b as usize]
    }

    /// Cohesion and rolling friction of materials `a` and `b`.
    #[inline(always)]
    pub fn extras(&self, a: u16, b: u16) -> &PairExtras {
        &self.extras[a as usize * self.n + b as usize]
    }
}
