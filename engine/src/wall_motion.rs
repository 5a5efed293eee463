//! Walls moved by a prescribed function of time, as LIGGGHTS `fix move/mesh` (`linear`,
//! `wiggle`) and LAMMPS `fix wall/gran ... wiggle` move them: a line (2D) or plane (3D)
//! translated along a direction by a displacement s(t), at velocity s'(t), which the
//! contact law sees as the wall's velocity. The pose is computed from the start and s(t)
//! at every step, not summed step by step: a restart resumes it bit for bit.
#[cfg(feature = "dim3")]
use talus_kernels::math::dot;
use talus_kernels::math::{add, sub, Vector, ANG, DIM};

/// The displacement along the direction as a function of time.
#[derive(Debug, Clone, PartialEq)]
pub enum Displacement {
    /// s = v t: a constant velocity (m/s).
    Velocity(f64),
    /// s = A (sin(2 pi f t + phase) - sin(phase)): amplitude A (m), frequency f (Hz),
    /// phase (rad); starts where the wall is.
    Sine {
        /// Amplitude A (m).
        amplitude: f64,
        /// Frequency f (Hz).
        frequency: f64,
        /// Phase at the start (rad).
        phase: f64,
    },
    /// s linear between the points (t, s) (times strictly increasing, at least two), held
    /// at the first value before the first time and at the last after the last.
    Table(Vec<[f64; 2]>),
}

impl Displacement {
    /// (s(t), s'(t)).
    pub fn at(&self, t: f64) -> (f64, f64) {
        match self {
            Displacement::Velocity(v) => (v * t, *v),
            Displacement::Sine {
                amplitude,
                frequency,
                phase,
            } => {
                let w = 2.0 * std::f64::consts::PI * frequency;
                let a = w * t + phase;
                (amplitude * (a.sin() - phase.sin()), amplitude * w * a.cos())
            }
            Displacement::Table(points) => {
                let k = points.partition_point(|p| p[0] <= t);
                if k == 0 {
                    (points[0][1], 0.0)
                } else if k == points.len() {
                    (points[k - 1][1], 0.0)
                } else {
                    let ([t0, s0], [t1, s1]) = (points[k - 1], points[k]);
                    let slope = (s1 - s0) / (t1 - t0);
                    (s0 + slope * (t - t0), slope)
                }
            }
        }
    }

    /// The law as checkpoint words: its kind (0 velocity, 1 sine, 2 table) and its values
    /// (v; amplitude, frequency, phase; t0, s0, t1, s1, ...).
    pub fn words(&self) -> (f64, Vec<f64>) {
        match self {
            Displacement::Velocity(v) => (0.0, vec![*v]),
            Displacement::Sine {
                amplitude,
                frequency,
                phase,
            } => (1.0, vec![*amplitude, *frequency, *phase]),
            Displacement::Table(p) => (2.0, p.iter().flatten().copied().collect()),
        }
    }

    /// Append the law's kind, the count of its values, and its values to `out`.
    pub fn push_words(&self, out: &mut Vec<f64>) {
        let (kind, values) = self.words();
        out.extend([kind, values.len() as f64]);
        out.extend(values);
    }

    /// The law of [`Displacement::words`], or None where kind and count do not fit (the
    /// values are not checked: see [`Displacement::check`]).
    pub fn from_words(kind: f64, values: &[f64]) -> Option<Displacement> {
        match (kind, values.len()) {
            (0.0, 1) => Some(Displacement::Velocity(values[0])),
            (1.0, 3) => Some(Displacement::Sine {
                amplitude: values[0],
                frequency: values[1],
                phase: values[2],
            }),
            (2.0, n) if n % 2 == 0 => Some(Displacement::Table(
                values.chunks_exact(2).map(|c| [c[0], c[1]]).collect(),
            )),
            _ => None,
        }
    }

    /// What is wrong with the law, if anything: a value not finite, a negative frequency,
    /// a table of fewer than two points or with times not strictly increasing (named by
    /// row, from 0).
    pub fn check(&self) -> Result<(), String> {
        match self {
            Displacement::Velocity(v) if !v.is_finite() => Err(format!("velocity {v} is not finite")),
            Displacement::Velocity(_) => Ok(()),
            Displacement::Sine {
                amplitude,
                frequency,
                phase,
            } => {
                if ![amplitude, frequency, phase].iter().all(|v| v.is_finite()) || *frequency <= 0.0 {
                    Err(format!(
                        "sine of amplitude {amplitude}, frequency {frequency}, phase {phase}: finite values and a \
                         frequency > 0 are needed"
                    ))
                } else {
                    Ok(())
                }
            }
            Displacement::Table(p) => {
                if p.len() < 2 {
                    return Err(format!("a table of {} points: at least two are needed", p.len()));
                }
                if let Some(k) = p.iter().position(|r| !(r[0].is_finite() && r[1].is_finite())) {
                    return Err(format!("table row {k}: {:?} is not finite", p[k]));
                }
                if let Some(k) = (1..p.len()).find(|&k| p[k][0] <= p[k - 1][0]) {
                    return Err(format!(
                        "table row {k}: time {} does not come after {} (times must increase)",
                        p[k][0],
                        p[k - 1][0]
                    ));
                }
                Ok(())
            }
        }
    }
}

