//! Walls and their contacts with particles: straight lines in 2D; planes and the insides of
//! turning cylinders (drums) in 3D.
//!
//! Walls are few, so the wall contact list is rebuilt from scratch whenever the broad
//! phase updates: a (particle, wall) pair is a candidate when the particle's stored
//! enlarged box reaches the wall. Between updates every particle stays inside its stored
//! box, so no touching pair is missed. The tangential springs of pairs that stay
//! candidates are carried over by a merge of the two sorted lists.
#[cfg(not(feature = "dim3"))]
pub use talus_kernels::contact::disc_wall::LineWall;
#[cfg(feature = "dim3")]
pub use talus_kernels::contact::sphere_wall::{CylinderWall, PlaneWall};
use talus_kernels::contact::{Spring, SPRING_ZERO};
#[cfg(feature = "dim3")]
use talus_kernels::math::DIM;
use talus_kernels::math::{Aabb, ANG};

/// The surface of a wall in 3D.
#[cfg(feature = "dim3")]
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Surface {
    /// A plane: the particles are on the side its normal points to.
    Plane(PlaneWall),
    /// The inside of a cylinder: the particles are within it.
    Cylinder(CylinderWall),
}

/// A wall: its surface, its material, and whether a stage took it away.
#[derive(Debug, Clone, PartialEq)]
pub struct Wall {
    /// The line (2D): a point, the unit normal towards the particles, its velocity.
    #[cfg(not(feature = "dim3"))]
    pub line: LineWall,
    /// The surface (3D): a plane or the inside of a cylinder.
    #[cfg(feature = "dim3")]
    pub surface: Surface,
    /// Material index (into the simulation's materials).
    pub material: u16,
    /// Taken away (a stage opened it, [`crate::Simulation::remove_wall`]): no particle
    /// touches it any more. It keeps its place in the list, so that walls keep their
    /// numbers (moving walls, per-wall forces) for the whole run.
    pub removed: bool,
}

impl Wall {
    /// A fixed straight wall through `point` with unit `normal` towards the particles.
    #[cfg(not(feature = "dim3"))]
    pub fn fixed(point: [f64; 2], normal: [f64; 2], material: u16) -> Wall {
        Wall {
            line: LineWall {
                point,
                normal,
                velocity: [0.0; 2],
                spin: 0.0,
            },
            material,
            removed: false,
        }
    }

    /// A fixed plane through `point` with unit `normal` towards the particles.
    #[cfg(feature = "dim3")]
    pub fn plane(point: [f64; 3], normal: [f64; 3], material: u16) -> Wall {
        Wall {
            surface: Surface::Plane(PlaneWall {
                point,
                normal,
                velocity: [0.0; 3],
                spin: [0.0; 3],
            }),
            material,
            removed: false,
        }
    }

    /// The inside of a cylinder of `radius` about the line through `point` along the unit
    /// `axis`, turning about it at `spin` rad/s (a drum).
    #[cfg(feature = "dim3")]
    pub fn cylinder(point: [f64; 3], axis: [f64; 3], radius: f64, spin: f64, material: u16) -> Wall {
        Wall {
            surface: Surface::Cylinder(CylinderWall {
                point,
                axis,
                radius,
                spin,
                growth: 0.0,
            }),
            material,
            removed: false,
        }
    }

    /// Signed distance of the point `p` from the wall: positive on the particles' side.
    pub fn distance(&self, p: talus_kernels::math::Vector) -> f64 {
        #[cfg(not(feature = "dim3"))]
        return self.line.distance(p[0], p[1]);
        #[cfg(feature = "dim3")]
        match &self.surface {
            Surface::Plane(pl) => pl.distance(p),
            Surface::Cylinder(cy) => cy.distance(p),
        }
    }

    /// The wall's unit normal towards the particles where it is nearest to `p` (a
    /// cylinder's: towards its axis; +x for a point on the axis).
    pub fn normal_at(&self, p: talus_kernels::math::Vector) -> talus_kernels::math::Vector {
        #[cfg(not(feature = "dim3"))]
        {
            let _ = p;
            self.line.normal
        }
        #[cfg(feature = "dim3")]
        match &self.surface {
            Surface::Plane(pl) => pl.normal,
            Surface::Cylinder(cy) => {
                use talus_kernels::math::{dot, norm2, scale, sub};
                let d = sub(p, cy.point);
                let radial = sub(d, scale(dot(d, cy.axis), cy.axis));
                let r = norm2(radial).sqrt();
                if r > 0.0 {
                    scale(-1.0 / r, radial)
                } else {
                    [1.0, 0.0, 0.0]
                }
            }
        }
    }

