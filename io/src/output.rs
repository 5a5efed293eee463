//! Writing a running simulation: ParaView frames (.vtu + .pvd), an OVITO-readable LAMMPS
//! dump, and the energy time series, every K steps, into one folder.
use std::path::{Path, PathBuf};

use talus_engine::Simulation;

use crate::dump::DumpWriter;
use crate::series::{gravitational_potential, EnergySeries};
use crate::vtk::{Frame, Polygons, PvdSeries};
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
    cols: [Vec<f64>; 10],
    start: Vec<u32>,
    corners: Vec<[f64; 2]>,
}

impl Grains {
    fn gather(&mut self, sim: &Simulation) {
        let ps = &sim.particles;
        let g = sim.config.gravity;
        self.ids.clear();
        self.types.clear();
        self.cols.iter_mut().for_each(Vec::clear);
        self.start.clear();
        self.corners.clear();
        self.start.push(0);
        for p in (0..ps.len()).filter(|&p| !ps.is_wall_body(p)) {
            self.ids.push(ps.id[p]);
            self.types.push(ps.ptype[p] as u32);
            // The store's loads are the contact forces; gravity is added in the kick. The
            // output reports what LAMMPS' fx, fy do: the total force on the grain.
            let m = ps.mass(p);
            let v = [
                ps.pos[0][p],
                ps.pos[1][p],
                ps.vel[0][p],
                ps.vel[1][p],
                ps.omega[0][p],
                ps.radius[p],
                ps.force[0][p] + m * g[0],
                ps.force[1][p] + m * g[1],
                ps.angle[p],
                0.0,
            ];
            self.cols.iter_mut().zip(v).for_each(|(c, v)| c.push(v));
            if let Some(sh) = &sim.shapes {
                self.corners.extend_from_slice(&sh.world[sh.range(p)]);
                self.start.push(self.corners.len() as u32);
            }
        }
    }

    fn frame(&self, polygons: bool) -> Frame<'_> {
        let c = &self.cols;
        Frame {
            ids: &self.ids,
            types: &self.types,
            x: &c[0],
            y: &c[1],
            vx: &c[2],
            vy: &c[3],
            omega: &c[4],
            radius: &c[5],
            fx: &c[6],
            fy: &c[7],
            angle: &c[8],
            polygons: polygons.then_some(Polygons {
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
        let frame = self.grains.frame(sim.shapes.is_some());
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
