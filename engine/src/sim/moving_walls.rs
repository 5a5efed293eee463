//! Walls moved by a prescribed function of time ([`crate::wall_motion`]): their poses set
//! at every step, and their contact list kept true while they move.
//!
//! The wall-contact list holds the particles whose stored boxes reach a wall; a moving
//! wall's list also holds those within `margin` of it, and is built again when the wall
//! has moved `margin` since (a cheap pass over the stored boxes, without a broad-phase
//! update): between two builds no particle leaves its box and no wall moves farther than
//! the reach it was listed with, so no touching pair is missed.
use talus_kernels::math::{Aabb, Vector, ANG, DIM};
use talus_kernels::neighbor::NeighborSearch;

use super::{Broad, Simulation};
use crate::error::{EngineError, Result};
use crate::forces::walls::WallWork;
use crate::forces::WallSink;
use crate::pool::Phase;
use crate::wall_motion::{farthest_corner, turned, Displacement, Servo, WallMotion, WallServo, WallTilt, WallTurn};
use talus_kernels::contact::ContactForce;

impl Simulation {
    /// Move wall `wall` (a line in 2D, a plane in 3D) along `direction` (normalised here)
    /// by `law` from where it is now, the law's clock starting now (LIGGGHTS `fix
    /// move/mesh`). Refused: an unknown or removed wall, a cylinder, a wall already moving
    /// (hold it first: [`Simulation::hold_wall`]), a zero or non-finite direction, a law
    /// [`Displacement::check`] refuses.
    pub fn move_wall(&mut self, wall: usize, direction: Vector, law: Displacement) -> Result<()> {
        let setup = |m: String| EngineError::Setup(format!("wall {wall}: {m}"));
        let (origin, direction) = self.free_wall(wall, direction).map_err(setup)?;
        law.check().map_err(setup)?;
        // The wall is where it is now, whatever s(0) the law starts from (a table's first
        // value): the origin is set back by s(0).
        let (s0, _) = law.at(0.0);
        self.moving_walls.push(WallMotion {
            wall,
            direction,
            origin: std::array::from_fn(|a| origin[a] - s0 * direction[a]),
            law,
            start: self.time,
            listed: origin,
        });
        self.place_walls(self.time);
        self.needs_rebuild = true;
        Ok(())
    }

    /// The moving walls.
    pub fn wall_motions(&self) -> &[WallMotion] {
        &self.moving_walls
    }

    /// Put wall `wall` (a line or plane) under `servo` along `direction` (normalised here;
    /// the load is the particles' push against it). Refused as [`Simulation::move_wall`]
    /// refuses, and a servo [`Servo::check`] refuses.
    pub fn servo_wall(&mut self, wall: usize, direction: Vector, servo: Servo) -> Result<()> {
        self.servo_face(wall, direction, servo, Vec::new())
    }

    /// Put wall `wall`, one face of a box, under a servo to the stress `servo.target`
    /// along `direction`: its target force is the stress times the face's extent, the
    /// product of the distances between the pairs of walls `across` (the box's faces on
    /// the other axes, which may move too). Refused as [`Simulation::servo_wall`]
    /// refuses, and pairs of walls that are not lines or planes, or removed.
    pub fn servo_face(&mut self, wall: usize, direction: Vector, servo: Servo, across: Vec<[usize; 2]>) -> Result<()> {
        let setup = |m: String| EngineError::Setup(format!("wall {wall}: {m}"));
        servo.check().map_err(setup)?;
        let bounded = |w: usize| self.walls.get(w).is_some_and(|x| !x.removed && x.point().is_some());
        if let Some(pair) = across
            .iter()
            .find(|p| !(bounded(p[0]) && bounded(p[1]) && p[0] != p[1]))
        {
            return Err(setup(format!("walls {pair:?}: not two lines or planes to span a face")));
        }
        let (origin, direction) = self.free_wall(wall, direction).map_err(setup)?;
        self.servos.push(WallServo {
            wall,
            direction,
            origin,
            servo,
            s: 0.0,
            v: 0.0,
            load: 0.0,
            listed: origin,
            across,
        });
        self.needs_rebuild = true;
        Ok(())
    }

