//! Particles in and out of a simulation, and their order: appending (with their shapes),
//! prescribed motions, removal, and the Morton renumbering with what follows the particles
//! through it (the broad phase, the contact table, the wall contacts, shapes, drives, the
//! Gear history).
use super::*;

impl Simulation {
    /// Append particles. They join the pair set at the next broad-phase update (at once,
    /// since their stored box is empty); a large batch triggers a full rebuild instead.
    pub fn add_particles(&mut self, new: &[ParticleInit]) -> Result<()> {
        self.append(new, &[])?;
        // Gear needs the accelerations of the new particles: recompute the forces.
        self.primed = false;
        Ok(())
    }

    /// Append discs and polygons (`shapes[k]` for `new[k]`, as in `new_with_shapes`).
    #[cfg(not(feature = "dim3"))]
    pub fn add_particles_with_shapes(&mut self, new: &[ParticleInit], shapes: &[Option<PolygonShape>]) -> Result<()> {
        self.append(new, shapes)?;
        // Gear needs the accelerations of the new particles: recompute the forces.
        self.primed = false;
        Ok(())
    }

    /// Append particles: the store, the shapes, the neighbour search (which takes them in
    /// at its next update), the contact table's chains and the Gear history grow.
    pub(super) fn append(&mut self, new: &[ParticleInit], shapes: &[Option<Shape>]) -> Result<()> {
        let nmat = self.materials.len();
        for p in new {
            if let Err(msg) = check_radius(p.radius, &self.config) {
                return Err(EngineError::Setup(format!("particle id {}: {msg}", p.id)));
            }
            let ok = p.mass > 0.0 && p.mass.is_finite();
            if !ok {
                return Err(EngineError::Setup(format!(
                    "particle id {}: mass {} must be positive and finite",
                    p.id, p.mass
                )));
            }
            if p.material as usize >= nmat {
                return Err(EngineError::Setup(format!(
                    "particle id {}: material {} does not exist",
                    p.id, p.material
                )));
            }
            if p.flags != 0 && self.cell_servo.is_some() {
                return Err(EngineError::Setup(format!(
                    "particle id {}: wall bodies are not done with a cell servo (they would be stretched with the grains)",
                    p.id
                )));
            }
            if !self.in_domain(p.pos) {
                return Err(EngineError::Setup(format!(
                    "particle id {} at {:?} is outside the domain {:?}..{:?}",
                    p.id, p.pos, self.config.domain_min, self.config.domain_max
                )));
            }
        }
        if let Some(im) = &self.periodic {
            let largest = 0.5 * im.reach() - self.config.margin;
            if let Some(p) = new.iter().find(|p| p.radius > largest) {
                return Err(EngineError::Setup(format!(
                    "particle id {}: radius {} is larger than the periodic cell was set up for ({largest})",
                    p.id, p.radius
                )));
            }
        }
        #[cfg(not(feature = "dim3"))]
        if self.config.normal_model == NormalModel::Hertz {
            if let Some((k, _)) = shapes.iter().enumerate().find(|(_, s)| s.is_some()) {
                return Err(EngineError::Setup(format!("particle id {}: {HERTZ_ROUND}", new[k].id)));
            }
        }
        self.drop_images();
        let before = self.len();
        #[cfg(not(feature = "dim3"))]
        if self.shapes.is_none() && shapes.iter().any(|s| s.is_some()) {
            let mut sh = Shapes::new();
            (0..before).for_each(|_| sh.push(None));
            self.shapes = Some(sh);
            self.contacts.enable_polygon_state();
        }
        self.particles.try_reserve(new.len()).map_err(|e| {
            EngineError::Setup(format!(
                "cannot allocate the particle store for {} more particles ({} bytes each): {e}",
                new.len(),
                crate::store::BYTES_PER_PARTICLE
            ))
        })?;
        self.workers.needs_first_touch = true;
        for (k, p) in new.iter().enumerate() {
            let shape = shapes.get(k).and_then(|s| s.as_ref());
            #[cfg(feature = "dim3")]
            match shape {
                None => self.particles.push(p),
                Some(s) => match *s {},
            };
            #[cfg(not(feature = "dim3"))]
            let idx = match shape {
                Some(sh) => {
                    let q = self.particles.push(&ParticleInit {
                        radius: sh.radius,
                        ..*p
                    });
                    // I = m J / A for a body of uniform areal density.
                    if self.particles.inv_mass[q] > 0.0 {
                        self.particles.inv_inertia[q] = sh.area / (p.mass * sh.polar_moment);
                    }
                    q
                }
                None => self.particles.push(p),
            };
            #[cfg(not(feature = "dim3"))]
            if let Some(all) = &mut self.shapes {
                all.push(shape);
                let r = all.range(idx);
                let ps = &self.particles;
                to_world(
                    &all.body[r.clone()],
                    [ps.pos[0][idx], ps.pos[1][idx]],
                    ps.angle[idx],
                    &mut all.world[r],
                );
            }
            with_broad!(&mut self.broad, m => NeighborSearch::push_particle(&mut **m));
        }
        self.contacts.grow_particles(self.len());
        if let Some(g) = &mut self.gear {
            let n = self.particles.len();
            g.arrays().for_each(|a| a.resize(n, 0.0));
        }
        if new.len() * 4 > before {
            self.needs_rebuild = true;
        }
        if let Some(m) = new.iter().map(|p| p.id).max() {
            self.next_id = self.next_id.max(m.saturating_add(1));
        }
        Ok(())
    }

