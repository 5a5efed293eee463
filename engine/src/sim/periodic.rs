//! Periodic boundaries (LAMMPS `boundary p`, issue 20 item 2): the cell, the wrapping of
//! centres that went past a periodic face, and the contact table kept from the broad
//! phase's pairs of particles and images (`talus_kernels::neighbor::images`). Forces
//! take the minimum image of each pair's separation (`forces`, `MinImage`); the contact
//! table keys pairs by particles alone, so a pair keeps its spring across the seam.
use talus_kernels::neighbor::{MinImage, PeriodicCell, PeriodicImages};

use super::cell_servo::{cell_servo_from, CellServoState};
use super::state_records::Reader;
use super::*;

impl Simulation {
    /// Make the axes marked in `axes` periodic with the domain as the cell (none marked:
    /// no periodic axis). Refused, naming the conflict: a wall across a periodic axis, a
    /// cell not longer than 4 x (largest radius + margin: a polygon's bounding radius), and
    /// what is not done yet (prescribed motions under shear).
    pub fn set_periodic(&mut self, axes: [bool; DIM]) -> Result<()> {
        self.set_periodic_sheared(axes, 0.0)
    }

    /// Lees-Edwards shear (Lees & Edwards 1972) at `rate` (1/s) in a cell periodic along x
    /// and y (and any other axes in `axes`): the copy of the cell above slides along +x at
    /// `rate` x (y length), so that the grains, once on the profile v_x = rate y, are
    /// sheared homogeneously without walls. The grains' velocities are left as they are:
    /// a scenario adds the profile (`[domain] shear_rate` does).
    pub fn set_lees_edwards(&mut self, axes: [bool; DIM], rate: f64) -> Result<()> {
        if !(rate.is_finite() && rate != 0.0) {
            return Err(EngineError::Setup(format!(
                "shear rate {rate} must be finite and not 0"
            )));
        }
        if !(axes[0] && axes[1]) {
            return Err(EngineError::Setup(
                "Lees-Edwards shear needs x (the flow) and y (the gradient) periodic".into(),
            ));
        }
        let ly = self.config.domain_max[1] - self.config.domain_min[1];
        self.set_periodic_sheared(axes, rate * ly)
    }

    /// The shear rate of a Lees-Edwards cell (0 without shear).
    pub fn shear_rate(&self) -> f64 {
        self.periodic
            .as_ref()
            .map_or(0.0, |p| p.cell.shear_velocity / p.cell.length(1))
    }

    pub(super) fn set_periodic_sheared(&mut self, axes: [bool; DIM], shear_velocity: f64) -> Result<()> {
        let bad = |m: String| Err(EngineError::Setup(m));
        let names = ["x", "y", "z"];
        // A cell servo holds a periodic y length: none without one.
        let servo = if axes[1] { self.cell_servo } else { None };
        if !axes.iter().any(|&p| p) {
            self.cell_servo = None;
            if self.periodic.take().is_some() {
                self.drop_images();
                self.broad = Broad::new(self.config.neighbor, &self.config);
                self.refill_broad();
            }
            return Ok(());
        }
        // A driven body's way to its exact pose is taken by the minimum image; under shear
        // the copy across y would move it by the offset as well.
        #[cfg(not(feature = "dim3"))]
        if !self.driven.is_empty() && shear_velocity != 0.0 {
            return bad("Lees-Edwards shear with prescribed motions (drives): not done yet".into());
        }
        for (k, w) in self.walls.iter().enumerate().filter(|(_, w)| !w.removed) {
            for a in (0..DIM).filter(|&a| axes[a]) {
                #[cfg(not(feature = "dim3"))]
                let across = w.line.normal[a] != 0.0;
                #[cfg(feature = "dim3")]
                let across = match &w.surface {
                    crate::walls::Surface::Plane(p) => p.normal[a] != 0.0,
                    // A drum may be periodic along its own axis only.
                    crate::walls::Surface::Cylinder(c) => c.axis[a].abs() != 1.0,
                };
                if across {
                    return bad(format!(
                        "wall {} lies across periodic axis {}: a periodic axis has no walls across it \
                         (make the axis fixed or take the wall out)",
                        k + 1,
                        names[a]
                    ));
                }
            }
        }
        let largest = self
            .particles
            .radius
            .iter()
            .copied()
            .chain(self.inserts.iter().map(|s| s.spec.radius.max()))
            .fold(0.0, f64::max);
        let cell = PeriodicCell {
            lo: self.config.domain_min,
            hi: self.config.domain_max,
            periodic: axes,
            shear_velocity,
        };
        let mut images = Self::images_for(cell, largest + self.config.margin, servo.as_ref())?;
        self.cell_servo = servo;
        images.set_offset(cell.shear_offset(self.time));
        self.drop_images();
        self.periodic = Some(images);
        // In a periodic cell every candidate pair is in a slot (`sim::near_pairs`).
        self.contacts.slot_every_pair();
        // The quadtree's root must hold the images beyond the faces.
        self.broad = Broad::new(self.config.neighbor, &self.broad_config());
        self.refill_broad();
        self.wrap_into_cell();
        // The forces of the current state, now with the pairs across the faces.
        if self.primed {
            self.prime()?;
        }
        Ok(())
    }

