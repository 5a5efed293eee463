//! A run's `[[stage]]`s in the engine's terms (engine walls, particle ids, drives), and
//! the changes each makes to a simulation as it begins. Made from the scenario alone
//! (and the id of its first body), so that a restart, which reads the scenario from its
//! checkpoint, makes the same stages as the run it continues.
use talus_engine::wall_motion::{Displacement, Servo};
use talus_engine::{Simulation, Wall};
use talus_kernels::math::{Vector, ANG, DIM};

use crate::preflight;
use crate::scenario::{self as sc, Named, Scenario, WallDrive};

/// One stage: at most `steps`, ended earlier by `until`; `changes` made as it begins.
#[derive(Debug, Clone, PartialEq)]
pub struct StagePlan {
    /// The stage's `name`, or `stage K` (K from 1).
    pub name: String,
    /// The most steps it runs.
    pub steps: u64,
    /// It ends earlier once settled.
    pub until: Option<sc::Until>,
    changes: Vec<Change>,
}

/// One change a stage makes, on engine walls (indices), bodies (ids) and drives.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Change {
    Gravity(Vector),
    RemoveWall(usize),
    RemoveBody(u64),
    Hold(usize),
    Move(usize, Vector, Displacement),
    /// Turned about an axis through a pivot.
    Tilt(usize, Vector, [f64; ANG], Displacement),
    /// A servo; to a stress on a box's face where the pairs of walls across it are given.
    Servo(usize, Vector, Servo, Vec<[usize; 2]>),
    #[cfg(not(feature = "dim3"))]
    StartDrive(usize),
    #[cfg(feature = "dim3")]
    Spin(usize, f64),
    /// A drum turned by a law of its angle.
    #[cfg(feature = "dim3")]
    Turn(usize, Displacement),
}

/// The engine walls of a wall or box face.
fn part_faces(faces: &[std::ops::Range<usize>], part: &sc::WallPart) -> std::ops::Range<usize> {
    let all = faces[part.wall].clone();
    match part.face {
        Some(k) => all.start + k..all.start + k + 1,
        None => all,
    }
}

/// The changes that set scenario wall `wall` moving as `m` says (`all`: the engine walls
/// of every scenario wall, among the engine walls `walls`), or only its face `only`: each
/// by the law or servo; under a stress servo, each face of the box along its inward
/// normal to the stress of its axis, its extent spanned by the box's faces of the other
/// axes; a cylinder's stress over its area between its two planes.
pub(crate) fn move_changes(
    all: &[std::ops::Range<usize>],
    wall: usize,
    only: Option<usize>,
    walls: &[Wall],
    m: &sc::WallMove,
) -> Vec<Change> {
    let faces = all[wall].clone();
    let moved = only.map_or(faces.clone(), |e| e..e + 1);
    let (stress, gain, max_speed) = match &m.drive {
        WallDrive::CylinderStress {
            stress,
            gain,
            max_speed,
            between,
        } => {
            let servo = Servo {
                target: *stress,
                gain: *gain,
                max_speed: *max_speed,
            };
            let across = vec![[all[between[0]].start, all[between[1]].start]];
            return moved
                .map(|e| Change::Servo(e, m.direction, servo, across.clone()))
                .collect();
        }
        WallDrive::Law(law) => return moved.map(|e| Change::Move(e, m.direction, law.clone())).collect(),
        WallDrive::Tilt { pivot, axis, law } => {
            return moved.map(|e| Change::Tilt(e, *pivot, *axis, law.clone())).collect()
        }
        WallDrive::Servo(servo) => {
            return moved
                .map(|e| Change::Servo(e, m.direction, *servo, Vec::new()))
                .collect()
        }
        WallDrive::Stress {
            stress,
            gain,
            max_speed,
        } => (*stress, *gain, *max_speed),
    };
    // A face's axis and side: its normal is a unit axis, into the box.
    let axis = |e: usize| {
        let n = walls[e].normal_at([0.0; DIM]);
        let a = (0..DIM)
            .max_by(|&x, &y| n[x].abs().total_cmp(&n[y].abs()))
            .expect("DIM > 0");
        (a, n[a] > 0.0)
    };
    let face = |a: usize, low: bool| faces.clone().find(|&e| axis(e) == (a, low));
    moved
        .map(|e| {
            let (a, _) = axis(e);
            let across = (0..DIM)
                .filter(|&b| b != a)
                .map(|b| {
                    [
                        face(b, true).expect("a closed box"),
                        face(b, false).expect("a closed box"),
                    ]
                })
                .collect();
            let servo = Servo {
                target: stress[a],
                gain,
                max_speed,
            };
            Change::Servo(e, walls[e].normal_at([0.0; DIM]), servo, across)
        })
        .collect()
}