    /// Stop wall `wall` where it is now: its motion or servo ends and its velocity is zero
    /// (a wall that does not move stays as it is). Refused: an unknown wall.
    pub fn hold_wall(&mut self, wall: usize) -> Result<()> {
        let w = self
            .walls
            .get_mut(wall)
            .ok_or_else(|| EngineError::Setup(format!("wall {wall}: no such wall")))?;
        let at = w.coordinate();
        w.set_pose(at, [0.0; DIM]);
        // A tilted line or plane stops turning where it is (a cylinder keeps its spin).
        w.set_tilt(w.normal_at(at), [0.0; ANG]);
        self.moving_walls.retain(|m| m.wall != wall);
        self.servos.retain(|s| s.wall != wall);
        self.tilts.retain(|t| t.wall != wall);
        Ok(())
    }

    /// Turn wall `wall` (a line in 2D, a plane in 3D) about the `axis` (3D; normalised
    /// here; 2D: `[1.0]`, counter-clockwise, or `[-1.0]`) through `pivot` by the angle
    /// `law` gives (rad), from where it is now, the law's clock starting now (LIGGGHTS `fix
    /// move/mesh ... rotate/variable`): a tilting floor, a flap, a turntable. Refused as
    /// [`Simulation::move_wall`] refuses, and a pivot or axis not finite, an axis of no
    /// length.
    pub fn tilt_wall(&mut self, wall: usize, pivot: Vector, axis: [f64; ANG], law: Displacement) -> Result<()> {
        let setup = |m: String| EngineError::Setup(format!("wall {wall}: {m}"));
        let (point, _) = self.free_wall(wall, [1.0; DIM]).map_err(setup)?;
        if self.walls[wall].point().is_none() {
            return Err(setup("a cylinder turns about its own axis: give it a turn".into()));
        }
        law.check().map_err(setup)?;
        if !pivot.iter().all(|x| x.is_finite()) {
            return Err(setup(format!("pivot {pivot:?} is not finite")));
        }
        let len = axis.iter().map(|k| k * k).sum::<f64>().sqrt();
        if !(len.is_finite() && len > 0.0) {
            return Err(setup(format!("axis {axis:?} has no length")));
        }
        let axis = axis.map(|k| k / len);
        // The wall is where it is now, whatever angle theta(0) the law starts from: its
        // pose at angle 0 is the present one turned back by theta(0).
        let (theta0, _) = law.at(0.0);
        let normal = self.walls[wall].normal_at(point);
        let arm: Vector = std::array::from_fn(|a| point[a] - pivot[a]);
        let arm = turned(arm, axis, -theta0);
        self.tilts.push(WallTilt {
            wall,
            pivot,
            axis,
            point: std::array::from_fn(|a| pivot[a] + arm[a]),
            normal: turned(normal, axis, -theta0),
            law,
            start: self.time,
            listed: normal,
            lever: self.lever()(pivot),
        });
        self.place_walls(self.time);
        self.needs_rebuild = true;
        Ok(())
    }

    /// The lines and planes turned about a pivot.
    pub fn wall_tilts(&self) -> &[WallTilt] {
        &self.tilts
    }

