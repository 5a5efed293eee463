//! A periodic cell whose y length a servo sets so that the grains carry a given normal
//! stress across y (Yade's `PeriTriaxController` along one axis; LAMMPS `fix deform` of
//! y driven by `fix press/berendsen` in spirit): the pressure-imposed shear cell of the
//! rheology literature (da Cruz et al., PRE 72, 021309 (2005): shear at a given rate
//! under a given pressure, the packing free to dilate) with Lees-Edwards shear, or a
//! periodic column under a load without it.
//!
//! Every `every` steps the step's contact forces are logged and their Love-Weber stress
//! (the contact part, as the analysis gives it) measured: the face's load is -stress_yy
//! times the face (the cell's length along x in 2D, its area across y in 3D), and the cell
//! grows or shrinks at the wall servo's speed for that load (`wall_motion::Servo`: m/s per
//! N of error, clamped), held until the next measurement. Each step the grains' y
//! coordinates are stretched with the cell (an affine map about its lower face, LAMMPS
//! `remap x`); velocities are left as they are. The shear's velocity between the cells
//! stays what it was made with, so the shear rate is that velocity over the length now
//! ([`Simulation::shear_rate`]). Polygons' gap budgets (the narrow phase's record of how
//! far apart a pair was) do not see the stretch: each step the cell moves drops them, so
//! a pair found apart is tested again.
use talus_kernels::neighbor::{PeriodicCell, PeriodicImages};

use talus_kernels::math::sub;

use super::sections::{Elem, Section};
use super::state_records::Reader;
use super::*;
use crate::wall_motion::Servo;

/// What holds the cell's stress: a servo to a normal stress across y (`servo.target`:
/// -stress_yy, N/m in 2D, Pa in 3D; `servo.gain`: m/s of the cell's length per N of
/// error on its face), measured every `every` steps, the y length kept within
/// `min_length..=max_length`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellServo {
    /// The control law.
    pub servo: Servo,
    /// Steps between measurements (at least 1).
    pub every: u64,
    /// Shortest y length the cell may take (m).
    pub min_length: f64,
    /// Longest (m).
    pub max_length: f64,
}

/// A cell servo at work: its settings, the cell's speed of growth (m/s) until the next
/// measurement, and the last measured normal stress (-stress_yy; NaN before the first).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CellServoState {
    pub spec: CellServo,
    pub speed: f64,
    pub stress: f64,
}

/// Words of section "periodic.servo" (settings) and "periodic.servo.state".
const SETTING_WORDS: usize = 6;
const STATE_WORDS: usize = 3;
/// The longest interval between measurements (a checkpoint keeps it as an f64, exactly).
const MAX_EVERY: u64 = 1_000_000_000;

impl CellServo {
    /// What is wrong with it, if anything.
    pub fn check(&self) -> std::result::Result<(), String> {
        self.servo.check()?;
        if !(1..=MAX_EVERY).contains(&self.every) {
            return Err(format!(
                "the cell servo's interval ({}) must be 1 to {MAX_EVERY} steps",
                self.every
            ));
        }
        if !(self.min_length > 0.0 && self.min_length <= self.max_length && self.max_length.is_finite()) {
            return Err(format!(
                "the cell's y lengths {}..{} m: need 0 < min_length <= max_length",
                self.min_length, self.max_length
            ));
        }
        Ok(())
    }
}

