//! `[run]` and `[[stage]]`: how long a run is, when it stops early, and the stages it goes
//! through (LIGGGHTS' sequence of `run` commands with fixes changed between them, Yade's
//! engines switched by a callback): settle, then open a hopper's gate, set a drum
//! turning, press a lid down, tilt gravity. Each stage runs at most its `steps`, or until
//! its `until` holds; its changes happen as it begins.
use std::collections::BTreeMap;

use super::convert::Ctx;
use super::*;

/// `[[stage]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawStage {
    pub(super) name: Option<Spanned<String>>,
    pub(super) steps: Option<Spanned<PositiveInt>>,
    pub(super) until: Option<Spanned<RawUntil>>,
    pub(super) gravity: Option<Coords>,
    pub(super) remove: Option<Vec<Spanned<String>>>,
    pub(super) start: Option<Vec<Spanned<String>>>,
    pub(super) hold: Option<Vec<Spanned<String>>>,
    #[serde(rename = "move")]
    pub(super) moves: Option<BTreeMap<String, Spanned<RawMove>>>,
}

/// One stage of a run. Its changes are made as it begins, in this order: gravity, the
/// walls and bodies taken away, the walls held, the walls set moving, the drums started.
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    /// Its `name`, or `stage K` (K from 1).
    pub name: String,
    /// The most steps it runs.
    pub steps: u64,
    /// It ends earlier once settled.
    pub until: Option<Until>,
    /// Gravity from this stage on.
    pub gravity: Option<Vector>,
    /// Walls (every engine wall a scenario wall makes) and bodies taken away.
    pub remove: Vec<Named>,
    /// Walls, or faces of boxes, stopped where they are.
    pub hold: Vec<WallPart>,
    /// Walls, or faces of boxes, moved from this stage on (by a law whose clock starts
    /// with the stage, or a servo), replacing any motion they had.
    pub moves: Vec<(WallPart, WallMove)>,
    /// Drums held still until this stage: 2D `[[drum]]`s, 3D cylinder `[[wall]]`s.
    pub start: Vec<Named>,
}

/// A `[[wall]]` (an index into `Scenario::walls`), or one face of it where it is a box
/// (`NAME.floor`, `NAME.top`, `NAME.x_low`, ...: an index into its faces as
/// [`BOX_FACES`] names them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WallPart {
    /// Index into `Scenario::walls`.
    pub wall: usize,
    /// The face, an index into [`BOX_FACES`]; None: the whole wall.
    pub face: Option<usize>,
}

/// A box's faces in the order it makes them (2D: 4, 3D: 6; `top` missing where the box
/// is open).
#[cfg(not(feature = "dim3"))]
pub const BOX_FACES: [&str; 4] = ["floor", "x_low", "x_high", "top"];
/// A box's faces in 3D, in the order it makes them (`top` missing where the box is open).
#[cfg(feature = "dim3")]
pub const BOX_FACES: [&str; 6] = ["floor", "x_low", "x_high", "y_low", "y_high", "top"];

/// What a stage names: a `[[wall]]`, a `[[body]]` (2D) or a `[[drum]]` (2D), by index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Named {
    /// A `[[wall]]`: its index into `Scenario::walls`.
    Wall(usize),
    /// A `[[body]]` (2D): its index into `Scenario::bodies`.
    Body(usize),
    /// A `[[drum]]` (2D): its index into `Scenario::drums`.
    Drum(usize),
}

/// The inward normal of a box's face `k` (in [`BOX_FACES`]' order: the last axis low,
/// then each other axis low and high, then the last axis high).
pub(super) fn box_face_normal(k: usize) -> Vector {
    let (axis, sign) = match k {
        0 => (DIM - 1, 1.0),
        k if k == 2 * DIM - 1 => (DIM - 1, -1.0),
        k => ((k - 1) / 2, if k % 2 == 1 { 1.0 } else { -1.0 }),
    };
    std::array::from_fn(|a| if a == axis { sign } else { 0.0 })
}

/// The `name`s of walls, bodies and drums, in file order (None: unnamed).
pub(super) struct Names {
    pub(super) walls: Vec<Option<Spanned<String>>>,
    pub(super) bodies: Vec<Option<Spanned<String>>>,
    pub(super) drums: Vec<Option<Spanned<String>>>,
}

impl Names {
    fn all(&self) -> impl Iterator<Item = (&Spanned<String>, Named)> {
        fn of(v: &[Option<Spanned<String>>], f: fn(usize) -> Named) -> impl Iterator<Item = (&Spanned<String>, Named)> {
            v.iter()
                .enumerate()
                .filter_map(move |(k, n)| n.as_ref().map(|n| (n, f(k))))
        }
        of(&self.walls, Named::Wall)
            .chain(of(&self.bodies, Named::Body))
            .chain(of(&self.drums, Named::Drum))
    }
}