    /// Can a particle whose stored box is `b` touch the wall, or the wall moved by up to
    /// `reach` towards it? The box's corner deepest towards a line or plane, or farthest
    /// from a cylinder's axis (a convex function is largest at a corner), is within
    /// `reach` of it or past it.
    fn reached_by(&self, b: &Aabb, reach: f64) -> bool {
        // The corner deepest along a normal: the low end of each axis the normal points up.
        let deepest = |normal: &[f64]| std::array::from_fn(|a| b[2 * a + usize::from(normal[a] <= 0.0)] as f64);
        #[cfg(not(feature = "dim3"))]
        return self.distance(deepest(&self.line.normal)) <= reach;
        #[cfg(feature = "dim3")]
        match &self.surface {
            Surface::Plane(pl) => self.distance(deepest(&pl.normal)) <= reach,
            Surface::Cylinder(_) => (0..1usize << DIM).any(|k| {
                let c = std::array::from_fn(|a| b[2 * a + (k >> a & 1)] as f64);
                self.distance(c) <= reach
            }),
        }
    }

    /// The point a line or plane passes through (None for a cylinder).
    pub fn point(&self) -> Option<talus_kernels::math::Vector> {
        #[cfg(not(feature = "dim3"))]
        return Some(self.line.point);
        #[cfg(feature = "dim3")]
        match &self.surface {
            Surface::Plane(pl) => Some(pl.point),
            Surface::Cylinder(_) => None,
        }
    }

    /// Where a moving wall is: a line's or plane's point; a cylinder's radius as `[r, 0, 0]`
    /// (a motion or servo moves it along `[-1, 0, 0]`: into the grains, the radius
    /// shrinking).
    pub fn coordinate(&self) -> talus_kernels::math::Vector {
        #[cfg(not(feature = "dim3"))]
        return self.line.point;
        #[cfg(feature = "dim3")]
        match &self.surface {
            Surface::Plane(pl) => pl.point,
            Surface::Cylinder(cy) => [cy.radius, 0.0, 0.0],
        }
    }

    /// Put a moving wall at `coordinate` (as [`Wall::coordinate`] has it), moving at
    /// `velocity`: a line or plane through that point; a cylinder of that radius, growing
    /// at `velocity[0]`.
    pub fn set_pose(&mut self, coordinate: talus_kernels::math::Vector, velocity: talus_kernels::math::Vector) {
        #[cfg(not(feature = "dim3"))]
        {
            self.line.point = coordinate;
            self.line.velocity = velocity;
        }
        #[cfg(feature = "dim3")]
        match &mut self.surface {
            Surface::Plane(pl) => {
                pl.point = coordinate;
                pl.velocity = velocity;
            }
            Surface::Cylinder(cy) => {
                cy.radius = coordinate[0];
                cy.growth = velocity[0];
            }
        }
    }

    /// Turn a line or plane to the unit `normal`, turning at `spin` about its point (a
    /// tilt, [`crate::wall_motion::WallTilt`]); a cylinder's spin is `Wall::set_spin`'s (3D).
    pub fn set_tilt(&mut self, normal: talus_kernels::math::Vector, spin: [f64; ANG]) {
        #[cfg(not(feature = "dim3"))]
        {
            self.line.normal = normal;
            self.line.spin = spin[0];
        }
        #[cfg(feature = "dim3")]
        if let Surface::Plane(pl) = &mut self.surface {
            pl.normal = normal;
            pl.spin = spin;
        }
    }

    /// A cylinder's spin about its axis (rad/s); a plane has none to set.
    #[cfg(feature = "dim3")]
    pub fn set_spin(&mut self, spin: f64) {
        if let Surface::Cylinder(cy) = &mut self.surface {
            cy.spin = spin;
        }
    }
}

/// Candidate (particle, wall) pairs, sorted by (particle, wall), with their springs.
#[derive(Debug, Default, Clone)]
pub struct WallContacts {
    /// Particle (store index) of each pair.
    pub p: Vec<u32>,
    /// Wall (index in the simulation's walls) of each pair.
    pub w: Vec<u16>,
    /// Tangential spring (Cundall-Strack) of each pair, zero when it is not touching.
    pub xi: Vec<Spring>,
    /// Overlap area of the last step (polygons; zero for discs).
    pub area: Vec<f64>,
    /// The rolling torque kept in the contact (empty unless the simulation has cohesion or
    /// rolling resistance: `enable_rolling_state`).
    pub rolling: Vec<[f64; ANG]>,
    pub(crate) rolling_state: bool,
    np: Vec<u32>,
    nw: Vec<u16>,
    nxi: Vec<Spring>,
    narea: Vec<f64>,
    nrolling: Vec<[f64; ANG]>,
}

