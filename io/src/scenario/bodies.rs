//! `[[body]]` and `[[drum]]` (2D): polygons given by their corners, fixed, free or driven,
//! and rings of driven wall polygons; a drive moves them at a constant speed or by laws
//! of time (LIGGGHTS `fix move/mesh` `wiggle`, `riggle`).
use super::convert::{unit, Ctx};
use super::*;
use talus_engine::DriveLaws;

impl Ctx<'_> {
    /// `[[body]]` and `[[drum]]` (2D).
    #[cfg(not(feature = "dim3"))]
    #[allow(clippy::type_complexity)]
    pub(super) fn bodies_and_drums(
        &self,
        raw_bodies: Vec<Spanned<RawBody>>,
        raw_drums: Vec<Spanned<RawDrum>>,
        lookup: &dyn Fn(&Spanned<String>) -> Result<usize>,
    ) -> Result<(Vec<PolygonBody>, Vec<Drum>)> {
        let mut bodies = Vec::with_capacity(raw_bodies.len());
        for b in raw_bodies {
            let span = b.span();
            let b = b.into_inner();
            let material = lookup(&b.material)?;
            let vspan = b.vertices.span();
            let vertices: Vec<[f64; 2]> = b.vertices.into_inner().into_iter().map(|v| v.0).collect();
            if let Err(e) = talus_engine::PolygonShape::new(&vertices) {
                return Err(self.err(vspan, e.to_string().trim_start_matches("invalid setup: ")));
            }
            let motion = match b.motion.unwrap_or(MotionKind::Fixed) {
                MotionKind::Fixed | MotionKind::Free if b.drive.is_some() => {
                    return Err(self.err(b.drive.unwrap().span(), "a drive needs motion = \"driven\""))
                }
                MotionKind::Fixed => Motion::Fixed,
                MotionKind::Free => Motion::Free,
                MotionKind::Driven => Motion::Driven(
                    self.drive(
                        b.drive
                            .ok_or_else(|| self.err(span.clone(), "`drive` is required for motion = \"driven\""))?,
                    )?,
                ),
            };
            bodies.push(PolygonBody {
                material,
                type_id: b.type_id.map_or(1, |t| t.0),
                vertices,
                motion,
            });
        }
        let mut drums = Vec::with_capacity(raw_drums.len());
        for d in raw_drums {
            let span = d.span();
            let d = d.into_inner();
            let turn = match (d.omega, d.turn) {
                (Some(_), Some(t)) => return Err(self.err(t.span(), "give `omega` or `turn`, not both")),
                (None, None) => return Err(self.err(span, "a drum needs `omega` (rad/s) or `turn` (a law of time)")),
                (_, Some(t)) => {
                    if let Some(r) = &d.ramp {
                        return Err(self.err(r.span(), "a `turn` law sets its own pace: no `ramp`"));
                    }
                    Some(self.turn(t)?)
                }
                (Some(_), None) => None,
            };
            let segments = d.segments.get_ref().0;
            if !(3..=4096).contains(&segments) {
                return Err(self.err(d.segments.span(), format!("must be in 3..=4096, got {segments}")));
            }
            drums.push(Drum {
                material: lookup(&d.material)?,
                centre: d.centre.0,
                radius: d.radius.0,
                thickness: d.thickness.0,
                segments,
                omega: d.omega.map_or(0.0, |w| w.0),
                start: d.start.map_or(0.0, |s| s.0),
                ramp: d.ramp.map_or(0.0, |r| r.into_inner().0),
                turn,
            });
        }

        Ok((bodies, drums))
    }

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
}