/// One moving wall: wall `wall` of the simulation, translated along the unit `direction`
/// from `origin` by `law`, whose clock starts at time `start` (s(0) from origin then: a
/// motion a stage starts runs its law from the stage's start); `listed` where the wall
/// was when its contacts were listed.
#[derive(Debug, Clone, PartialEq)]
pub struct WallMotion {
    /// Index of the wall in the simulation's walls.
    pub wall: usize,
    /// Unit direction of the motion.
    pub direction: Vector,
    /// The wall's point at s = 0 (m).
    pub origin: Vector,
    /// The displacement s(t).
    pub law: Displacement,
    /// Time at which the law's clock starts (s).
    pub start: f64,
    /// The wall's point when its contacts were last listed (m).
    pub listed: Vector,
}

impl WallMotion {
    /// The wall's point and velocity at time `t` (t - 0 is t exactly: a motion from time 0
    /// moves as it did before motions had a start).
    pub fn pose(&self, t: f64) -> (Vector, Vector) {
        let (s, v) = self.law.at(t - self.start);
        (
            std::array::from_fn(|a| self.origin[a] + s * self.direction[a]),
            std::array::from_fn(|a| v * self.direction[a]),
        )
    }
}

/// A drum (the inside of a cylinder, 3D) turned about its axis by a law of time, the
/// angle theta(t - start) (rad; LIGGGHTS `fix move/mesh` with `rotate/variable`, Yade's
/// `RotationEngine` driven by a function): its surface's spin at time t is the law's rate
/// theta'(t - start), which the contacts see as the wall's velocity. The drum is round,
/// so the angle itself moves nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct WallTurn {
    /// Index of the wall in the simulation's walls.
    pub wall: usize,
    /// The angle theta(t) (rad).
    pub law: Displacement,
    /// Time at which the law's clock starts (s).
    pub start: f64,
}

impl WallTurn {
    /// The drum's spin at time `t` (rad/s, right-handed about its axis).
    pub fn spin(&self, t: f64) -> f64 {
        self.law.at(t - self.start).1
    }
}

/// A line (2D) or plane (3D) turned about an axis through `pivot` by the angle
/// theta(t - start) (rad; LIGGGHTS `fix move/mesh ... rotate/variable`, Yade's
/// `RotationEngine` on a facet): a tilting floor, a flap, a turntable. Its pose at time t
/// is the pose at angle 0 turned by theta about the pivot, computed afresh at every step
/// as [`WallMotion`]'s; its material moves at theta' axis x (c - pivot), which the
/// contacts see at their points (the kernels' `velocity_at` of a line or plane wall:
/// `contact/disc_wall.rs`, `contact/sphere_wall.rs`).
#[derive(Debug, Clone, PartialEq)]
pub struct WallTilt {
    /// Index of the wall in the simulation's walls.
    pub wall: usize,
    /// A point on the axis (m).
    pub pivot: Vector,
    /// The unit axis, right-handed (2D: `[1.0]`, counter-clockwise in the plane).
    pub axis: [f64; ANG],
    /// The wall's point at angle 0 (m).
    pub point: Vector,
    /// The wall's unit normal at angle 0.
    pub normal: Vector,
    /// The angle theta(t) (rad).
    pub law: Displacement,
    /// Time at which the law's clock starts (s).
    pub start: f64,
    /// The wall's normal when its contacts were last listed.
    pub listed: Vector,
    /// How far from the pivot a particle's surface may be when the contacts were listed
    /// (m): the wall may turn margin / lever before they are listed again.
    pub lever: f64,
}

/// How far from `pivot` the farthest corner of the box `lo`..`hi` lies once the box is
/// grown by `grow` on every side (a tilt's lever: the farthest a particle's surface can
/// be from its pivot).
pub fn farthest_corner(pivot: Vector, lo: Vector, hi: Vector, grow: f64) -> f64 {
    (0..DIM)
        .map(|a| ((pivot[a] - lo[a]).abs().max((hi[a] - pivot[a]).abs()) + grow).powi(2))
        .sum::<f64>()
        .sqrt()
}