impl WallContacts {
    /// Number of candidate pairs.
    pub fn len(&self) -> usize {
        self.p.len()
    }

    /// Whether there is no candidate pair.
    pub fn is_empty(&self) -> bool {
        self.p.is_empty()
    }

    /// Keep a rolling torque per contact (rolling resistance).
    pub fn enable_rolling_state(&mut self) {
        if !self.rolling_state {
            self.rolling_state = true;
            self.rolling = vec![[0.0; ANG]; self.p.len()];
        }
    }

    /// Rebuild from the stored boxes; `reach[w]` (empty: 0 for all) is how far wall `w`
    /// may move towards the particles before the list is rebuilt again.
    pub fn rebuild(&mut self, walls: &[Wall], boxes: &[Aabb], reach: &[f64]) {
        self.np.clear();
        self.nw.clear();
        self.nxi.clear();
        self.narea.clear();
        self.nrolling.clear();
        let mut k = 0;
        for (p, b) in boxes.iter().enumerate() {
            for (w, wall) in walls.iter().enumerate() {
                if !wall.removed && wall.reached_by(b, reach.get(w).copied().unwrap_or(0.0)) {
                    let (p, w) = (p as u32, w as u16);
                    while k < self.p.len() && (self.p[k], self.w[k]) < (p, w) {
                        k += 1;
                    }
                    let old = (k < self.p.len() && (self.p[k], self.w[k]) == (p, w)).then_some(k);
                    self.np.push(p);
                    self.nw.push(w);
                    self.nxi.push(old.map_or(SPRING_ZERO, |k| self.xi[k]));
                    self.narea.push(old.map_or(0.0, |k| self.area[k]));
                    if self.rolling_state {
                        self.nrolling.push(old.map_or([0.0; ANG], |k| self.rolling[k]));
                    }
                }
            }
        }
        std::mem::swap(&mut self.p, &mut self.np);
        std::mem::swap(&mut self.w, &mut self.nw);
        std::mem::swap(&mut self.xi, &mut self.nxi);
        std::mem::swap(&mut self.area, &mut self.narea);
        std::mem::swap(&mut self.rolling, &mut self.nrolling);
    }

    /// Drop the contacts with wall `wall` (taken away), keeping the others' springs.
    pub fn drop_wall(&mut self, wall: u16) {
        let mut k = 0;
        for j in 0..self.p.len() {
            if self.w[j] != wall {
                self.p[k] = self.p[j];
                self.w[k] = self.w[j];
                self.xi[k] = self.xi[j];
                self.area[k] = self.area[j];
                if self.rolling_state {
                    self.rolling[k] = self.rolling[j];
                }
                k += 1;
            }
        }
        self.p.truncate(k);
        self.w.truncate(k);
        self.xi.truncate(k);
        self.area.truncate(k);
        if self.rolling_state {
            self.rolling.truncate(k);
        }
    }

    /// Renumber particles (`map[old] = new` or `u32::MAX`): the list is rebuilt at the next
    /// broad-phase update anyway, but springs must follow their particles until then.
    pub fn remap(&mut self, map: &[u32]) {
        let rolling = |k: usize| {
            if self.rolling_state {
                self.rolling[k]
            } else {
                [0.0; ANG]
            }
        };
        let mut v: Vec<(u32, u16, Spring, f64, [f64; ANG])> = (0..self.p.len())
            .filter(|&k| map[self.p[k] as usize] != u32::MAX)
            .map(|k| (map[self.p[k] as usize], self.w[k], self.xi[k], self.area[k], rolling(k)))
            .collect();
        v.sort_by_key(|a| (a.0, a.1));
        self.p = v.iter().map(|a| a.0).collect();
        self.w = v.iter().map(|a| a.1).collect();
        self.xi = v.iter().map(|a| a.2).collect();
        self.area = v.iter().map(|a| a.3).collect();
        if self.rolling_state {
            self.rolling = v.iter().map(|a| a.4).collect();
        }
    }

    /// Bytes the lists hold (their capacities), the rebuild's spare buffers included.
    pub fn memory_bytes(&self) -> usize {
        (self.p.capacity() + self.np.capacity()) * 4
            + (self.w.capacity() + self.nw.capacity()) * 2
            + (self.xi.capacity() + self.nxi.capacity()) * std::mem::size_of::<Spring>()
            + (self.area.capacity() + self.narea.capacity()) * 8
            + (self.rolling.capacity() + self.nrolling.capacity()) * 8 * ANG
    }
}
