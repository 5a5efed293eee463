//! `[[body]] drive` and `[[drum]] turn`: bodies of infinite mass moved by a constant
//! speed or by laws of time (LIGGGHTS `fix move/mesh` `wiggle`, `riggle`).
use super::convert::{unit, Ctx};
use super::*;
use talus_engine::DriveLaws;

impl Ctx<'_> {
    /// A body's `drive`: `{centre, omega, velocity, start, ramp}` (a constant speed), or
    /// `{centre, slide, turn, start}` (laws of the time since `start`).
    pub(super) fn drive(&self, raw: Spanned<RawDrive>) -> Result<Drive> {
        let d = raw.into_inner();
        let laws = if d.slide.is_some() || d.turn.is_some() {
            let constant = (d.omega.as_ref().map(|o| o.span()))
                .or(d.velocity.as_ref().map(|v| v.span()))
                .or(d.ramp.as_ref().map(|r| r.span()));
            if let Some(span) = constant {
                return Err(self.err(
                    span,
                    "`slide` and `turn` replace `omega`, `velocity` and `ramp`: give one kind of motion",
                ));
            }
            let slide = match d.slide {
                None => None,
                Some(l) => {
                    let span = l.span();
                    let l = l.into_inner();
                    let direction = l
                        .direction
                        .as_ref()
                        .ok_or_else(|| self.err(span.clone(), "a slide needs a `direction`"))?
                        .get_ref()
                        .0;
                    Some((unit(direction), self.time_law(l, span, "m")?))
                }
            };
            let turn = d.turn.map(|l| self.turn(l)).transpose()?;
            Some(DriveLaws { slide, turn })
        } else {
            None
        };
        Ok(Drive {
            centre: d.centre.0,
            omega: d.omega.map_or(0.0, |w| w.into_inner().0),
            velocity: d.velocity.map_or([0.0; 2], |v| v.into_inner().0),
            start: d.start.map_or(0.0, |s| s.0),
            ramp: d.ramp.map_or(0.0, |r| r.into_inner().0),
            laws,
        })
    }

    /// `turn = {velocity | sine | table}`: an angle (rad) about the drive's centre.
    pub(super) fn turn(&self, raw: Spanned<RawLaw>) -> Result<Displacement> {
        let span = raw.span();
        let l = raw.into_inner();
        if let Some(d) = &l.direction {
            return Err(self.err(d.span(), "a turn is about the centre: no `direction`"));
        }
        self.time_law(l, span, "rad")
    }

    /// Exactly one of `velocity` (`unit`/s), `sine = {amplitude, frequency, phase}`
    /// (`unit`, Hz, rad) or `table = [[t, value], ...]` (times increasing).
    fn time_law(&self, l: RawLaw, span: std::ops::Range<usize>, unit: &str) -> Result<Displacement> {
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