    /// Take wall `wall` away (a hopper's gate opened): its contacts end, with their springs,
    /// and no particle meets it again. It keeps its number; moving, it stops. Refused: an
    /// unknown wall, one already removed, one that bounds the face of a servo to a stress
    /// (hold that servo's wall first).
    pub fn remove_wall(&mut self, wall: usize) -> Result<()> {
        match self.walls.get(wall) {
            None => return Err(EngineError::Setup(format!("wall {wall}: no such wall"))),
            Some(w) if w.removed => return Err(EngineError::Setup(format!("wall {wall}: removed already"))),
            Some(_) => {}
        }
        if let Some(s) = self.servos.iter().find(|s| s.across.iter().any(|p| p.contains(&wall))) {
            return Err(EngineError::Setup(format!(
                "wall {wall}: it bounds the face that wall {}'s servo holds a stress over (hold wall {} first)",
                s.wall, s.wall
            )));
        }
        self.hold_wall(wall)?;
        self.turns.retain(|t| t.wall != wall);
        self.walls[wall].removed = true;
        self.wall_contacts.drop_wall(wall as u16);
        Ok(())
    }

    /// Turn the drum (the inside of a cylinder) `wall` at `spin` rad/s about its axis from
    /// now. Refused: an unknown or removed wall, a plane, a spin not finite.
    #[cfg(feature = "dim3")]
    pub fn spin_wall(&mut self, wall: usize, spin: f64) -> Result<()> {
        let bad = |m: &str| Err(EngineError::Setup(format!("wall {wall}: {m}")));
        if !spin.is_finite() {
            return bad("the spin is not finite");
        }
        match self.walls.get_mut(wall) {
            Some(w) if !w.removed => match &mut w.surface {
                crate::walls::Surface::Cylinder(c) => {
                    c.spin = spin;
                    // A constant spin replaces a law the drum turned by.
                    self.turns.retain(|t| t.wall != wall);
                    Ok(())
                }
                crate::walls::Surface::Plane(_) => bad("a plane does not spin"),
            },
            _ => bad("no such wall"),
        }
    }

    /// Turn the drum (the inside of a cylinder) `wall` about its axis by the angle `law`
    /// gives, its clock starting now (the spin it had, or an earlier law, replaced).
    /// Refused: an unknown or removed wall, a plane, a law [`Displacement::check`]
    /// refuses.
    #[cfg(feature = "dim3")]
    pub fn turn_wall(&mut self, wall: usize, law: Displacement) -> Result<()> {
        let setup = |m: String| EngineError::Setup(format!("wall {wall}: {m}"));
        law.check().map_err(setup)?;
        match self.walls.get(wall) {
            Some(w) if !w.removed && w.point().is_none() => {}
            Some(w) if !w.removed => return Err(setup("a plane does not turn".into())),
            _ => return Err(setup("no such wall".into())),
        }
        self.turns.retain(|t| t.wall != wall);
        self.turns.push(WallTurn {
            wall,
            law,
            start: self.time,
        });
        self.place_walls(self.time);
        Ok(())
    }

    /// The drums turned by laws of time.
    pub fn wall_turns(&self) -> &[WallTurn] {
        &self.turns
    }

    /// Wall `wall`'s point, if it is a line or plane that does not move yet, and
    /// `direction` normalised, if it has a length.
    fn free_wall(&self, wall: usize, direction: Vector) -> std::result::Result<(Vector, Vector), String> {
        let w = self
            .walls
            .get(wall)
            .ok_or(format!("no such wall ({} walls)", self.walls.len()))?;
        if w.removed {
            return Err("removed".into());
        }
        let origin = w.coordinate();
        if self.moved_walls().any(|w| w == wall) {
            return Err("moves already".into());
        }
        // A cylinder moves along its radius, into the grains: the radius shrinks.
        if w.point().is_none() {
            let mut inward = [0.0; DIM];
            inward[0] = -1.0;
            return Ok((origin, inward));
        }
        let len = direction.iter().map(|d| d * d).sum::<f64>().sqrt();
        if !(len.is_finite() && len > 0.0) {
            return Err(format!("direction {direction:?} has no length"));
        }
        Ok((origin, direction.map(|d| d / len)))
    }

    /// The walls under a servo, with their last loads.
    pub fn wall_servos(&self) -> &[WallServo] {
        &self.servos
    }

