//! Writing a running simulation: ParaView frames (.vtu + .pvd), an OVITO-readable LAMMPS
//! dump, and the energy time series, every K steps, into one folder.
use std::path::{Path, PathBuf};

use talus_engine::Simulation;
use talus_kernels::math::{ANG, DIM};

use crate::dump::DumpWriter;
use crate::series::{gravitational_potential, EnergySeries};
#[cfg(not(feature = "dim3"))]
use crate::vtk::Polygons;
use crate::vtk::{Frame, PvdSeries};
use crate::walls_vtu::{has_walls, write_walls_vtu};
use crate::{IoError, Result};

/// Which files to write.
#[derive(Debug, Clone, Copy)]
pub struct OutputKinds {
    pub vtk: bool,
    pub dump: bool,
    pub energy: bool,
}

pub struct Outputs {
    dir: PathBuf,
    pvd: Option<PvdSeries>,
    walls: Option<PvdSeries>,
    dump: Option<DumpWriter>,
    energy: Option<EnergySeries>,
    grains: Grains,
}

/// The grains of a frame (wall bodies left out: they go to the walls series), copied out
/// of the store, with the total force on each (contacts and gravity).
#[derive(Default)]
struct Grains {
    ids: Vec<u64>,
    types: Vec<u32>,
    pos: [Vec<f64>; DIM],
    vel: [Vec<f64>; DIM],
    omega: [Vec<f64>; ANG],
    radius: Vec<f64>,
    force: [Vec<f64>; DIM],
    #[cfg(not(feature = "dim3"))]
    angle: Vec<f64>,
    #[cfg(not(feature = "dim3"))]
    polygons: bool,
    #[cfg(not(feature = "dim3"))]
    start: Vec<u32>,
    #[cfg(not(feature = "dim3"))]
    corners: Vec<[f64; 2]>,
}

impl Grains {
    fn gather(&mut self, sim: &Simulation) {
        let ps = &sim.particles;
        let g = sim.config.gravity;
        self.ids.clear();
        self.types.clear();
        let axes = self.pos.iter_mut().chain(&mut self.vel).chain(&mut self.force);
        axes.chain(&mut self.omega).for_each(Vec::clear);
        self.radius.clear();
        #[cfg(not(feature = "dim3"))]
        {
            self.angle.clear();
            self.start.clear();
            self.corners.clear();
            self.start.push(0);
            self.polygons = sim.shapes.is_some();
        }
        for p in (0..ps.len()).filter(|&p| !ps.is_wall_body(p)) {
            self.ids.push(ps.id[p]);
            self.types.push(ps.ptype[p] as u32);
            // The store's loads are the contact forces; gravity is added in the kick. The
            // output reports what LAMMPS' fx, fy do: the total force on the grain.
            let m = ps.mass(p);
            for a in 0..DIM {
                self.pos[a].push(ps.pos[a][p]);
                self.vel[a].push(ps.vel[a][p]);
                self.force[a].push(ps.force[a][p] + m * g[a]);
            }
            for a in 0..ANG {
                self.omega[a].push(ps.omega[a][p]);
            }
            self.radius.push(ps.radius[p]);
            #[cfg(not(feature = "dim3"))]
            {
                self.angle.push(ps.angle[p]);
                if let Some(sh) = &sim.shapes {
                    self.corners.extend_from_slice(&sh.world[sh.range(p)]);
                    self.start.push(self.corners.len() as u32);
                }
            }
        }
    }

    fn frame(&self) -> Frame<'_> {
        Frame {
            ids: &self.ids,
            types: &self.types,
            pos: self.pos.each_ref().map(Vec::as_slice),
            vel: self.vel.each_ref().map(Vec::as_slice),
            omega: self.omega.each_ref().map(Vec::as_slice),
            radius: &self.radius,
            force: self.force.each_ref().map(Vec::as_slice),
            #[cfg(not(feature = "dim3"))]
            angle: &self.angle,
            #[cfg(not(feature = "dim3"))]
            polygons: self.polygons.then_some(Polygons {
                start: &self.start,
                corners: &self.corners,
            }),
        }
    }
}