    /// The periodic axes (all false without periodic boundaries).
    pub fn periodic_axes(&self) -> [bool; DIM] {
        self.periodic.as_ref().map_or([false; DIM], |p| p.cell.periodic)
    }

    /// The minimum-image rule of the cell (with the shear's offset for the positions at
    /// hand), if any axis is periodic.
    pub fn min_image(&self) -> Option<MinImage> {
        self.periodic.as_ref().map(|p| p.cell.min_image(p.offset()))
    }

    /// Under shear: the offset of the cell above for positions at time `t`; true when it
    /// has moved so far since the broad phase's last update that it must be updated.
    pub(super) fn shear_to(&mut self, t: f64) -> bool {
        match &mut self.periodic {
            Some(im) if im.cell.shear_velocity != 0.0 => {
                im.set_offset(im.cell.shear_offset(t));
                im.offset_drifted()
            }
            _ => false,
        }
    }

    /// Every shift by whole cell lengths (-1, 0 or 1 along each periodic axis; under shear
    /// a shift along y also moves x by the offset), the zero shift first: the copies of a
    /// particle that can meet something in the cell.
    pub(super) fn periodic_shifts(&self) -> Vec<Vector> {
        let mut out = vec![[0.0; DIM]];
        if let Some(im) = &self.periodic {
            for a in (0..DIM).filter(|&a| im.cell.periodic[a]) {
                let l = im.cell.length(a);
                let more: Vec<Vector> = out
                    .iter()
                    .flat_map(|s| {
                        [-l, l].map(|d| {
                            let mut t = *s;
                            t[a] = d;
                            t
                        })
                    })
                    .collect();
                out.extend(more);
            }
            // The copy above sits ahead by the offset, the copy below behind it.
            let ly = im.cell.length(1);
            for s in &mut out {
                s[0] += s[1] / ly * im.offset();
            }
        }
        out
    }

    /// What moves particle j to its image nearest to particle i: the shift of its position
    /// and the change of its x velocity (Lees-Edwards); zeros without periodic axes.
    #[cfg(not(feature = "dim3"))]
    pub(crate) fn image_shift(&self, i: usize, j: usize) -> ([f64; 2], f64) {
        let ps = &self.particles;
        let raw = [ps.pos[0][j] - ps.pos[0][i], ps.pos[1][j] - ps.pos[1][i]];
        match self.min_image() {
            None => ([0.0; 2], 0.0),
            Some(mi) => {
                let (d, cells) = mi.with_cells(raw);
                ([d[0] - raw[0], d[1] - raw[1]], -cells * mi.shear_velocity)
            }
        }
    }

    /// The separation `x_j - x_i` of two particles, by the minimum image where periodic.
    pub fn separation(&self, i: usize, j: usize) -> Vector {
        let ps = &self.particles;
        let d: Vector = std::array::from_fn(|a| ps.pos[a][j] - ps.pos[a][i]);
        self.min_image().map_or(d, |m| m.of(d))
    }

    /// The configuration the broad phase is made with: the domain grown past the periodic
    /// faces by as far as images and unwrapped centres reach.
    pub(super) fn broad_config(&self) -> Config {
        let mut c = self.config.clone();
        if let Some(im) = &self.periodic {
            im.broad_domain(&mut c.domain_min, &mut c.domain_max);
        }
        c
    }

    /// The bounds a centre must stay within, on the periodic axes past the faces by the
    /// slack before it is wrapped.
    pub(super) fn checked_domain(&self) -> (Vector, Vector) {
        let (mut lo, mut hi) = (self.config.domain_min, self.config.domain_max);
        if let Some(im) = &self.periodic {
            for a in (0..DIM).filter(|&a| im.cell.periodic[a]) {
                lo[a] -= im.slack();
                hi[a] += im.slack();
            }
        }
        (lo, hi)
    }

    /// Wrap every centre outside the cell along a periodic axis back into it; the broad
    /// phase is then rebuilt (with new images). False when some particle is still outside
    /// the domain (along an axis that is not periodic, or not finite): an escape.
    pub(super) fn wrap_into_cell(&mut self) -> bool {
        let Some(im) = &self.periodic else {
            return false;
        };
        let (cell, offset) = (im.cell, im.offset());
        let ps = &mut self.particles;
        for p in 0..ps.len() {
            let mut c: Vector = std::array::from_fn(|a| ps.pos[a][p]);
            let down = cell.wrap_point(&mut c, offset);
            (0..DIM).for_each(|a| ps.pos[a][p] = c[a]);
            // Moved into the cell below: slower by its velocity relative to this one.
            if down != 0.0 {
                ps.vel[0][p] -= down * cell.shear_velocity;
            }
        }
        self.needs_rebuild = true;
        let ps = &self.particles;
        (0..ps.len()).all(|p| self.in_domain(std::array::from_fn(|a| ps.pos[a][p])))
    }

