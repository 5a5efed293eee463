//! `[[wall]] move`: a wall translated by a function of time (LIGGGHTS `fix move/mesh`).
use super::convert::Ctx;
use super::*;

/// Every wall's `name` and the walls, in file order.
pub(super) type Others<'a> = (&'a [Option<Spanned<String>>], &'a [Wall]);

impl Ctx<'_> {
    /// The motion of `wall`: a direction (default the wall's normal; a box's: +y in 2D, +z
    /// in 3D) and exactly one of `velocity` (m/s), `sine = {amplitude, frequency, phase}`,
    /// `table = [[t, s], ...]` (s in m at t in s, times increasing) or `servo = {force,
    /// gain, max_speed}` (N, m/s per N, m/s; a line, plane or cylinder). A cylinder (3D)
    /// moves along its radius, s into the grains (the radius shrinking), without a
    /// `direction`.
    /// With a `pivot` (and in 3D an `axis`), the law is an angle (rad) the wall turns by
    /// about the axis through the pivot (2D: counter-clockwise), every face of a box alike.
    /// `face`: the inward normal of the one face of a box that moves (a stage's
    /// `NAME.FACE`), its default direction. `others`: every wall's name and wall (a
    /// cylinder's stress servo names the planes that bound it).
    pub(super) fn wall_move(
        &self,
        raw: Spanned<RawMove>,
        wall: &Wall,
        face: Option<Vector>,
        others: Others,
    ) -> Result<WallMove> {
        let span = raw.span();
        let mut m = raw.into_inner();
        if let Some(pivot) = m.pivot.take() {
            return self.tilt(m, pivot, wall, face, span);
        }
        if let Some(a) = &m.axis {
            return Err(self.err(a.span(), "`axis` is what a wall turns about: give a `pivot` too"));
        }
        let direction = match (&m.direction, wall) {
            (Some(d), _) => d.get_ref().0,
            (None, _) if face.is_some() => face.expect("a face"),
            #[cfg(not(feature = "dim3"))]
            (None, Wall::Line { normal, .. }) => *normal,
            #[cfg(feature = "dim3")]
            (None, Wall::Plane { normal, .. }) => *normal,
            #[cfg(feature = "dim3")]
            (None, Wall::Cylinder { .. }) => [-1.0, 0.0, 0.0],
            (None, Wall::Box { .. }) => std::array::from_fn(|a| if a == DIM - 1 { 1.0 } else { 0.0 }),
        };
        #[cfg(feature = "dim3")]
        if let (Wall::Cylinder { .. }, Some(d)) = (wall, &m.direction) {
            return Err(self.err(
                d.span(),
                "a cylinder moves along its radius (into the grains: it shrinks): no `direction`",
            ));
        }
        let len = direction.iter().map(|d| d * d).sum::<f64>().sqrt();
        let direction = direction.map(|d| d / len);
        let law = m.velocity.is_some() || m.sine.is_some() || m.table.is_some();
        let drive = match m.servo {
            None if law => {
                let l = RawLaw {
                    direction: None,
                    velocity: m.velocity,
                    sine: m.sine,
                    table: m.table,
                };
                WallDrive::Law(self.time_law(l, span, "m")?)
            }
            Some(s) if !law => self.servo(s, wall, face.is_some(), span, others)?,
            _ => {
                return Err(self.err(
                    span,
                    "give exactly one of `velocity` (m/s), `sine = {amplitude, frequency, phase}`, `table = [[t, \
                     s], ...]` or `servo = {force, gain, max_speed}`",
                ))
            }
        };
        Ok(WallMove { direction, drive })
    }

    /// A turn about `pivot` by `velocity | sine | table` (rad): the axis `axis` in 3D, z
    /// (counter-clockwise) in 2D; not for a cylinder, and without a direction or servo.
    fn tilt(
        &self,
        m: RawMove,
        pivot: Spanned<Coords>,
        wall: &Wall,
        face: Option<Vector>,
        span: std::ops::Range<usize>,
    ) -> Result<WallMove> {
        #[cfg(feature = "dim3")]
        let pspan = pivot.span();
        #[cfg(feature = "dim3")]
        if let Wall::Cylinder { .. } = wall {
            return Err(self.err(
                pspan,
                "a cylinder turns about its own axis: give it a `turn`, not a `pivot`",
            ));
        }
        if let Some(d) = &m.direction {
            return Err(self.err(d.span(), "a wall turned about a `pivot` has no `direction`"));
        }
        if m.servo.is_some() {
            return Err(self.err(span, "a servo moves a wall along a direction: no `pivot`"));
        }
        #[cfg(feature = "dim3")]
        let axis = match m.axis {
            Some(a) => {
                let v = a.into_inner().0;
                let len = v.iter().map(|x| x * x).sum::<f64>().sqrt();
                v.map(|x| x / len)
            }
            None => return Err(self.err(pspan, "a wall turned about a `pivot` needs the `axis` it turns about")),
        };
        #[cfg(not(feature = "dim3"))]
        let axis = match m.axis {
            Some(a) => return Err(self.err(
                a.span(),
                "in 2D a wall turns in the plane (counter-clockwise; a negative angle turns it clockwise): no `axis`",
            )),
            None => [1.0],
        };
        let law = RawLaw {
            direction: None,
            velocity: m.velocity,
            sine: m.sine,
            table: m.table,
        };
        let law = self.time_law(law, span, "rad")?;
        // Where it goes is set by its law; its `direction` is kept for a box's face only
        // (the way the faces are told apart).
        let direction = face.unwrap_or(match wall {
            #[cfg(not(feature = "dim3"))]
            Wall::Line { normal, .. } => *normal,
            #[cfg(feature = "dim3")]
            Wall::Plane { normal, .. } => *normal,
            _ => std::array::from_fn(|a| if a == DIM - 1 { 1.0 } else { 0.0 }),
        });
        Ok(WallMove {
            direction,
            drive: WallDrive::Tilt {
                pivot: pivot.into_inner().0,
                axis,
                law,
            },
        })
    }

    /// `servo = {force | stress, gain, max_speed}`: a force on a line or plane (or one face
    /// of a box: `face`), a stress (one, or one per axis) on a closed box's faces, or (3D)
    /// a stress on a cylinder over its area `between` two named planes across its axis.
    #[cfg_attr(not(feature = "dim3"), allow(unused_variables))]
    fn servo(
        &self,
        s: RawServo,
        wall: &Wall,
        face: bool,
        span: std::ops::Range<usize>,
        others: Others,
    ) -> Result<WallDrive> {
        let is_box = matches!(wall, Wall::Box { .. }) && !face;
        #[cfg(feature = "dim3")]
        if let (Wall::Cylinder { axis, .. }, Some(st)) = (wall, &s.stress) {
            if s.force.is_some() {
                return Err(self.err(span, "a servo needs exactly one of `force` (N) or `stress`"));
            }
            let stress = match st.get_ref() {
                RawStress::All(x) if x.is_finite() => *x,
                _ => return Err(self.err(st.span(), "a cylinder takes one stress (N/m^2), radial")),
            };
            let between = s.between.ok_or_else(|| {
                self.err(
                    span,
                    "a cylinder's stress acts over its area between two planes across its axis: name them, `between \
                     = [\"bottom\", \"top\"]`",
                )
            })?;
            let bspan = between.span();
            let planes = between.into_inner();
            if planes.len() != 2 {
                return Err(self.err(bspan, format!("{} names: give the two planes", planes.len())));
            }
            let plane = |n: &Spanned<String>| -> Result<usize> {
                let k = others
                    .0
                    .iter()
                    .position(|m| m.as_ref().is_some_and(|m| m.get_ref() == n.get_ref()))
                    .ok_or_else(|| self.err(n.span(), format!("no [[wall]] is named `{}`", n.get_ref())))?;
                match &others.1[k] {
                    Wall::Plane { normal, .. }
                        if (normal.iter().zip(axis).map(|(a, b)| a * b).sum::<f64>().abs() - 1.0).abs() < 1e-9 =>
                    {
                        Ok(k)
                    }
                    _ => Err(self.err(
                        n.span(),
                        format!("`{}` is not a plane across the cylinder's axis", n.get_ref()),
                    )),
                }
            };
            let between = [plane(&planes[0])?, plane(&planes[1])?];
            if between[0] == between[1] {
                return Err(self.err(bspan, "two different planes are needed"));
            }
            return Ok(WallDrive::CylinderStress {
                stress,
                gain: s.gain.0,
                max_speed: s.max_speed.0,
                between,
            });
        }
        if let Some(b) = &s.between {
            return Err(self.err(b.span(), "`between` is for a cylinder's stress (3D)"));
        }
        match (s.force, s.stress) {
            (Some(_), None) if is_box => Err(self.err(
                span,
                "a servo to a `force` moves one line or plane; a box's faces take a `stress`",
            )),
            (Some(f), None) => Ok(WallDrive::Servo(Servo {
                target: f.0,
                gain: s.gain.0,
                max_speed: s.max_speed.0,
            })),
            (None, Some(st)) => {
                if !matches!(wall, Wall::Box { .. }) {
                    return Err(self.err(
                        st.span(),
                        if DIM == 2 {
                            "a servo to a `stress` moves a box's faces; give a line a `force`"
                        } else {
                            "a servo to a `stress` moves a box's faces or a cylinder; give a plane a `force`"
                        },
                    ));
                }
                if let Wall::Box { open_top: true, .. } = wall {
                    return Err(self.err(st.span(), "a stress servo needs a closed box (open_top = false): the faces' extents come from the opposite faces"));
                }
                let stress: Vector = match st.get_ref() {
                    RawStress::All(x) => [*x; DIM],
                    RawStress::Axes(v) if v.len() == DIM => std::array::from_fn(|a| v[a]),
                    RawStress::Axes(v) => {
                        return Err(self.err(
                            st.span(),
                            format!("{} values: give one stress, or one per axis ({DIM})", v.len()),
                        ))
                    }
                };
                if !stress.iter().all(|x| x.is_finite()) {
                    return Err(self.err(st.span(), format!("{stress:?} is not finite")));
                }
                Ok(WallDrive::Stress {
                    stress,
                    gain: s.gain.0,
                    max_speed: s.max_speed.0,
                })
            }
            _ => Err(self.err(span, "a servo needs exactly one of `force` (N) or `stress`")),
        }
    }
}