impl Outputs {
    /// Create `dir` and the writers. Existing files of an earlier run are overwritten.
    pub fn create(dir: &Path, kinds: OutputKinds) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(|e| IoError::os(dir, e))?;
        Ok(Outputs {
            dir: dir.to_path_buf(),
            pvd: kinds.vtk.then(|| PvdSeries::new(dir, "particles")),
            walls: kinds.vtk.then(|| PvdSeries::new(dir, "walls")),
            dump: if kinds.dump {
                Some(DumpWriter::create(dir.join("particles.dump"))?)
            } else {
                None
            },
            energy: if kinds.energy {
                Some(EnergySeries::create(dir.join("energy.csv"))?)
            } else {
                None
            },
            grains: Grains::default(),
        })
    }

    /// Continue the files already in `dir` (a run restarted at `step`): each series keeps
    /// what it holds of the steps before `step` and goes on from there; frames of later steps
    /// (an earlier attempt that went further) are dropped. Files not there yet are created.
    pub fn resume(dir: &Path, kinds: OutputKinds, step: u64) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(|e| IoError::os(dir, e))?;
        if kinds.vtk {
            remove_frames_from(dir, "particles", step)?;
            remove_frames_from(dir, "walls", step)?;
        }
        Ok(Outputs {
            dir: dir.to_path_buf(),
            pvd: if kinds.vtk {
                Some(PvdSeries::resume(dir, "particles", step)?)
            } else {
                None
            },
            walls: if kinds.vtk {
                Some(PvdSeries::resume(dir, "walls", step)?)
            } else {
                None
            },
            dump: if kinds.dump {
                Some(DumpWriter::resume(dir.join("particles.dump"), step)?)
            } else {
                None
            },
            energy: if kinds.energy {
                Some(EnergySeries::resume(dir.join("energy.csv"), step)?)
            } else {
                None
            },
            grains: Grains::default(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The files of the series written (for the summary).
    pub fn files(&self) -> Vec<PathBuf> {
        let mut v = Vec::new();
        for series in [&self.pvd, &self.walls].into_iter().flatten() {
            if !series.is_empty() {
                v.push(series.pvd_path());
            }
        }
        if let Some(d) = &self.dump {
            v.push(d.path().to_path_buf());
        }
        if let Some(e) = &self.energy {
            v.push(e.path().to_path_buf());
        }
        v
    }

    /// Write the current state: a frame and an energy row.
    pub fn write(&mut self, sim: &Simulation) -> Result<()> {
        self.write_frame(sim)?;
        self.write_energy(sim)
    }

    /// Write a frame of the particles (and of the walls) and a dump snapshot.
    pub fn write_frame(&mut self, sim: &Simulation) -> Result<()> {
        self.grains.gather(sim);
        let frame = self.grains.frame();
        if let Some(p) = &mut self.pvd {
            p.add_frame(sim.step, sim.time, &frame)?;
        }
        // A run without walls gets no walls series (no .pvd, no empty frames).
        if let Some(w) = self.walls.as_mut().filter(|_| has_walls(sim)) {
            w.add_file(sim.step, sim.time, |path| write_walls_vtu(path, sim))?;
        }
        if let Some(d) = &mut self.dump {
            d.write_snapshot(sim.step, sim.config.domain_min, sim.config.domain_max, &frame)?;
        }
        Ok(())
    }

    /// Write a row of the energy series.
    pub fn write_energy(&mut self, sim: &Simulation) -> Result<()> {
        if let Some(e) = &mut self.energy {
            let en = sim.energies();
            let potential = gravitational_potential(sim);
            e.record(
                sim.step,
                sim.time,
                en.kinetic,
                en.rotational,
                en.elastic,
                potential,
                en.contacts,
            )?;
        }
        Ok(())
    }
}

/// Delete the frame files `BASENAME_STEP.vtu` of steps from `step` on: frames of an earlier
/// attempt that the resumed series drops (and rewrites where the continued run has them), so
/// that the folder holds exactly the files of one uninterrupted run.
fn remove_frames_from(dir: &Path, basename: &str, step: u64) -> Result<()> {
    let prefix = format!("{basename}_");
    for entry in std::fs::read_dir(dir).map_err(|e| IoError::os(dir, e))? {
        let entry = entry.map_err(|e| IoError::os(dir, e))?;
        let name = entry.file_name();
        let frame_step = name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(|r| r.strip_suffix(".vtu"))
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|n| n.parse::<u64>().ok());
        if frame_step.is_some_and(|s| s >= step) {
            match std::fs::remove_file(entry.path()) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(IoError::os(entry.path(), e)),
            }
        }
    }
    Ok(())
}