    /// Put the particles with these ids under a prescribed rigid motion (they must carry
    /// the DRIVEN flag: infinite mass). Their poses follow `drive` exactly from now on.
    /// Refused: a drive [`Drive::check`] refuses.
    #[cfg(not(feature = "dim3"))]
    pub fn drive_particles(&mut self, drive: Drive, ids: &[u64]) -> Result<()> {
        drive
            .check()
            .map_err(|(_, m)| EngineError::Setup(format!("drive: {m}")))?;
        let d = self.driven.drives.len();
        if d >= u16::MAX as usize {
            return Err(EngineError::Setup("too many drives".into()));
        }
        self.driven.drives.push(drive);
        for &id in ids {
            let p = self
                .particles
                .index_of(id)
                .ok_or_else(|| EngineError::Setup(format!("drive: no particle with id {id}")))?;
            if self.particles.flags[p] & crate::store::flags::DRIVEN == 0 {
                return Err(EngineError::Setup(format!(
                    "drive: particle id {id} must have the DRIVEN flag (infinite mass)"
                )));
            }
            let ps = &self.particles;
            self.driven
                .add(d as u16, p as u32, [ps.pos[0][p], ps.pos[1][p]], ps.angle[p], self.time);
        }
        Ok(())
    }

    /// Start drive `d` now, its bodies having rested until now (a drum a stage sets
    /// turning): its start time becomes the present, its ramp stays. Refused: an unknown
    /// drive, or one that has started already.
    #[cfg(not(feature = "dim3"))]
    pub fn start_drive(&mut self, d: usize) -> Result<()> {
        let now = self.time;
        match self.driven.drives.get_mut(d) {
            None => Err(EngineError::Setup(format!("drive {d}: no such drive"))),
            Some(dr) if dr.start <= now => Err(EngineError::Setup(format!(
                "drive {d}: started already (at t = {} s)",
                dr.start
            ))),
            Some(dr) => {
                dr.start = now;
                Ok(())
            }
        }
    }

    /// Remove particles by index (e.g. leaving through an outlet). The store is compacted;
    /// the broad phase, contact table and wall contacts are renumbered, not rebuilt.
    pub fn remove_particles(&mut self, indices: &[usize]) {
        let n = self.len();
        let mut map = vec![0u32; n];
        for &p in indices {
            map[p] = u32::MAX;
        }
        let mut k = 0u32;
        for m in map.iter_mut() {
            if *m != u32::MAX {
                *m = k;
                k += 1;
            }
        }
        self.remap(&map);
    }

    /// Take out the grains (not wall bodies) whose centres lie in `region`, as an outlet
    /// does (LIGGGHTS `fix remove`, a hopper's discharge): their count and mass. The
    /// contact log of the step, if any, keeps the contacts of the others.
    pub fn remove_in_region(&mut self, region: &super::Region) -> (u64, f64) {
        let ps = &self.particles;
        let out: Vec<usize> = (0..ps.len())
            .filter(|&p| !ps.is_wall_body(p) && region.contains(std::array::from_fn(|a| ps.pos[a][p])))
            .collect();
        let mass = out.iter().fold(0.0, |m, &p| m + ps.mass(p));
        if !out.is_empty() {
            self.remove_particles(&out);
        }
        (out.len() as u64, mass)
    }

    /// Renumber the particles along a Morton (Z-order) curve of their positions, so that
    /// neighbours sit close in memory (LAMMPS `atom_modify sort` does the same).
    pub fn reorder(&mut self) {
        let n = self.len();
        if n < 2 {
            return;
        }
        let (lo, hi) = (self.config.domain_min, self.config.domain_max);
        let top = MORTON_CELLS as f64;
        let scale: Vector = std::array::from_fn(|a| top / (hi[a] - lo[a]));
        let ps = &self.particles;
        let mut keyed: Vec<(u64, u32)> = (0..n)
            .map(|p| {
                let cell = std::array::from_fn(|a| ((ps.pos[a][p] - lo[a]) * scale[a]).clamp(0.0, top) as u32);
                (morton_key(cell), p as u32)
            })
            .collect();
        keyed.sort_unstable();
        let mut map = vec![0u32; n];
        for (new, &(_, old)) in keyed.iter().enumerate() {
            map[old as usize] = new as u32;
        }
        self.remap(&map);
    }