/// The engine walls each scenario wall makes (a box: its faces), by scenario wall.
pub(crate) fn engine_walls(scenario: &Scenario) -> Vec<std::ops::Range<usize>> {
    let mut at = 0;
    scenario
        .walls
        .iter()
        .map(|w| {
            let n = preflight::surface_walls(std::slice::from_ref(w)).len();
            at += n;
            at - n..at
        })
        .collect()
}

/// The stages of `scenario` (none without `[[stage]]`), its bodies numbered from
/// `first_body_id` in file order (as the build numbers them).
pub fn stage_plans(scenario: &Scenario, first_body_id: u64) -> Vec<StagePlan> {
    let faces = engine_walls(scenario);
    let walls: Vec<Wall> = preflight::surface_walls(&scenario.walls)
        .into_iter()
        .map(|w| w.1)
        .collect();
    #[cfg(not(feature = "dim3"))]
    let (_, _, drum_drive) = crate::build::drives(scenario);
    scenario
        .stages
        .iter()
        .map(|s| {
            let mut changes = Vec::new();
            changes.extend(s.gravity.map(Change::Gravity));
            for t in &s.remove {
                match *t {
                    Named::Wall(w) => changes.extend(faces[w].clone().map(Change::RemoveWall)),
                    Named::Body(b) => changes.push(Change::RemoveBody(first_body_id + b as u64)),
                    Named::Drum(_) => unreachable!("the scenario refuses removing a drum"),
                }
            }
            for part in &s.hold {
                changes.extend(part_faces(&faces, part).map(Change::Hold));
            }
            for (part, m) in &s.moves {
                // A stage's motion replaces the one the wall had.
                changes.extend(part_faces(&faces, part).map(Change::Hold));
                let only = part.face.map(|k| faces[part.wall].start + k);
                changes.extend(move_changes(&faces, part.wall, only, &walls, m));
            }
            for t in &s.start {
                match *t {
                    #[cfg(not(feature = "dim3"))]
                    Named::Drum(j) => changes.push(Change::StartDrive(drum_drive[j])),
                    #[cfg(feature = "dim3")]
                    Named::Wall(w) => {
                        if let sc::Wall::Cylinder { omega, ref turn, .. } = scenario.walls[w] {
                            changes.extend(faces[w].clone().map(|e| match turn {
                                Some(law) => Change::Turn(e, law.clone()),
                                None => Change::Spin(e, omega),
                            }));
                        }
                    }
                    _ => unreachable!("the scenario starts drums only"),
                }
            }
            StagePlan {
                name: s.name.clone(),
                steps: s.steps,
                until: s.until,
                changes,
            }
        })
        .collect()
}

/// The drums (3D: cylinder walls) as the run begins: those that stages start held until
/// their stage (spin 0), those that turn by a law turning by it from now.
#[cfg(feature = "dim3")]
pub fn start_drums(scenario: &Scenario, sim: &mut Simulation) -> talus_engine::Result<()> {
    let faces = engine_walls(scenario);
    let started = |w: usize| {
        scenario
            .stages
            .iter()
            .any(|s| s.start.iter().any(|t| matches!(*t, Named::Wall(k) if k == w)))
    };
    for (w, wall) in scenario.walls.iter().enumerate() {
        let sc::Wall::Cylinder { turn, .. } = wall else {
            continue;
        };
        for e in faces[w].clone() {
            match turn {
                _ if started(w) => sim.spin_wall(e, 0.0)?,
                Some(law) => sim.turn_wall(e, law.clone())?,
                None => {}
            }
        }
    }
    Ok(())
}

impl StagePlan {
    /// Make the stage's changes to `sim` (as it begins, between steps).
    pub fn begin(&self, sim: &mut Simulation) -> Result<(), String> {
        for c in &self.changes {
            c.apply(sim).map_err(|e| format!("stage `{}`: {e}", self.name))?;
        }
        Ok(())
    }

