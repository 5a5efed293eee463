//! `[[pair]]`: the coefficients of one pair of materials set explicitly over the mixing
//! rule (LAMMPS `pair_coeff i j`, LIGGGHTS' per-type-pair properties).
use super::convert::Ctx;
use super::*;

impl Ctx<'_> {
    /// The `[[pair]]` entries: two known materials each (the same one twice is the like
    /// pair), no pair twice, at least one coefficient, not both `restitution` and
    /// `gamma_n`.
    pub(super) fn pairs(
        &self,
        raw: Vec<Spanned<RawPair>>,
        lookup: &dyn Fn(&Spanned<String>) -> Result<usize>,
    ) -> Result<Vec<PairSpec>> {
        let mut out: Vec<PairSpec> = Vec::new();
        for p in raw {
            let span = p.span();
            let p = p.into_inner();
            let names = p.materials.get_ref();
            if names.len() != 2 {
                return Err(self.err(
                    p.materials.span(),
                    format!(
                        "names {} materials; a pair names two (the same one twice for the like pair)",
                        names.len()
                    ),
                ));
            }
            let (a, b) = (lookup(&names[0])?, lookup(&names[1])?);
            if out.iter().any(|q| (q.a.min(q.b), q.a.max(q.b)) == (a.min(b), a.max(b))) {
                return Err(self.err(
                    p.materials.span(),
                    format!(
                        "the pair `{}`-`{}` is given twice",
                        names[0].get_ref(),
                        names[1].get_ref()
                    ),
                ));
            }
            let damping = match (p.restitution, p.gamma_n) {
                (Some(_), Some(g)) => {
                    return Err(self.err(g.span(), "`restitution` and `gamma_n` cannot both be given"))
                }
                (Some(e), None) => Some(NormalDamping::Restitution(e.into_inner().0)),
                (None, Some(g)) => Some(NormalDamping::GammaN(g.into_inner().0)),
                (None, None) => None,
            };
            let spec = PairSpec {
                a,
                b,
                kn: p.kn.map(|v| v.0),
                kt: p.kt.map(|v| v.0),
                damping,
                gamma_t: p.gamma_t.map(|v| v.0),
                friction: p.friction.map(|v| v.0),
                cohesion: p.cohesion.map(|v| v.0),
                rolling_friction: p.rolling_friction.map(|v| v.0),
            };
            let given = [
                spec.kn,
                spec.kt,
                spec.gamma_t,
                spec.friction,
                spec.cohesion,
                spec.rolling_friction,
            ];
            if spec.damping.is_none() && given.iter().all(Option::is_none) {
                return Err(self.err(
                    span,
                    "sets no coefficient: give kn, kt, restitution or gamma_n, gamma_t, friction, cohesion or \
                     rolling_friction",
                ));
            }
            out.push(spec);
        }
        Ok(out)
    }
}