impl Ctx<'_> {
    /// `[run]` and the `[[stage]]`s: with stages, the run is their sequence (`[run]` gives
    /// neither `steps` nor `until`); without, `[run] steps` is required.
    pub(super) fn run_and_stages(
        &self,
        run: Option<Spanned<RawRun>>,
        raw: Vec<Spanned<RawStage>>,
        names: &Names,
        walls: &[Wall],
        drum_starts: &[f64],
        servos: bool,
    ) -> Result<(Run, Vec<Stage>)> {
        self.check_names(names)?;
        let (run_span, run) = match run {
            Some(r) => (Some(r.span()), Some(r.into_inner())),
            None => (None, None),
        };
        if raw.is_empty() {
            let run = run.ok_or_else(|| self.err(0..0, "[run] is required (its `steps`), or give [[stage]]s"))?;
            let steps = self.required(
                run.steps,
                &run_span.unwrap_or(0..0),
                "steps",
                "in [run] (or give [[stage]]s)",
            )?;
            let until = self.until(run.until, (steps.0 / DEFAULT_FRAMES).max(1), servos)?;
            return Ok((Run { steps: steps.0, until }, Vec::new()));
        }
        if let Some(run) = run {
            let with = "with [[stage]]s (their `steps` and `until` say how long each runs)";
            self.forbidden(&run.steps, with)?;
            self.forbidden(&run.until, with)?;
        }
        let total: u64 = raw
            .iter()
            .map(|s| s.get_ref().steps.as_ref().map_or(0, |n| n.get_ref().0))
            .fold(0u64, u64::saturating_add);
        let default_every = (total / DEFAULT_FRAMES).max(1);
        let mut stages: Vec<Stage> = Vec::with_capacity(raw.len());
        // Where each wall or body was removed, and each drum started (the stage's name).
        let mut removed: Vec<(Named, String)> = Vec::new();
        let mut started: Vec<(Named, String)> = Vec::new();
        for (k, s) in raw.into_iter().enumerate() {
            let span = s.span();
            let s = s.into_inner();
            let name = s.name.map_or(format!("stage {}", k + 1), Spanned::into_inner);
            if stages.iter().any(|t| t.name == name) {
                return Err(self.err(span, format!("a second stage named `{name}`")));
            }
            let steps = self.required(s.steps, &span, "steps", "in a [[stage]]")?.0;
            let until = self.until(s.until, default_every, servos)?;
            let find = |n: &Spanned<String>, removed: &[(Named, String)]| -> Result<Named> {
                let found = names.all().find(|(m, _)| m.get_ref() == n.get_ref()).map(|(_, t)| t);
                let target = found.ok_or_else(|| {
                    let known: Vec<String> = names.all().map(|(m, _)| format!("`{}`", m.get_ref())).collect();
                    let known = if known.is_empty() {
                        "no wall, body or drum has a `name`".to_string()
                    } else {
                        format!("named: {}", known.join(", "))
                    };
                    self.err(
                        n.span(),
                        format!("no wall, body or drum is named `{}` ({known})", n.get_ref()),
                    )
                })?;
                if let Some((_, at)) = removed.iter().find(|(t, _)| *t == target) {
                    return Err(self.err(n.span(), format!("`{}` was removed in stage `{at}`", n.get_ref())));
                }
                Ok(target)
            };
            let mut stage = Stage {
                name: name.clone(),
                steps,
                until,
                gravity: s.gravity.map(|g| g.0),
                remove: Vec::new(),
                hold: Vec::new(),
                moves: Vec::new(),
                start: Vec::new(),
            };
            for n in s.remove.unwrap_or_default() {
                match find(&n, &removed)? {
                    Named::Drum(_) => {
                        return Err(self.err(n.span(), "removing a drum is not done yet (walls and bodies)"))
                    }
                    t => {
                        stage.remove.push(t);
                        removed.push((t, name.clone()));
                    }
                }
            }
            // A wall by its name, or a box's face as `NAME.FACE`.
            let wall_of = |n: &Spanned<String>, what: &str| -> Result<WallPart> {
                let split = n
                    .get_ref()
                    .rsplit_once('.')
                    .filter(|_| !names.all().any(|(m, _)| m.get_ref() == n.get_ref()));
                let (base, face) = match split {
                    Some((base, face)) => (Spanned::new(n.span(), base.to_string()), Some(face)),
                    None => (n.clone(), None),
                };
                let w = match find(&base, &removed)? {
                    Named::Wall(w) => w,
                    _ => return Err(self.err(n.span(), format!("`{}` is not a [[wall]]: {what}", base.get_ref()))),
                };
                let Some(face) = face else {
                    return Ok(WallPart { wall: w, face: None });
                };
                let open = match walls[w] {
                    Wall::Box { open_top, .. } => open_top,
                    _ => {
                        return Err(self.err(
                            n.span(),
                            format!("`{}` is not a box: it has no face `{face}`", base.get_ref()),
                        ))
                    }
                };
                match BOX_FACES.iter().position(|f| *f == face) {
                    Some(k) if !(open && k == BOX_FACES.len() - 1) => Ok(WallPart { wall: w, face: Some(k) }),
                    _ => Err(self.err(
                        n.span(),
                        format!(
                            "box `{}` has no face `{face}` (its faces: {}{})",
                            base.get_ref(),
                            BOX_FACES.join(", "),
                            if open { "; not top: it is open" } else { "" }
                        ),
                    )),
                }
            };
            // Parts that overlap: the same wall, or a box and one of its faces.
            let meet = |a: &WallPart, b: &WallPart| {
                a.wall == b.wall && (a.face.is_none() || b.face.is_none() || a.face == b.face)
            };
            for n in s.hold.unwrap_or_default() {
                stage.hold.push(wall_of(&n, "only walls are held")?);
            }
            for (wall_name, m) in s.moves.unwrap_or_default() {
                let n = Spanned::new(m.span(), wall_name);
                let part = wall_of(&n, "only walls are moved by a stage")?;
                if stage
                    .hold
                    .iter()
                    .chain(stage.moves.iter().map(|x| &x.0))
                    .any(|h| meet(h, &part))
                {
                    return Err(self.err(
                        m.span(),
                        format!("`{}` is held or moved twice in one stage", n.get_ref()),
                    ));
                }
                let face_normal = part.face.map(box_face_normal);
                let span = m.span();
                let mv = self.wall_move(m, &walls[part.wall], face_normal, (&names.walls, walls))?;
                // A cylinder's stress spans two planes: neither may be gone.
                if let WallDrive::CylinderStress { between, .. } = &mv.drive {
                    for b in between {
                        if let Some((_, at)) = removed.iter().find(|(t, _)| *t == Named::Wall(*b)) {
                            let plane = names.walls[*b].as_ref().map_or("?", |n| n.get_ref().as_str());
                            return Err(self.err(span, format!("`{plane}` was removed in stage `{at}`")));
                        }
                    }
                }
                stage.moves.push((part, mv));
            }
            for n in s.start.unwrap_or_default() {
                let t = find(&n, &removed)?;
                if let Some((_, at)) = started.iter().find(|(u, _)| *u == t) {
                    return Err(self.err(n.span(), format!("`{}` was started in stage `{at}`", n.get_ref())));
                }
                self.startable(&n, t, walls, drum_starts)?;
                stage.start.push(t);
                started.push((t, name.clone()));
            }
            stages.push(stage);
        }
        let steps = stages.iter().map(|s| s.steps).fold(0u64, u64::saturating_add);
        Ok((Run { steps, until: None }, stages))
    }

    /// A drum a stage may start: 2D a `[[drum]]` without a `start` of its own
    /// (`drum_starts`), 3D a cylinder `[[wall]]`.
    fn startable(&self, n: &Spanned<String>, t: Named, walls: &[Wall], drum_starts: &[f64]) -> Result<()> {
        let _ = walls;
        match t {
            Named::Drum(d) if drum_starts[d] > 0.0 => Err(self.err(
                n.span(),
                format!(
                    "drum `{}` has start = {} s: a drum a stage starts rests until then; leave its `start` out",
                    n.get_ref(),
                    drum_starts[d]
                ),
            )),
            Named::Drum(_) => Ok(()),
            #[cfg(feature = "dim3")]
            Named::Wall(w) if matches!(walls[w], Wall::Cylinder { .. }) => Ok(()),
            _ => Err(self.err(
                n.span(),
                format!(
                    "`{}` is not a drum: a stage starts {}",
                    n.get_ref(),
                    if DIM == 2 { "[[drum]]s" } else { "cylinder [[wall]]s" }
                ),
            )),
        }
    }

    /// Each name once, across walls, bodies and drums, and not empty.
    fn check_names(&self, names: &Names) -> Result<()> {
        let all: Vec<_> = names.all().collect();
        for (k, (n, _)) in all.iter().enumerate() {
            if n.get_ref().trim().is_empty() {
                return Err(self.err(n.span(), "a name is not empty"));
            }
            if all[..k].iter().any(|(m, _)| m.get_ref() == n.get_ref()) {
                return Err(self.err(n.span(), format!("`{}` names a second wall, body or drum", n.get_ref())));
            }
        }
        Ok(())
    }

    /// `until = {kinetic, unbalanced, every}` (`every` by default `default_every`).
    fn until(&self, raw: Option<Spanned<RawUntil>>, default_every: u64, servos: bool) -> Result<Option<Until>> {
        let Some(u) = raw else {
            return Ok(None);
        };
        let span = u.span();
        let u = u.into_inner();
        if u.kinetic.is_none() && u.unbalanced.is_none() && u.servo.is_none() {
            return Err(self.err(
                span,
                "names no condition: give `kinetic` (J), `unbalanced` (a ratio) or `servo` (a fraction), or more",
            ));
        }
        if u.servo.is_some() && !servos {
            return Err(self.err(
                span,
                "`servo`: nothing has a servo (a [[wall]] or stage `move` with `servo`, or `[domain] servo`)",
            ));
        }
        Ok(Some(Until {
            kinetic: u.kinetic.map(|k| k.0),
            unbalanced: u.unbalanced.map(|k| k.0),
            servo: u.servo.map(|k| k.0),
            every: u.every.map_or(default_every, |e| e.0),
        }))
    }
}