    /// What the stage changes, in words (for the log), or "no changes".
    pub fn describe(&self) -> String {
        let mut said: Vec<String> = Vec::new();
        for c in &self.changes {
            said.push(match c {
                Change::Gravity(g) => format!("gravity {g:?}"),
                Change::RemoveWall(w) => format!("wall {w} removed"),
                Change::RemoveBody(id) => format!("body id {id} removed"),
                // A hold before a move is part of the move.
                Change::Hold(w) if self.changes.iter().any(|d| d.moves(*w)) => continue,
                Change::Hold(w) => format!("wall {w} held"),
                Change::Move(w, _, law) => format!("wall {w} moved ({})", law_name(law)),
                Change::Tilt(w, pivot, _, law) => format!("wall {w} turned about {pivot:?} ({})", law_name(law)),
                Change::Servo(w, _, s, across) if across.is_empty() => {
                    format!("wall {w} under a servo to {} N", s.target)
                }
                Change::Servo(w, _, s, _) => format!("wall {w} under a servo to a stress of {}", s.target),
                #[cfg(not(feature = "dim3"))]
                Change::StartDrive(d) => format!("drive {d} started"),
                #[cfg(feature = "dim3")]
                Change::Spin(w, omega) => format!("drum wall {w} turning at {omega} rad/s"),
                #[cfg(feature = "dim3")]
                Change::Turn(w, law) => format!("drum wall {w} turning by a {} law", law_name(law)),
            });
        }
        if said.is_empty() {
            "no changes".into()
        } else {
            said.join(", ")
        }
    }
}

impl Change {
    /// Make the change to `sim`.
    pub(crate) fn apply(&self, sim: &mut Simulation) -> Result<(), String> {
        match self {
            Change::Gravity(g) => sim.set_gravity(*g),
            Change::RemoveWall(w) => sim.remove_wall(*w),
            Change::RemoveBody(id) => {
                let p = sim
                    .particles
                    .index_of(*id)
                    .ok_or_else(|| format!("no body with id {id} is left"))?;
                sim.remove_particles(&[p]);
                Ok(())
            }
            Change::Hold(w) => sim.hold_wall(*w),
            Change::Move(w, dir, law) => sim.move_wall(*w, *dir, law.clone()),
            Change::Tilt(w, pivot, axis, law) => sim.tilt_wall(*w, *pivot, *axis, law.clone()),
            Change::Servo(w, dir, servo, across) => sim.servo_face(*w, *dir, *servo, across.clone()),
            #[cfg(not(feature = "dim3"))]
            Change::StartDrive(d) => sim.start_drive(*d),
            #[cfg(feature = "dim3")]
            Change::Spin(w, omega) => sim.spin_wall(*w, *omega),
            #[cfg(feature = "dim3")]
            Change::Turn(w, law) => sim.turn_wall(*w, law.clone()),
        }
        .map_err(|e| e.to_string())
    }

    fn moves(&self, wall: usize) -> bool {
        matches!(self, Change::Move(w, ..) | Change::Servo(w, ..) | Change::Tilt(w, ..) if *w == wall)
    }
}

fn law_name(law: &Displacement) -> &'static str {
    match law {
        Displacement::Velocity(_) => "constant velocity",
        Displacement::Sine { .. } => "sine",
        Displacement::Table(_) => "table",
    }
}

/// The checkpoint section in which a staged run keeps its [`StageRecord`].
pub const STAGE_RECORD: &str = "run.stage";

/// What a checkpoint keeps of a staged run: the stage it is in, the step that stage began
/// at, and the scenario's first body id (its stages name bodies by id), as `key = value`
/// lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StageRecord {
    /// The stage (an index into the scenario's stages).
    pub stage: u64,
    /// The step it began at.
    pub began: u64,
    /// The id of the scenario's first `[[body]]`.
    pub first_body_id: u64,
}

impl StageRecord {
    /// The record as the checkpoint section holds it.
    pub fn text(&self) -> String {
        format!(
            "stage = {}\nbegan = {}\nfirst_body_id = {}\n",
            self.stage, self.began, self.first_body_id
        )
    }

    /// The record in `text`, if it has all three values.
    pub fn parse(text: &str) -> Option<StageRecord> {
        Some(StageRecord {
            stage: record_value(text, "stage")?,
            began: record_value(text, "began")?,
            first_body_id: record_value(text, "first_body_id")?,
        })
    }
}

/// The whole number after `key = ` on a line of `text`, if any.
pub fn record_value(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        l.split_once(" = ")
            .filter(|(k, _)| *k == key)
            .and_then(|(_, v)| v.trim().parse().ok())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The record reads back what it wrote; one missing value is no record.
    #[test]
    fn a_stage_record_reads_back() {
        let r = StageRecord {
            stage: 2,
            began: 88000,
            first_body_id: 601,
        };
        assert_eq!(StageRecord::parse(&r.text()), Some(r));
        assert_eq!(StageRecord::parse("stage = 2\nbegan = 88000\n"), None);
        assert_eq!(record_value("first_body_id = 7\n", "first_body_id"), Some(7));
    }
}