impl WallTilt {
    /// The angle and its rate at time `t`.
    pub fn angle(&self, t: f64) -> (f64, f64) {
        self.law.at(t - self.start)
    }

    /// The wall's point, normal, velocity at the point, and angular velocity at time `t`.
    pub fn pose(&self, t: f64) -> (Vector, Vector, Vector, [f64; ANG]) {
        let (theta, rate) = self.angle(t);
        let arm = turned(sub(self.point, self.pivot), self.axis, theta);
        let spin = self.axis.map(|k| rate * k);
        (
            add(self.pivot, arm),
            turned(self.normal, self.axis, theta),
            spin_cross(spin, arm),
            spin,
        )
    }
}

/// `v` turned by `angle` about the unit `axis` (2D: about z, `axis[0]` its sign).
pub fn turned(v: Vector, axis: [f64; ANG], angle: f64) -> Vector {
    let (s, c) = angle.sin_cos();
    #[cfg(not(feature = "dim3"))]
    {
        let s = s * axis[0];
        [c * v[0] - s * v[1], s * v[0] + c * v[1]]
    }
    #[cfg(feature = "dim3")]
    {
        // Rodrigues: v cos + (k x v) sin + k (k . v)(1 - cos).
        let (kv, k_dot) = (talus_kernels::math::cross(axis, v), dot(axis, v));
        std::array::from_fn(|a| v[a] * c + kv[a] * s + axis[a] * k_dot * (1.0 - c))
    }
}

/// The velocity `spin x r` of a rigid turn (2D: spin about z).
fn spin_cross(spin: [f64; ANG], r: Vector) -> Vector {
    #[cfg(not(feature = "dim3"))]
    return [-spin[0] * r[1], spin[0] * r[0]];
    #[cfg(feature = "dim3")]
    talus_kernels::math::cross(spin, r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn laws_give_displacement_and_velocity() {
        assert_eq!(Displacement::Velocity(2.0).at(0.5), (1.0, 2.0));
        let s = Displacement::Sine {
            amplitude: 1e-3,
            frequency: 10.0,
            phase: 0.0,
        };
        let (x, v) = s.at(0.025);
        assert!((x - 1e-3).abs() < 1e-15 && v.abs() < 1e-15, "{x} {v}");
        assert_eq!(s.at(0.0), (0.0, 1e-3 * 20.0 * std::f64::consts::PI));
        let t = Displacement::Table(vec![[0.1, 0.0], [0.2, 1.0], [0.4, 0.0]]);
        let near = |(s, v): (f64, f64), (es, ev): (f64, f64)| (s - es).abs() < 1e-12 && (v - ev).abs() < 1e-12;
        assert_eq!(t.at(0.0), (0.0, 0.0));
        assert!(near(t.at(0.15), (0.5, 10.0)), "{:?}", t.at(0.15));
        assert!(near(t.at(0.3), (0.5, -5.0)), "{:?}", t.at(0.3));
        assert!(near(t.at(0.2), (1.0, -5.0)), "{:?}", t.at(0.2));
        assert_eq!(t.at(9.0), (0.0, 0.0));
    }

    /// A wall through (2, 1) with normal +y turned a quarter about (1, 1): through (1, 2)
    /// with normal -x, its point moving at theta' along -x... and back at a quarter the
    /// other way.
    #[test]
    fn a_tilt_turns_the_wall_about_its_pivot() {
        let half_pi = std::f64::consts::FRAC_PI_2;
        let mut axis = [0.0; ANG];
        axis[ANG - 1] = 1.0;
        let at = |a: f64, b: f64| -> Vector { std::array::from_fn(|k| [a, b, 0.0][k]) };
        let tilt = WallTilt {
            wall: 0,
            pivot: at(1.0, 1.0),
            axis,
            point: at(2.0, 1.0),
            normal: at(0.0, 1.0),
            law: Displacement::Velocity(2.0),
            start: 1.0,
            listed: [0.0; DIM],
            lever: 0.0,
        };
        let (p, n, v, w) = tilt.pose(1.0 + half_pi / 2.0);
        let near = |x: Vector, y: Vector| (0..x.len()).all(|k| (x[k] - y[k]).abs() < 1e-12);
        assert!(near(p, at(1.0, 2.0)) && near(n, at(-1.0, 0.0)), "{p:?} {n:?}");
        assert!(near(v, at(-2.0, 0.0)) && w[ANG - 1] == 2.0, "{v:?} {w:?}");
        let (p, n, ..) = tilt.pose(1.0 - half_pi / 2.0);
        assert!(near(p, at(1.0, 0.0)) && near(n, at(1.0, 0.0)), "{p:?} {n:?}");
    }

    #[test]
    fn bad_laws_are_named() {
        let t = Displacement::Table(vec![[0.0, 0.0], [0.2, 1.0], [0.2, 0.0]]);
        assert!(t
            .check()
            .unwrap_err()
            .contains("row 2: time 0.2 does not come after 0.2"));
        assert!(Displacement::Table(vec![[0.0, 0.0]]).check().is_err());
        let s = Displacement::Sine {
            amplitude: 1.0,
            frequency: 0.0,
            phase: 0.0,
        };
        assert!(s.check().unwrap_err().contains("frequency > 0"));
        assert!(Displacement::Velocity(f64::NAN).check().is_err());
        assert!(Displacement::Velocity(-1.0).check().is_ok());
    }
}

/// A servo (LIGGGHTS `fix move/mesh ... servo`, Yade's stress controller on one wall):
/// the wall moves along its direction at v = gain (target - load), at most `max_speed`
/// either way, where the load is the force the particles press it back with (along minus
/// the direction). Stable while gain times the bed's stiffness times dt is well below 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Servo {
    /// The load to hold (N); for a servo on a face ([`WallServo::across`]), the stress
    /// (N/m^2 in 3D; N/m, force per length, in 2D).
    pub target: f64,
    /// m/s per N of error.
    pub gain: f64,
    /// m/s.
    pub max_speed: f64,
}