    /// Each servo's wall moved one step `dt` at the speed its last load asks for (a face's
    /// extent taken where the walls are before any of them moves).
    pub(super) fn advance_servos(&mut self, dt: f64) {
        let extents: Vec<f64> = self.servos.iter().map(|sv| sv.extent(&self.walls)).collect();
        for (sv, extent) in self.servos.iter_mut().zip(extents) {
            sv.v = sv.servo.speed(sv.load, extent);
            sv.s += sv.v * dt;
            let (p, v) = sv.pose();
            self.walls[sv.wall].set_pose(p, v);
        }
    }

    /// Each servo's load: the forces of its wall's contacts as the force phase gave them,
    /// evaluated again without advancing any spring (dt = 0), summed in list order.
    pub(super) fn measure_servos(&mut self) {
        if self.servos.is_empty() {
            return;
        }
        // (The force phase's wall work, with dt = 0.)
        let work = WallWork {
            walls: &self.walls,
            params: &self.params,
            #[cfg(not(feature = "dim3"))]
            shapes: self.shapes.as_ref(),
            normal_model: self.config.normal_model,
            dt: 0.0,
            extras: self.contacts.has_rolling_state(),
            #[cfg(feature = "dim3")]
            turning: !self.tilts.is_empty(),
        };
        let wc = &self.wall_contacts;
        for sv in &mut self.servos {
            // A line's or plane's load is along its direction; a cylinder's, along each
            // grain's inward normal (the push outward on its radius).
            let (wall, pos, direction) = (&self.walls[sv.wall], &self.particles.pos, sv.direction);
            let along = |p: usize| match wall.point() {
                Some(_) => direction,
                None => wall.normal_at(std::array::from_fn(|a| pos[a][p])),
            };
            let mut sink = LoadAlong { along, load: 0.0 };
            for k in (0..wc.len()).filter(|&k| wc.w[k] as usize == sv.wall) {
                // Copies, one contact at a time: the state stays as the force phase left it.
                let (mut xi, mut area) = (wc.xi[k], wc.area[k]);
                let mut m = if work.extras { wc.rolling[k] } else { [0.0; ANG] };
                let rolling = if work.extras {
                    std::slice::from_mut(&mut m)
                } else {
                    &mut []
                };
                let (p, w) = (std::slice::from_ref(&wc.p[k]), std::slice::from_ref(&wc.w[k]));
                let (xi, area) = (std::slice::from_mut(&mut xi), std::slice::from_mut(&mut area));
                work.contacts(&self.particles, p, w, xi, area, rolling, &mut sink, None);
            }
            sv.load = sink.load;
        }
    }

    /// Every moving wall at its pose of time `t`.
    pub(super) fn place_walls(&mut self, t: f64) {
        for m in &self.moving_walls {
            let (p, v) = m.pose(t);
            self.walls[m.wall].set_pose(p, v);
        }
        #[cfg(feature = "dim3")]
        for turn in &self.turns {
            self.walls[turn.wall].set_spin(turn.spin(t));
        }
        for tilt in &self.tilts {
            let (p, n, v, spin) = tilt.pose(t);
            let w = &mut self.walls[tilt.wall];
            w.set_pose(p, v);
            w.set_tilt(n, spin);
        }
    }