    pub(super) fn remap(&mut self, map: &[u32]) {
        let t = Instant::now();
        self.particles.remap(map);
        let n = self.particles.len();
        // The images (after the particles) are dropped and made again at the next update.
        let entries = with_broad!(&self.broad, m => m.stored_boxes().len());
        if entries > map.len() {
            let mut whole = map.to_vec();
            whole.resize(entries, u32::MAX);
            with_broad!(&mut self.broad, m => NeighborSearch::renumber(&mut **m, &whole));
        } else {
            with_broad!(&mut self.broad, m => NeighborSearch::renumber(&mut **m, map));
        }
        if let Some(im) = &mut self.periodic {
            im.forget();
            self.needs_rebuild = true;
        }
        self.contacts.remap(map, n);
        self.wall_contacts.remap(map);
        #[cfg(not(feature = "dim3"))]
        if let Some(sh) = &mut self.shapes {
            sh.remap(map);
        }
        #[cfg(not(feature = "dim3"))]
        self.driven.remap(map);
        // The log of this step follows the particles; an older one answers no more, and
        // only its buffers are kept.
        let step = self.step;
        if let Some(log) = &mut self.contact_log {
            if log.step == step {
                log.remap(map);
            } else {
                log.clear();
            }
        }
        if let Some(g) = &mut self.gear {
            for a in g.arrays() {
                let mut na = vec![0.0; n];
                for (old, &new) in map.iter().enumerate() {
                    if new != u32::MAX {
                        na[new as usize] = a[old];
                    }
                }
                *a = na;
            }
        }
        self.workers.needs_first_touch = true;
        self.workers
            .pool
            .record_serial(Phase::Reorder, t.elapsed().as_secs_f64());
    }

    pub(super) fn in_domain(&self, p: Vector) -> bool {
        let (lo, hi) = (self.config.domain_min, self.config.domain_max);
        (0..DIM).all(|a| p[a] >= lo[a] && p[a] <= hi[a])
    }
}

/// Cells per axis of the Morton curve, less one: 16 bits an axis in 2D, 21 in 3D (a key
/// of 32 or 63 bits).
pub const MORTON_CELLS: u32 = if DIM == 2 { 0xffff } else { 0x1f_ffff };

/// The Morton (Z-order) key of a cell: the bits of its coordinates interleaved, x lowest.
pub fn morton_key(cell: [u32; DIM]) -> u64 {
    let mut key = 0u64;
    for (a, &c) in cell.iter().enumerate() {
        key |= spread_bits(c) << a;
    }
    key
}

/// Spread the bits of `v` (below MORTON_CELLS) DIM apart: bit k goes to bit DIM k.
fn spread_bits(v: u32) -> u64 {
    if DIM == 2 {
        let mut v = (v & 0xffff) as u64;
        v = (v | (v << 8)) & 0x00ff_00ff;
        v = (v | (v << 4)) & 0x0f0f_0f0f;
        v = (v | (v << 2)) & 0x3333_3333;
        v = (v | (v << 1)) & 0x5555_5555;
        v
    } else {
        let mut v = (v & 0x1f_ffff) as u64;
        v = (v | (v << 32)) & 0x001f_0000_0000_ffff;
        v = (v | (v << 16)) & 0x001f_0000_ff00_00ff;
        v = (v | (v << 8)) & 0x100f_00f0_0f00_f00f;
        v = (v | (v << 4)) & 0x10c3_0c30_c30c_30c3;
        v = (v | (v << 2)) & 0x1249_2492_4924_9249;
        v
    }
}

#[cfg(test)]
mod morton_tests {
    use super::*;

    /// The spread puts bit k of the coordinate at bit DIM k and nowhere else.
    #[test]
    fn spread_bits_moves_each_bit_dim_apart() {
        for k in 0..MORTON_CELLS.count_ones() {
            assert_eq!(spread_bits(1 << k), 1u64 << (DIM as u32 * k), "bit {k}");
        }
        assert_eq!(spread_bits(MORTON_CELLS).count_ones(), MORTON_CELLS.count_ones());
        let mut cell = [0u32; DIM];
        cell[DIM - 1] = 1;
        assert_eq!(morton_key(cell), 1 << (DIM - 1));
    }
}