    /// Take the images out of the broad phase before particles are added or renumbered
    /// (they are made again at the next update, a full rebuild).
    pub(super) fn drop_images(&mut self) {
        let Some(im) = &mut self.periodic else {
            return;
        };
        let n = self.particles.len();
        let entries = with_broad!(&self.broad, m => m.stored_boxes().len());
        if entries > n {
            let map: Vec<u32> = (0..entries as u32)
                .map(|e| if e < n as u32 { e } else { u32::MAX })
                .collect();
            with_broad!(&mut self.broad, m => NeighborSearch::renumber(&mut **m, &map));
        }
        im.forget();
        self.needs_rebuild = true;
    }

    /// Entries for every particle in a new broad phase (filled at its first update).
    fn refill_broad(&mut self) {
        for _ in 0..self.len() {
            with_broad!(&mut self.broad, m => NeighborSearch::push_particle(&mut **m));
        }
        self.needs_rebuild = true;
    }
}

/// The periodic cell of a checkpoint, if it has one: its axes, the reach its images were
/// made for, the images themselves (`n` particles), and its cell servo if it has one.
pub(super) fn periodic_from(
    r: &Reader,
    config: &Config,
    n: usize,
) -> Result<(Option<PeriodicImages>, Option<CellServoState>)> {
    if r.src.section("periodic").is_none() {
        if r.src.section("periodic.servo").is_some() {
            return Err(r.err("periodic.servo", "a cell servo without a periodic cell".into()));
        }
        return Ok((None, None));
    }
    let words: Vec<f64> = r.exact("periodic", 2 + DIM)?;
    let axes: [bool; DIM] = std::array::from_fn(|a| words[1 + a] == 1.0);
    let flags_ok = words[1..=DIM].iter().all(|&w| w == 0.0 || w == 1.0) && axes.iter().any(|&p| p);
    if !(flags_ok && words[0] > 0.0 && words[0].is_finite() && words[1 + DIM].is_finite()) {
        return Err(r.err(
            "periodic",
            format!("{words:?} is no periodic cell (a reach, 0 or 1 per axis, a shear velocity)"),
        ));
    }
    let cell = PeriodicCell {
        lo: config.domain_min,
        hi: config.domain_max,
        periodic: axes,
        shear_velocity: words[1 + DIM],
    };
    let servo = cell_servo_from(r, &cell)?;
    let mut images = match &servo {
        None => PeriodicImages::new(cell, words[0]),
        Some((s, _)) => PeriodicImages::new_resizable(cell, words[0], s.spec.min_length, s.spec.max_length),
    }
    .map_err(|m| r.err("periodic", m))?;
    if let Some((_, stored)) = servo {
        images.restore_length(stored);
    }
    let stored: Vec<f64> = r.exact("periodic.offset", 1)?;
    if !(stored[0] >= 0.0 && stored[0] < cell.length(0)) {
        return Err(r.err("periodic.offset", format!("{} is no offset within the cell", stored[0])));
    }
    images.restore_offsets(stored[0]);
    let owner: Vec<u32> = r.get("periodic.owner")?;
    let flat: Vec<u8> = r.exact("periodic.shift", owner.len() * DIM)?;
    let shift: Vec<[i8; DIM]> = flat
        .chunks_exact(DIM)
        .map(|c| std::array::from_fn(|a| c[a] as i8 - 3))
        .collect();
    images
        .restore(n, &owner, &shift)
        .map_err(|m| r.err("periodic.owner", m))?;
    Ok((Some(images), servo.map(|s| s.0)))
}

/// Bring the contact table up to the broad phase's changes of entry pairs in a periodic
/// cell: a pair of particles is a candidate while the stored boxes of any of its copies
/// meet, whichever order the changes came in (`n` particles).
pub(super) fn apply_imaged_changes<'a>(
    contacts: &mut ContactTable,
    images: &PeriodicImages,
    stored: &[Aabb],
    n: usize,
    changes: impl Iterator<Item = &'a (u32, u32)>,
) {
    for &(a, b) in changes {
        let (i, j) = (images.owner(n, a), images.owner(n, b));
        // A grain and its own image are no pair.
        if i == j {
            continue;
        }
        let want = images.any_copy_meets(n, stored, i, j);
        match (want, contacts.find(i, j).is_some()) {
            (true, false) => {
                contacts.add(i, j);
            }
            (false, true) => {
                contacts.remove(i, j);
            }
            _ => {}
        }
    }
}
