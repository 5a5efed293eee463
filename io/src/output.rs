//! Writing a running simulation: ParaView frames (.vtu + .pvd), an OVITO-readable LAMMPS
//! dump, and the energy time series, every K steps, into one folder.
use std::path::{Path, PathBuf};

use talus_engine::Simulation;

use crate::dump::DumpWriter;
use crate::series::EnergySeries;
use crate::vtk::{Frame, PvdSeries};
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
    dump: Option<DumpWriter>,
    energy: Option<EnergySeries>,
    types: Vec<u32>,
}

impl Outputs {
    /// Create `dir` and the writers. Existing files of an earlier run are overwritten.
    pub fn create(dir: &Path, kinds: OutputKinds) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(|e| IoError::os(dir, e))?;
        Ok(Outputs {
            dir: dir.to_path_buf(),
            pvd: kinds.vtk.then(|| PvdSeries::new(dir, "particles")),
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
            types: Vec::new(),
        })
    }

    /// Continue the files already in `dir` (a run restarted at `step`): each series keeps
    /// what it holds of the steps before `step` and goes on from there; frames of later steps
    /// (an earlier attempt that went further) are dropped. Files not there yet are created.
    pub fn resume(dir: &Path, kinds: OutputKinds, step: u64) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(|e| IoError::os(dir, e))?;
        if kinds.vtk {
            remove_frames_from(dir, "particles", step)?;
        }
        Ok(Outputs {
            dir: dir.to_path_buf(),
            pvd: if kinds.vtk {
                Some(PvdSeries::resume(dir, "particles", step)?)
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
            types: Vec::new(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The files of the series written (for the summary).
    pub fn files(&self) -> Vec<PathBuf> {
        let mut v = Vec::new();
        if let Some(p) = &self.pvd {
            v.push(p.pvd_path());
        }
        if let Some(d) = &self.dump {
            v.push(d.path().to_path_buf());
        }
        if let Some(e) = &self.energy {
            v.push(e.path().to_path_buf());
        }
        v
    }

    /// Write the current state.
    pub fn write(&mut self, sim: &Simulation) -> Result<()> {
        let ps = &sim.particles;
        self.types.clear();
        self.types.extend(ps.ptype.iter().map(|&t| t as u32));
        let frame = Frame {
            ids: &ps.id,
            types: &self.types,
            x: &ps.x,
            y: &ps.y,
            vx: &ps.vx,
            vy: &ps.vy,
            omega: &ps.omega,
            radius: &ps.radius,
            fx: &ps.fx,
            fy: &ps.fy,
            angle: &ps.angle,
        };
        if let Some(p) = &mut self.pvd {
            p.add_frame(sim.step, sim.time, &frame)?;
        }
        if let Some(d) = &mut self.dump {
            d.write_snapshot(sim.step, sim.config.domain_min, sim.config.domain_max, &frame)?;
        }
        if let Some(e) = &mut self.energy {
            let en = sim.energies();
            e.record(sim.step, sim.time, en.kinetic, en.rotational, en.elastic, en.contacts)?;
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
