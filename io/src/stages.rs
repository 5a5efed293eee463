//! A run's `[[stage]]`s in the engine's terms (engine walls, particle ids, drives), and
//! the changes each makes to a simulation as it begins. Made from the scenario alone
//! (and the id of its first body), so that a restart, which reads the scenario from its
//! checkpoint, makes the same stages as the run it continues.
use talus_engine::wall_motion::{Displacement, Servo};
use talus_engine::Simulation;
use talus_kernels::math::Vector;

use crate::preflight;
use crate::scenario::{self as sc, Named, Scenario, WallDrive};

/// One stage: at most `steps`, ended earlier by `until`; `changes` made as it begins.
#[derive(Debug, Clone, PartialEq)]
pub struct StagePlan {
    pub name: String,
    pub steps: u64,
    pub until: Option<sc::Until>,
    changes: Vec<Change>,
}

/// One change a stage makes, on engine walls (indices), bodies (ids) and drives.
#[derive(Debug, Clone, PartialEq)]
enum Change {
    Gravity(Vector),
    RemoveWall(usize),
    RemoveBody(u64),
    Hold(usize),
    Move(usize, Vector, Displacement),
    Servo(usize, Vector, Servo),
    #[cfg(not(feature = "dim3"))]
    StartDrive(usize),
    #[cfg(feature = "dim3")]
    Spin(usize, f64),
}

/// The engine walls each scenario wall makes (a box: its faces), by scenario wall.
fn engine_walls(scenario: &Scenario) -> Vec<std::ops::Range<usize>> {
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
            for &w in &s.hold {
                changes.extend(faces[w].clone().map(Change::Hold));
            }
            for (w, m) in &s.moves {
                for e in faces[*w].clone() {
                    // A stage's motion replaces the one the wall had.
                    changes.push(Change::Hold(e));
                    changes.push(match &m.drive {
                        WallDrive::Law(law) => Change::Move(e, m.direction, law.clone()),
                        WallDrive::Servo(servo) => Change::Servo(e, m.direction, *servo),
                    });
                }
            }
            for t in &s.start {
                match *t {
                    #[cfg(not(feature = "dim3"))]
                    Named::Drum(j) => changes.push(Change::StartDrive(drum_drive[j])),
                    #[cfg(feature = "dim3")]
                    Named::Wall(w) => {
                        if let sc::Wall::Cylinder { omega, .. } = scenario.walls[w] {
                            changes.extend(faces[w].clone().map(|e| Change::Spin(e, omega)));
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

/// The drums (3D: cylinder walls) that stages start, still as the build makes them: held
/// until their stage (3D: spin 0).
#[cfg(feature = "dim3")]
pub fn hold_drums(scenario: &Scenario, sim: &mut Simulation) -> talus_engine::Result<()> {
    let faces = engine_walls(scenario);
    for s in &scenario.stages {
        for t in &s.start {
            if let Named::Wall(w) = *t {
                for e in faces[w].clone() {
                    sim.spin_wall(e, 0.0)?;
                }
            }
        }
    }
    Ok(())
}

impl StagePlan {
    /// Make the stage's changes to `sim` (as it begins, between steps).
    pub fn begin(&self, sim: &mut Simulation) -> Result<(), String> {
        let named = |e: talus_engine::EngineError| format!("stage `{}`: {e}", self.name);
        for c in &self.changes {
            match c {
                Change::Gravity(g) => sim.set_gravity(*g),
                Change::RemoveWall(w) => sim.remove_wall(*w),
                Change::RemoveBody(id) => {
                    let p = sim
                        .particles
                        .index_of(*id)
                        .ok_or_else(|| format!("stage `{}`: no body with id {id} is left", self.name))?;
                    sim.remove_particles(&[p]);
                    Ok(())
                }
                Change::Hold(w) => sim.hold_wall(*w),
                Change::Move(w, dir, law) => sim.move_wall(*w, *dir, law.clone()),
                Change::Servo(w, dir, servo) => sim.servo_wall(*w, *dir, *servo),
                #[cfg(not(feature = "dim3"))]
                Change::StartDrive(d) => sim.start_drive(*d),
                #[cfg(feature = "dim3")]
                Change::Spin(w, omega) => sim.spin_wall(*w, *omega),
            }
            .map_err(named)?;
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
                Change::Servo(w, _, s) => format!("wall {w} under a servo to {} N", s.target),
                #[cfg(not(feature = "dim3"))]
                Change::StartDrive(d) => format!("drive {d} started"),
                #[cfg(feature = "dim3")]
                Change::Spin(w, omega) => format!("drum wall {w} turning at {omega} rad/s"),
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
    fn moves(&self, wall: usize) -> bool {
        matches!(self, Change::Move(w, ..) | Change::Servo(w, ..) if *w == wall)
    }
}

fn law_name(law: &Displacement) -> &'static str {
    match law {
        Displacement::Velocity(_) => "constant velocity",
        Displacement::Sine { .. } => "sine",
        Displacement::Table(_) => "table",
    }
}
