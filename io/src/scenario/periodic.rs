//! `[domain] periodic`: which axes of the domain wrap (LAMMPS `boundary p`), and the walls
//! that cannot be across them; `shear_rate` and the cell's `servo`.
use super::convert::Ctx;
use super::*;

const AXES: [&str; 3] = ["x", "y", "z"];

impl Ctx<'_> {
    /// `shear_rate`: Lees-Edwards shear of a cell periodic along x and y (not 0).
    pub(super) fn shear_rate(&self, raw: Option<Spanned<Finite>>, periodic: [bool; DIM]) -> Result<f64> {
        let Some(raw) = raw else {
            return Ok(0.0);
        };
        let rate = raw.get_ref().0;
        if rate == 0.0 {
            return Err(self.err(raw.span(), "must not be 0 (leave it out for no shear)"));
        }
        if !(periodic[0] && periodic[1]) {
            return Err(self.err(
                raw.span(),
                "Lees-Edwards shear needs periodic = [\"x\", \"y\"] (x the flow, y the gradient)",
            ));
        }
        Ok(rate)
    }

    /// `servo = {stress, gain, max_speed, every, min_length, max_length}`: the y length of
    /// a cell periodic along y under a servo to a normal stress; the range of lengths must
    /// hold the domain's.
    pub(super) fn cell_servo(&self, raw: Option<Spanned<RawCellServo>>, d: &Domain) -> Result<Option<CellServo>> {
        let Some(raw) = raw else {
            return Ok(None);
        };
        let span = raw.span();
        if !d.periodic[1] {
            return Err(self.err(
                span,
                "a servo on the cell's y length needs y periodic (periodic = [\"x\", \"y\"] or [\"y\"])",
            ));
        }
        let r = raw.into_inner();
        let l = d.max[1] - d.min[1];
        let s = CellServo {
            stress: r.stress.0,
            gain: r.gain.0,
            max_speed: r.max_speed.0,
            every: r.every.map_or(10, |e| e.0),
            min_length: r.min_length.map_or(0.5 * l, |m| m.0),
            max_length: r.max_length.map_or(2.0 * l, |m| m.0),
        };
        if s.every > 1_000_000_000 {
            return Err(self.err(span, format!("every = {}: at most 10^9 steps", s.every)));
        }
        if !(s.min_length <= l && l <= s.max_length) {
            return Err(self.err(
                span,
                format!(
                    "min_length..max_length = {}..{} m must hold the domain's y length {l} m",
                    s.min_length, s.max_length
                ),
            ));
        }
        Ok(Some(s))
    }

    /// The periodic axes named in `raw` (each of the build's axes once at most), checked
    /// against the walls (`walls[k]` read from the span `spans[k]`): a wall across a
    /// periodic axis is refused by its line.
    pub(super) fn periodic(
        &self,
        raw: Option<Spanned<Vec<Spanned<String>>>>,
        walls: &[Wall],
        spans: &[std::ops::Range<usize>],
    ) -> Result<[bool; DIM]> {
        let mut axes = [false; DIM];
        let Some(raw) = raw else {
            return Ok(axes);
        };
        for name in raw.get_ref() {
            let a = AXES[..DIM].iter().position(|&x| x == name.get_ref()).ok_or_else(|| {
                self.err(
                    name.span(),
                    format!(
                        "unknown axis {:?} (the axes here: {})",
                        name.get_ref(),
                        AXES[..DIM].join(", ")
                    ),
                )
            })?;
            if std::mem::replace(&mut axes[a], true) {
                return Err(self.err(name.span(), format!("axis {} named twice", AXES[a])));
            }
        }
        for (w, span) in walls.iter().zip(spans) {
            let across = |a: usize| match w {
                Wall::Box { .. } => true,
                #[cfg(not(feature = "dim3"))]
                Wall::Line { normal, .. } => normal[a] != 0.0,
                #[cfg(feature = "dim3")]
                Wall::Plane { normal, .. } => normal[a] != 0.0,
                // A drum may be periodic along its own axis only.
                #[cfg(feature = "dim3")]
                Wall::Cylinder { axis, .. } => axis[a].abs() != 1.0,
            };
            if let Some(a) = (0..DIM).find(|&a| axes[a] && across(a)) {
                return Err(self.err(
                    span.clone(),
                    format!(
                        "this wall lies across periodic axis {} (domain.periodic): a periodic axis has no walls \
                         across it; take the wall out or the axis from domain.periodic",
                        AXES[a]
                    ),
                ));
            }
        }
        Ok(axes)
    }
}