impl Simulation {
    /// Hold the normal stress across y of a cell periodic along y with a servo on its y
    /// length (module doc). Refused: no periodic y, a length now outside the range, a
    /// range too short for the images (4 x (largest radius + margin)), the Gear integrator
    /// (its history would have to be stretched too), wall bodies or drives (they would be
    /// stretched with the grains).
    pub fn set_cell_servo(&mut self, spec: CellServo) -> Result<()> {
        let bad = |m: String| Err(EngineError::Setup(format!("cell servo: {m}")));
        if let Err(m) = spec.check() {
            return bad(m);
        }
        let Some(im) = &self.periodic else {
            return bad("the cell must be periodic along y ([domain] periodic)".into());
        };
        if !im.cell.periodic[1] {
            return bad("the cell must be periodic along y ([domain] periodic)".into());
        }
        if let Some(m) = cell_servo_refusal(self.config.integrator, self.particles.wall_bodies()) {
            return bad(m);
        }
        let (axes, v) = (im.cell.periodic, im.cell.shear_velocity);
        let l = im.cell.length(1);
        if !(spec.min_length <= l && l <= spec.max_length) {
            return bad(format!(
                "the cell's y length {l} m is outside min_length..max_length = {}..{} m",
                spec.min_length, spec.max_length
            ));
        }
        let new = CellServoState {
            spec,
            speed: 0.0,
            stress: f64::NAN,
        };
        // The images and the broad phase made again, for the range of lengths (refused
        // before anything is changed if the range is too short for them: the cell and its
        // servo, if any, stay as they were).
        let old = self.cell_servo.replace(new);
        let made = self.set_periodic_sheared(axes, v);
        if made.is_err() {
            self.cell_servo = old;
        }
        made
    }

    /// The cell servo's settings, the cell's speed of growth (m/s) and the last measured
    /// normal stress across y (-stress_yy; NaN before the first measurement), if any.
    pub fn cell_servo(&self) -> Option<(CellServo, f64, f64)> {
        self.cell_servo.map(|s| (s.spec, s.speed, s.stress))
    }

    /// The images of a periodic cell: for a range of y lengths under a cell servo.
    pub(super) fn images_for(
        cell: PeriodicCell,
        half_width: f64,
        servo: Option<&CellServoState>,
    ) -> Result<PeriodicImages> {
        match servo {
            None => PeriodicImages::new(cell, half_width),
            Some(s) => PeriodicImages::new_resizable(cell, half_width, s.spec.min_length, s.spec.max_length),
        }
        .map_err(EngineError::Setup)
    }

    /// Whether the step about to be computed measures the stress (its forces logged).
    pub(super) fn cell_servo_due(&self) -> bool {
        self.cell_servo
            .is_some_and(|s| (self.step + 1).is_multiple_of(s.spec.every))
    }

    /// Stretch the cell and the grains' y coordinates by the servo's speed over `dt`; true
    /// when the length has moved so far since the broad phase's last update that it must
    /// be updated.
    pub(super) fn stretch_cell(&mut self, dt: f64) -> bool {
        let (Some(s), Some(im)) = (&self.cell_servo, &mut self.periodic) else {
            return false;
        };
        let (lo, l) = (im.cell.lo[1], im.cell.length(1));
        let to = (l + s.speed * dt).clamp(s.spec.min_length, s.spec.max_length);
        // At a bound the length computed from the cell's faces may differ from the
        // bound's by rounding: no stretch by that.
        if (to - l).abs() > 1e-14 * l {
            let k = to / l;
            for y in &mut self.particles.pos[1] {
                *y = lo + (*y - lo) * k;
            }
            im.set_length_y(to);
            self.config.domain_max[1] = im.cell.hi[1];
            self.contacts.forget_gaps();
        }
        im.length_drifted()
    }

