//! Walls moved by a prescribed function of time ([`crate::wall_motion`]): their poses set
//! at every step, and their contact list kept true while they move.
//!
//! The wall-contact list holds the particles whose stored boxes reach a wall; a moving
//! wall's list also holds those within `margin` of it, and is built again when the wall
//! has moved `margin` since (a cheap pass over the stored boxes, without a broad-phase
//! update): between two builds no particle leaves its box and no wall moves farther than
//! the reach it was listed with, so no touching pair is missed.
use talus_kernels::math::{Aabb, Vector, DIM};
use talus_kernels::neighbor::NeighborSearch;

use super::{Broad, Simulation};
use crate::error::{EngineError, Result};
use crate::pool::Phase;
use crate::wall_motion::{Displacement, WallMotion};

impl Simulation {
    /// Move wall `wall` (a line in 2D, a plane in 3D) along `direction` (normalised here)
    /// by `law` from where it is now, from time 0 (LIGGGHTS `fix move/mesh`). Refused: an
    /// unknown wall, a cylinder, a wall already moving, a zero or non-finite direction, a
    /// law [`Displacement::check`] refuses.
    pub fn move_wall(&mut self, wall: usize, direction: Vector, law: Displacement) -> Result<()> {
        let setup = |m: String| EngineError::Setup(format!("wall {wall}: {m}"));
        let w = self
            .walls
            .get(wall)
            .ok_or_else(|| setup(format!("no such wall ({} walls)", self.walls.len())))?;
        let origin = w
            .point()
            .ok_or_else(|| setup("moving a cylinder is not done yet".into()))?;
        if self.moving_walls.iter().any(|m| m.wall == wall) {
            return Err(setup("moves already".into()));
        }
        let len = direction.iter().map(|d| d * d).sum::<f64>().sqrt();
        if !(len.is_finite() && len > 0.0) {
            return Err(setup(format!("direction {direction:?} has no length")));
        }
        law.check().map_err(setup)?;
        let motion = WallMotion {
            wall,
            direction: direction.map(|d| d / len),
            origin,
            law,
        };
        // The start where the wall is at time 0: a law that does not start at s = 0 (a
        // table) moves it there.
        let (s0, _) = motion.law.at(0.0);
        let motion = WallMotion {
            origin: std::array::from_fn(|a| origin[a] - s0 * motion.direction[a]),
            ..motion
        };
        self.moving_walls.push(motion);
        self.walls_listed.push(origin);
        self.place_walls(self.time);
        self.needs_rebuild = true;
        Ok(())
    }

    /// The moving walls.
    pub fn wall_motions(&self) -> &[WallMotion] {
        &self.moving_walls
    }

    /// Every moving wall at its pose of time `t`.
    pub(super) fn place_walls(&mut self, t: f64) {
        for m in &self.moving_walls {
            let (p, v) = m.pose(t);
            self.walls[m.wall].set_pose(p, v);
        }
    }

    /// How far each wall may move before its contact list is built again (empty without
    /// moving walls: none moves).
    pub(super) fn wall_reach(&self) -> Vec<f64> {
        if self.moving_walls.is_empty() {
            return Vec::new();
        }
        let mut reach = vec![0.0; self.walls.len()];
        for m in &self.moving_walls {
            reach[m.wall] = self.config.margin;
        }
        reach
    }

    /// Record where the moving walls are, as their contact list is built.
    pub(super) fn mark_walls_listed(&mut self) {
        for (m, at) in self.moving_walls.iter().zip(&mut self.walls_listed) {
            *at = self.walls[m.wall].point().expect("a moving wall has a point");
        }
    }

    /// Build the wall-contact list again if a moving wall went farther than its reach
    /// since the list was built.
    pub(super) fn relist_strayed_walls(&mut self) {
        let margin = self.config.margin;
        let strayed = self.moving_walls.iter().zip(&self.walls_listed).any(|(m, at)| {
            let p = self.walls[m.wall].point().expect("a moving wall has a point");
            (0..DIM).map(|a| (p[a] - at[a]).powi(2)).sum::<f64>() > margin * margin
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