impl Servo {
    /// The wall's speed along its direction under `load`, the target scaled by `extent`
    /// (1 for a force; a face's area or length for a stress).
    pub fn speed(&self, load: f64, extent: f64) -> f64 {
        (self.gain * (self.target * extent - load)).clamp(-self.max_speed, self.max_speed)
    }

    /// What is wrong with it, if anything.
    pub fn check(&self) -> Result<(), String> {
        let ok = self.target.is_finite()
            && self.gain.is_finite()
            && self.gain > 0.0
            && self.max_speed.is_finite()
            && self.max_speed > 0.0;
        if ok {
            Ok(())
        } else {
            Err(format!(
                "servo to {} N with gain {} m/s/N and max_speed {} m/s: a finite target, a gain > 0 and a \
                 max_speed > 0 are needed",
                self.target, self.gain, self.max_speed
            ))
        }
    }
}

/// A wall under a [`Servo`]: wall `wall` moved along the unit `direction` from `origin` by
/// `s`, at speed `v`; `load` is the last step's load; `listed` where the wall was when
/// its contacts were listed. A servo to a stress holds one face of a box (Yade's
/// TriaxialStressController): `across` are the pairs of walls that bound the box along
/// the other axes, the product of their distances the face's extent (its length in 2D,
/// area in 3D) as they move; empty for a servo to a force.
#[derive(Debug, Clone, PartialEq)]
pub struct WallServo {
    /// Index of the wall in the simulation's walls.
    pub wall: usize,
    /// Unit direction of the motion.
    pub direction: Vector,
    /// The wall's point at s = 0 (m).
    pub origin: Vector,
    /// The control law.
    pub servo: Servo,
    /// Displacement from `origin` along `direction` (m).
    pub s: f64,
    /// Speed along `direction` (m/s).
    pub v: f64,
    /// The last step's load: the particles' force on the wall along minus `direction` (N).
    pub load: f64,
    /// The wall's point when its contacts were last listed (m).
    pub listed: Vector,
    /// Pairs of walls bounding the box along the other axes (empty for a servo to a force).
    pub across: Vec<[usize; 2]>,
}

impl WallServo {
    /// The face's extent among `walls`: the product of the distances across its pairs (1
    /// for a servo to a force); a cylinder's (3D), 2 pi r times that (its area between two
    /// planes across its axis).
    pub fn extent(&self, walls: &[crate::Wall]) -> f64 {
        let around = if self.across.is_empty() || walls[self.wall].point().is_some() {
            1.0
        } else {
            2.0 * std::f64::consts::PI * walls[self.wall].coordinate()[0]
        };
        self.across.iter().fold(around, |e, &[a, b]| {
            let (pa, pb) = (walls[a].point(), walls[b].point());
            let (pa, pb) = (pa.expect("a line or plane"), pb.expect("a line or plane"));
            let n = walls[a].normal_at(pa);
            e * (0..pa.len()).map(|k| (pb[k] - pa[k]) * n[k]).sum::<f64>().abs()
        })
    }

    /// The wall's point and velocity.
    pub fn pose(&self) -> (Vector, Vector) {
        (
            std::array::from_fn(|a| self.origin[a] + self.s * self.direction[a]),
            std::array::from_fn(|a| self.v * self.direction[a]),
        )
    }
}