    /// On a measuring step, after its forces: the normal stress across y from the logged
    /// contact forces, and the cell's speed of growth until the next measurement.
    pub(super) fn measure_cell(&mut self) {
        if !self.cell_servo_due() {
            return;
        }
        let Some(log) = &self.contact_log else {
            return;
        };
        let ps = &self.particles;
        let image = self.min_image();
        let x = |p: usize| -> Vector { std::array::from_fn(|a| ps.pos[a][p]) };
        // The Love-Weber sum's yy component (`kernels/src/analysis/stress.rs`): -r_y f_y
        // with r = x_i - x_j by the minimum image and f the force on i; a wall contact's r
        // from its contact point to the centre.
        let mut sum = 0.0;
        for c in log.pairs() {
            let d = sub(x(c.j as usize), x(c.i as usize));
            let d = image.map_or(d, |m| m.of(d));
            sum += d[1] * c.f[1];
        }
        for c in &log.walls {
            let r = sub(x(c.p as usize), self.wall_contact_point(c));
            sum -= r[1] * c.f[1];
        }
        let (min, max) = (self.config.domain_min, self.config.domain_max);
        let volume = Region { min, max }.volume();
        let face = volume / (max[1] - min[1]);
        let stress = -sum / volume;
        let s = self.cell_servo.as_mut().expect("a cell servo");
        // The wall servo's speed pushes into the grains when the load is below target:
        // the cell then shrinks.
        s.speed = -s.spec.servo.speed(stress * face, face);
        s.stress = stress;
    }

    /// The cell servo's sections: settings, and the state a restart continues from (with
    /// the y length the images' stored boxes were placed with).
    pub(super) fn cell_servo_sections<'a>(&'a self, out: &mut Vec<Section<'a>>) {
        let (Some(s), Some(im)) = (&self.cell_servo, &self.periodic) else {
            return;
        };
        let sv = s.spec.servo;
        let settings = vec![
            sv.target,
            sv.gain,
            sv.max_speed,
            s.spec.every as f64,
            s.spec.min_length,
            s.spec.max_length,
        ];
        let state = vec![s.speed, s.stress, im.stored_length()];
        out.push(super::state::owned("periodic.servo", Elem::F64, settings));
        out.push(super::state::owned("periodic.servo.state", Elem::F64, state));
    }
}

/// What a cell servo cannot work with, if anything: the Gear integrator (its history would
/// have to be stretched too), wall bodies (they would be stretched with the grains).
pub(super) fn cell_servo_refusal(integrator: Integrator, wall_bodies: usize) -> Option<String> {
    if integrator == Integrator::Gear {
        return Some("not done with the Gear integrator (its history would be stretched too): use verlet".into());
    }
    if wall_bodies > 0 {
        return Some("not done with wall bodies (they would be stretched with the grains)".into());
    }
    None
}

/// A checkpoint's cell servo of periodic cell `cell`, if it has one, and the y length the
/// images' stored boxes were placed with.
pub(super) fn cell_servo_from(r: &Reader, cell: &PeriodicCell) -> Result<Option<(CellServoState, f64)>> {
    if r.src.section("periodic.servo").is_none() {
        return Ok(None);
    }
    let w: Vec<f64> = r.exact("periodic.servo", SETTING_WORDS)?;
    let spec = CellServo {
        servo: Servo {
            target: w[0],
            gain: w[1],
            max_speed: w[2],
        },
        every: w[3] as u64,
        min_length: w[4],
        max_length: w[5],
    };
    // (NaN, negative and huge intervals fail the check as 0 or u64::MAX.)
    let whole = w[3].fract() == 0.0;
    let fits = cell.periodic[1] && (spec.min_length..=spec.max_length).contains(&cell.length(1));
    match spec.check() {
        Err(m) => return Err(r.err("periodic.servo", m)),
        Ok(()) if !whole || !fits => {
            return Err(r.err(
                "periodic.servo",
                format!("{w:?} is no servo of this cell's y length (a whole interval, a range holding the length)"),
            ))
        }
        Ok(()) => {}
    }
    let st: Vec<f64> = r.exact("periodic.servo.state", STATE_WORDS)?;
    let in_range = (spec.min_length..=spec.max_length).contains(&st[2]);
    if !(st[0].abs() <= spec.servo.max_speed && !st[1].is_infinite() && in_range) {
        return Err(r.err(
            "periodic.servo.state",
            format!("{st:?} is no state of this servo (a speed within max_speed, a stress, a length in range)"),
        ));
    }
    let state = CellServoState {
        spec,
        speed: st[0],
        stress: st[1],
    };
    Ok(Some((state, st[2])))
}
