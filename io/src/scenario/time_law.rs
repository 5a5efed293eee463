//! Laws of time in a scenario: `velocity | sine | table`, for a driven body's slide and
//! turn (2D) and a drum's turn (2D drums of polygons, 3D cylinders).
use super::convert::Ctx;
use super::*;

impl Ctx<'_> {
    /// `turn = {velocity | sine | table}`: an angle (rad) about a drive's centre or a
    /// drum's axis.
    pub(super) fn turn(&self, raw: Spanned<RawLaw>) -> Result<Displacement> {
        let span = raw.span();
        let l = raw.into_inner();
        if let Some(d) = &l.direction {
            return Err(self.err(d.span(), "a turn is about a centre or an axis: no `direction`"));
        }
        self.time_law(l, span, "rad")
    }

    /// Exactly one of `velocity` (`unit`/s), `sine = {amplitude, frequency, phase}`
    /// (`unit`, Hz, rad) or `table = [[t, value], ...]` (times increasing).
    pub(super) fn time_law(&self, l: RawLaw, span: std::ops::Range<usize>, unit: &str) -> Result<Displacement> {
        match (l.velocity, l.sine, l.table) {
            (Some(v), None, None) => Ok(Displacement::Velocity(v.0)),
            (None, Some(s), None) => Ok(Displacement::Sine {
                amplitude: s.amplitude.0,
                frequency: s.frequency.0,
                phase: s.phase.map_or(0.0, |p| p.0),
            }),
            (None, None, Some(t)) => {
                let law = Displacement::Table(t.get_ref().clone());
                law.check().map_err(|msg| self.err(t.span(), msg))?;
                Ok(law)
            }
            _ => Err(self.err(
                span,
                format!(
                    "give exactly one of `velocity` ({unit}/s), `sine = {{amplitude ({unit}), frequency, phase}}` \
                     or `table = [[t, {unit}], ...]`"
                ),
            )),
        }
    }
}