    /// The walls moved by a law, a servo or a tilt.
    fn moved_walls(&self) -> impl Iterator<Item = usize> + '_ {
        let by_law = self.moving_walls.iter().map(|m| m.wall);
        let by_servo = self.servos.iter().map(|s| s.wall);
        by_law.chain(by_servo).chain(self.tilts.iter().map(|t| t.wall))
    }

    /// How far each wall may move before its contact list is built again (empty without
    /// moving walls: none moves).
    pub(super) fn wall_reach(&self) -> Vec<f64> {
        if self.moved_walls().next().is_none() {
            return Vec::new();
        }
        let mut reach = vec![0.0; self.walls.len()];
        for w in self.moved_walls() {
            reach[w] = self.config.margin;
        }
        reach
    }

    /// Record where the moving walls are, as their contact list is built; and for each
    /// tilted wall, its normal and how far from its pivot a particle's surface may be (the
    /// domain's farthest corner, beyond it by the largest radius).
    pub(super) fn mark_walls_listed(&mut self) {
        for (w, at) in listed_walls(&mut self.moving_walls, &mut self.servos) {
            *at = self.walls[w].coordinate();
        }
        if self.tilts.is_empty() {
            return;
        }
        // (The largest radius found once for all of them: a box turns three or four faces.)
        let lever = self.lever();
        for tilt in &mut self.tilts {
            tilt.lever = lever(tilt.pivot);
            tilt.listed = self.walls[tilt.wall].normal_at(tilt.pivot);
        }
    }

    /// How far from a pivot a particle's surface can be: the domain's farthest corner,
    /// beyond it by the largest radius.
    fn lever(&self) -> impl Fn(Vector) -> f64 {
        let r = self.particles.radius.iter().fold(0.0_f64, |m, &r| m.max(r));
        let (lo, hi) = self.checked_domain();
        move |pivot: Vector| farthest_corner(pivot, lo, hi, r)
    }

    /// Build the wall-contact list again if a moving wall went farther than its reach
    /// since the list was built.
    pub(super) fn relist_strayed_walls(&mut self) {
        let margin = self.config.margin;
        let walls = &self.walls;
        let strayed = listed_walls(&mut self.moving_walls, &mut self.servos).any(|(w, at)| {
            let p = walls[w].coordinate();
            (0..DIM).map(|a| (p[a] - at[a]).powi(2)).sum::<f64>() > margin * margin
        });
        // A tilted wall's distance from a point q changes by (q - pivot) . (n - n_listed)
        // as it turns about the pivot: at most the lever times the normal's change.
        let strayed = strayed
            || self.tilts.iter().any(|t| {
                let n = walls[t.wall].normal_at(t.pivot);
                let dn2: f64 = (0..DIM).map(|a| (n[a] - t.listed[a]).powi(2)).sum();
                dn2 * t.lever * t.lever > margin * margin
            });
        if !strayed {
            return;
        }
        let n = self.particles.len();
        let reach = self.wall_reach();
        let stored: &[Aabb] = with_broad!(&self.broad, m => &m.stored_boxes()[..n]);
        let (wc, walls) = (&mut self.wall_contacts, &self.walls);
        self.workers
            .pool
            .serial(Phase::Contacts, || wc.rebuild(walls, stored, &reach));
        self.mark_walls_listed();
        self.wall_relists += 1;
    }

    /// Times the wall-contact list was built again for a moving wall alone.
    pub fn wall_relists(&self) -> u64 {
        self.wall_relists
    }
}

/// Each moving wall (by a law or a servo) and where it was when its contacts were listed.
fn listed_walls<'a>(
    motions: &'a mut [WallMotion],
    servos: &'a mut [WallServo],
) -> impl Iterator<Item = (usize, &'a mut Vector)> {
    let by_law = motions.iter_mut().map(|m| (m.wall, &mut m.listed));
    by_law.chain(servos.iter_mut().map(|s| (s.wall, &mut s.listed)))
}

/// Sums the force the particles take from a wall along a direction, `along(p)` for
/// particle p: the push they give it back against that direction.
struct LoadAlong<F: Fn(usize) -> Vector> {
    along: F,
    load: f64,
}

impl<F: Fn(usize) -> Vector> WallSink for LoadAlong<F> {
    fn wall(&mut self, p: usize, c: &ContactForce) {
        let d = (self.along)(p);
        self.load += (0..DIM).map(|a| c.f[a] * d[a]).sum::<f64>();
    }
}
