//! Writing a running simulation: ParaView frames (.vtu + .pvd), an OVITO-readable LAMMPS
//! dump, and the energy time series, every K steps, into one folder; with `[analysis]`
//! the analysis series (`analysis.csv`), the contact network (`contacts.pvd`), and each
//! grain's stress and contacts in the frames of logged steps.
use std::path::{Path, PathBuf};

use talus_engine::{Analysis, Region, Simulation};
use talus_kernels::math::{ANG, DIM};

use crate::analysis_series::AnalysisSeries;
use crate::contact_network::write_contact_network;
use crate::dump::DumpWriter;
use crate::pvd::PvdSeries;
use crate::series::{gravitational_potential, EnergySeries, OutflowSeries};
#[cfg(not(feature = "dim3"))]
use crate::vtk::Polygons;
use crate::vtk::{Frame, GrainValues};
use crate::walls_vtu::{has_walls, write_walls_vtu};
use crate::{IoError, Result};

/// Which files to write.
#[derive(Debug, Clone, Copy)]
pub struct OutputKinds {
    /// ParaView frames of the particles and walls (`particles.pvd`, `walls.pvd`).
    pub vtk: bool,
    /// The LAMMPS dump `particles.dump`, for OVITO.
    pub dump: bool,
    /// The energy series `energy.csv`.
    pub energy: bool,
    /// `[analysis]`: None for a run without it.
    pub analysis: Option<AnalysisKinds>,
    /// `outflow.csv` (a run with `[[outflow]]` regions).
    pub outflow: bool,
}

/// What the analysis writes besides its series.
#[derive(Debug, Clone, Copy)]
pub struct AnalysisKinds {
    /// The packing fraction's region.
    pub region: Option<Region>,
    /// The contact network (`contacts.pvd`).
    pub network: bool,
}

/// The analysis' writers: the series is made at the first analysis (its columns come from
/// it), continued from `resume_step` in a restarted run.
struct AnalysisOut {
    kinds: AnalysisKinds,
    series: Option<AnalysisSeries>,
    network: Option<PvdSeries>,
    resume_step: Option<u64>,
    /// The last analysis made (a frame and the series at the same step share it).
    last: Option<Analysis>,
}

/// The output files of one run, in one folder, and their writers.
pub struct Outputs {
    dir: PathBuf,
    pvd: Option<PvdSeries>,
    walls: Option<PvdSeries>,
    dump: Option<DumpWriter>,
    energy: Option<EnergySeries>,
    outflow: Option<OutflowSeries>,
    analysis: Option<AnalysisOut>,
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
    /// The grains' analysis, when the frame's step was analysed.
    stress: Vec<talus_kernels::analysis::stress::Tensor>,
    contacts: Vec<u32>,
    analysed: bool,
}

impl Grains {
    fn gather(&mut self, sim: &Simulation, analysis: Option<&Analysis>) {
        self.stress.clear();
        self.contacts.clear();
        self.analysed = analysis.is_some();
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
            if let Some(a) = analysis {
                self.stress.push(a.grain_stress[p]);
                self.contacts.push(a.contacts[p]);
            }
            // The store's loads are the contact forces; gravity is added in the kick. The
            // output reports what LAMMPS' fx, fy do: the total force on the grain.
            let m = ps.mass(p);
            for (a, g) in g.iter().enumerate() {
                self.pos[a].push(ps.pos[a][p]);
                self.vel[a].push(ps.vel[a][p]);
                self.force[a].push(ps.force[a][p] + m * g);
            }
            for (omega, w) in self.omega.iter_mut().zip(&ps.omega) {
                omega.push(w[p]);
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
            analysis: self.analysed.then_some(GrainValues {
                stress: &self.stress,
                contacts: &self.contacts,
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
            outflow: if kinds.outflow {
                Some(OutflowSeries::create(dir.join("outflow.csv"))?)
            } else {
                None
            },
            analysis: kinds.analysis.map(|k| AnalysisOut {
                kinds: k,
                series: None,
                network: k.network.then(|| PvdSeries::new(dir, "contacts")),
                resume_step: None,
                last: None,
            }),
            grains: Grains::default(),
        })
    }

    /// Continue the files already in `dir` (a run restarted at `step`): each series keeps
    /// what it holds of the steps before `step` (with `keep_first`, of `step` too: the
    /// restart writes nothing at its first step) and goes on from there; frames of later
    /// steps (an earlier attempt that went further) are dropped. The outflow series keeps
    /// its rows of `step` always: a run takes grains out before it writes a checkpoint of
    /// that step. Files not there yet are created.
    pub fn resume(dir: &Path, kinds: OutputKinds, step: u64, keep_first: bool) -> Result<Self> {
        let first = step;
        let step = step + u64::from(keep_first);
        std::fs::create_dir_all(dir).map_err(|e| IoError::os(dir, e))?;
        if kinds.vtk {
            remove_frames_from(dir, "particles", step)?;
            remove_frames_from(dir, "walls", step)?;
        }
        if kinds.analysis.is_some_and(|a| a.network) {
            remove_frames_from(dir, "contacts", step)?;
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
            outflow: if kinds.outflow {
                Some(OutflowSeries::resume(dir.join("outflow.csv"), first)?)
            } else {
                None
            },
            analysis: match kinds.analysis {
                None => None,
                Some(k) => Some(AnalysisOut {
                    kinds: k,
                    series: None,
                    network: if k.network {
                        Some(PvdSeries::resume(dir, "contacts", step)?)
                    } else {
                        None
                    },
                    resume_step: Some(step),
                    last: None,
                }),
            },
            grains: Grains::default(),
        })
    }

    /// The output folder.
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
        if let Some(o) = &self.outflow {
            v.push(o.path().to_path_buf());
        }
        if let Some(a) = &self.analysis {
            v.extend(a.series.as_ref().map(|s| s.path().to_path_buf()));
            v.extend(a.network.as_ref().filter(|n| !n.is_empty()).map(|n| n.pvd_path()));
        }
        v
    }

    /// The analysis of the current state, if the run analyses and the step that led to it
    /// was logged: made once per step, taken out of `self` (to be put back with
    /// [`Outputs::keep_analysis`]).
    fn take_analysis(&mut self, sim: &mut Simulation) -> Result<Option<Analysis>> {
        let Some(out) = &mut self.analysis else {
            return Ok(None);
        };
        if sim.contact_log().is_none() {
            return Ok(None);
        }
        match out.last.take() {
            // The same step and the same particles (none taken out since).
            Some(a) if a.step == sim.step && a.contacts.len() == sim.len() => Ok(Some(a)),
            // A new one in the last one's buffers.
            last => sim
                .analyse_reusing(out.kinds.region.as_ref(), last.unwrap_or_default())
                .map(Some)
                .map_err(|e| IoError::Invalid {
                    path: self.dir.join("analysis.csv"),
                    msg: e.to_string(),
                }),
        }
    }

    fn keep_analysis(&mut self, a: Option<Analysis>) {
        if let Some(out) = &mut self.analysis {
            out.last = a;
        }
    }

    /// The analysis of the current state where the run analyses and the step that led to
    /// it was logged: made once per step, for the series, the frames and the caller alike.
    pub fn analysis(&mut self, sim: &mut Simulation) -> Result<Option<&Analysis>> {
        let a = self.take_analysis(sim)?;
        self.keep_analysis(a);
        Ok(self.analysis.as_ref().and_then(|o| o.last.as_ref()))
    }

    /// Write the analysis of the current state: a row of the series and the contact
    /// network. The step that led to it must have been logged.
    pub fn write_analysis(&mut self, sim: &mut Simulation) -> Result<()> {
        let dir = self.dir.clone();
        let Some(a) = self.take_analysis(sim)? else {
            return Err(IoError::Invalid {
                path: dir.join("analysis.csv"),
                msg: format!("step {}: no contact forces were logged for the analysis", sim.step),
            });
        };
        let out = self.analysis.as_mut().expect("take_analysis found the run's analysis");
        let series = match &mut out.series {
            Some(s) => s,
            None => {
                let path = dir.join("analysis.csv");
                let s = match out.resume_step {
                    Some(step) => AnalysisSeries::resume(path, step, &a)?,
                    None => AnalysisSeries::create(path, &a)?,
                };
                out.series.insert(s)
            }
        };
        series.record(&a)?;
        if let (Some(net), Some(log)) = (&mut out.network, sim.contact_log()) {
            net.add_file(sim.step, sim.time, |path| write_contact_network(path, sim, log))?;
        }
        out.last = Some(a);
        Ok(())
    }

    /// Write the current state: a frame and an energy row.
    pub fn write(&mut self, sim: &mut Simulation) -> Result<()> {
        self.write_frame(sim)?;
        self.write_energy(sim)
    }

    /// Write a frame of the particles (and of the walls) and a dump snapshot.
    pub fn write_frame(&mut self, sim: &mut Simulation) -> Result<()> {
        let analysis = self.take_analysis(sim)?;
        self.grains.gather(sim, analysis.as_ref());
        self.keep_analysis(analysis);
        let frame = self.grains.frame();
        if let Some(p) = &mut self.pvd {
            p.add_frame(sim.step, sim.time, &frame)?;
        }
        // A run without walls gets no walls series (no .pvd, no empty frames).
        if let Some(w) = self.walls.as_mut().filter(|_| has_walls(sim)) {
            w.add_file(sim.step, sim.time, |path| write_walls_vtu(path, sim))?;
        }
        if let Some(d) = &mut self.dump {
            d.periodic = sim.periodic_axes();
            d.write_snapshot(sim.step, sim.config.domain_min, sim.config.domain_max, &frame)?;
        }
        Ok(())
    }

    /// Write a row of the outflow series: outflow `k` took out `removed` grains of `mass`
    /// over `interval` seconds.
    pub fn write_outflow(&mut self, sim: &Simulation, k: usize, removed: u64, mass: f64, interval: f64) -> Result<()> {
        match &mut self.outflow {
            Some(o) => o.record(sim.step, sim.time, k, removed, mass, interval),
            None => Ok(()),
        }
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

#[cfg(test)]
pub(crate) mod tests {
    use std::f64::consts::PI;

    use talus_engine::{Config, ContactParams, Integrator, Material, NeighborMethod, ParticleInit, Wall};

    use super::*;
    use crate::dump::DUMP_COLUMNS;
    use crate::series::ENERGY_HEADER;
    use crate::vtk::tests::parse_vtu;

    const G: f64 = 9.81;

    /// A few grains falling in the unit box onto a floor (in 3D also inside a drum along
    /// x: the walls of both kinds), moving and spinning.
    pub(crate) fn small_sim() -> Simulation {
        let mut gravity = [0.0; DIM];
        gravity[DIM - 1] = -G;
        let config = Config {
            dt: 1e-5,
            gravity,
            domain_min: [0.0; DIM],
            domain_max: [1.0; DIM],
            integrator: Integrator::Verlet,
            neighbor: NeighborMethod::Sweep,
            margin: 1e-3,
            every_step: false,
            sort_every: 0,
            #[cfg(not(feature = "dim3"))]
            rejection: Default::default(),
            normal_model: talus_kernels::contact::law::NormalModel::Hooke,
        };
        let material = Material {
            name: "glass".into(),
            density: 2500.0,
            contact: ContactParams {
                kn: 1e5,
                kt: 2e4,
                gamma_n: 10.0,
                gamma_t: 5.0,
                mu: 0.5,
            },
        };
        let mut up = [0.0; DIM];
        up[DIM - 1] = 1.0;
        let mut floor = [0.5; DIM];
        floor[DIM - 1] = 0.1;
        #[cfg(not(feature = "dim3"))]
        let walls = vec![Wall::fixed(floor, up, 0)];
        #[cfg(feature = "dim3")]
        let walls = vec![
            Wall::plane(floor, up, 0),
            Wall::cylinder([0.0, 0.5, 0.5], [1.0, 0.0, 0.0], 0.45, 2.0, 0),
        ];
        let r = 0.02;
        let mass = 2500.0
            * if DIM == 2 {
                PI * r * r
            } else {
                4.0 / 3.0 * PI * r * r * r
            };
        let grains: Vec<ParticleInit> = (0..5)
            .map(|k| {
                let f = k as f64;
                ParticleInit {
                    id: 100 + k,
                    pos: std::array::from_fn(|a| 0.3 + 0.1 * f + 0.01 * a as f64),
                    angle: 0.0,
                    vel: std::array::from_fn(|a| 0.1 * (a as f64 + 1.0) - 0.05 * f),
                    omega: std::array::from_fn(|a| 3.0 - a as f64 + f),
                    radius: r,
                    mass,
                    material: 0,
                    ptype: 1 + (k % 2) as u16,
                    flags: 0,
                }
            })
            .collect();
        Simulation::new(config, vec![material], walls, &grains).unwrap()
    }

    fn run(sim: &mut Simulation, steps: u64) {
        for _ in 0..steps {
            sim.step().unwrap();
        }
    }

    /// The steps of the frames a .pvd lists.
    fn pvd_steps(path: &Path) -> Vec<u64> {
        let text = std::fs::read_to_string(path).unwrap();
        text.lines()
            .filter_map(|l| l.split_once("_").map(|(_, r)| r))
            .filter_map(|r| r.split_once(".vtu").map(|(n, _)| n.parse().unwrap()))
            .collect()
    }

    /// The frames, the dump and the energy rows hold what the store holds; a resumed
    /// run drops what came after its step and goes on.
    #[test]
    fn frames_dump_energy_and_resume() {
        let mut sim = small_sim();
        let dir = tempfile::tempdir().unwrap();
        let kinds = OutputKinds {
            vtk: true,
            dump: true,
            energy: true,
            analysis: None,
            outflow: false,
        };
        let mut out = Outputs::create(dir.path(), kinds).unwrap();
        out.write(&mut sim).unwrap();
        for _ in 0..3 {
            run(&mut sim, 10);
            out.write(&mut sim).unwrap();
        }
        let files = out.files();
        drop(out);
        for name in ["particles.pvd", "walls.pvd", "particles.dump", "energy.csv"] {
            assert!(files.contains(&dir.path().join(name)), "{name} in {files:?}");
        }
        assert_eq!(pvd_steps(&dir.path().join("particles.pvd")), [0, 10, 20, 30]);
        assert_eq!(pvd_steps(&dir.path().join("walls.pvd")), [0, 10, 20, 30]);

        // The last frame against the store.
        let ps = &sim.particles;
        let n = ps.len();
        let per_axis = |c: &[Vec<f64>], comps: usize, add: &dyn Fn(usize, usize) -> f64| -> Vec<f64> {
            (0..n)
                .flat_map(|p| (0..comps).map(move |a| if a < c.len() { c[a][p] + add(a, p) } else { 0.0 }))
                .collect()
        };
        let none = |_: usize, _: usize| 0.0;
        let v = parse_vtu(&std::fs::read(dir.path().join("particles_00000030.vtu")).unwrap());
        assert!(v
            .header
            .contains(&format!(r#"<Piece NumberOfPoints="{n}" NumberOfCells="{n}">"#)));
        let ids: Vec<i64> = ps.id.iter().map(|&i| i as i64).collect();
        assert_eq!(v.i64s("id"), ids);
        assert_eq!(v.f64s("Points", 3), per_axis(&ps.pos, 3, &none));
        assert_eq!(v.f64s("velocity", 3), per_axis(&ps.vel, 3, &none));
        assert_eq!(v.f64s("omega", ANG), per_axis(&ps.omega, ANG, &none));
        let g = sim.config.gravity;
        let force = per_axis(&ps.force, 3, &|a, p| ps.mass(p) * g[a]);
        assert_eq!(v.f64s("force", 3), force);
        assert_eq!(v.f64s("radius", 1), ps.radius);
        // The grains have moved, in every axis: the frame is not the first one again.
        let first = parse_vtu(&std::fs::read(dir.path().join("particles_00000000.vtu")).unwrap());
        let (p0, p1) = (first.f64s("Points", 3), v.f64s("Points", 3));
        assert!((0..DIM).all(|a| p0[a] != p1[a]));

        // The dump's last snapshot: the same positions under LAMMPS' column names.
        let dump = std::fs::read_to_string(dir.path().join("particles.dump")).unwrap();
        assert_eq!(dump.matches("ITEM: TIMESTEP").count(), 4);
        let last = &dump[dump.rfind("ITEM: TIMESTEP").unwrap()..];
        let lines: Vec<&str> = last.lines().collect();
        assert_eq!(lines[1], "30");
        let header = 6 + DIM + usize::from(DIM == 2);
        assert_eq!(lines[header - 1], format!("ITEM: ATOMS {DUMP_COLUMNS}"));
        assert_eq!(lines.len(), header + n);
        let columns: Vec<&str> = DUMP_COLUMNS.split(' ').collect();
        for (p, line) in lines[header..].iter().enumerate() {
            let t: Vec<&str> = line.split(' ').collect();
            let col = |name: &str| {
                t[columns.iter().position(|c| *c == name).unwrap()]
                    .parse::<f64>()
                    .unwrap()
            };
            assert_eq!(col("id"), ps.id[p] as f64);
            for (a, x) in ["x", "y", "z"].iter().take(DIM).enumerate() {
                assert_eq!(col(x), ps.pos[a][p]);
            }
            assert_eq!(col("radius"), ps.radius[p]);
            assert_eq!(col("omegaz"), ps.omega[ANG - 1][p]);
        }

        // The energy rows: the potential is m g h over the grains.
        let energy = std::fs::read_to_string(dir.path().join("energy.csv")).unwrap();
        let rows: Vec<&str> = energy.lines().collect();
        assert_eq!(rows[0], ENERGY_HEADER);
        assert_eq!(rows.len(), 5);
        let last: Vec<f64> = rows[4].split(',').map(|x| x.parse().unwrap()).collect();
        let mgh: f64 = (0..n).map(|p| ps.mass(p) * G * ps.pos[DIM - 1][p]).sum();
        assert!((last[5] - mgh).abs() <= 1e-12 * mgh, "{} {mgh}", last[5]);
        assert!(last[2] > 0.0 && last[3] > 0.0, "kinetic and rotational energy");

        // Resumed at step 20: the frames, snapshots and rows of 20 and 30 are gone.
        let mut out = Outputs::resume(dir.path(), kinds, 20, false).unwrap();
        assert!(!dir.path().join("particles_00000020.vtu").exists());
        assert!(!dir.path().join("walls_00000030.vtu").exists());
        let dump = std::fs::read_to_string(dir.path().join("particles.dump")).unwrap();
        assert_eq!(dump.matches("ITEM: TIMESTEP").count(), 2);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("energy.csv"))
                .unwrap()
                .lines()
                .count(),
            3
        );
        // And goes on: the next frame joins the series.
        run(&mut sim, 10);
        out.write(&mut sim).unwrap();
        drop(out);
        assert_eq!(pvd_steps(&dir.path().join("particles.pvd")), [0, 10, 40]);
        assert_eq!(pvd_steps(&dir.path().join("walls.pvd")), [0, 10, 40]);
        let dump = std::fs::read_to_string(dir.path().join("particles.dump")).unwrap();
        let steps: Vec<&str> = dump
            .lines()
            .zip(dump.lines().skip(1))
            .filter(|(a, _)| *a == "ITEM: TIMESTEP")
            .map(|(_, s)| s)
            .collect();
        assert_eq!(steps, ["0", "10", "40"]);
        let energy = std::fs::read_to_string(dir.path().join("energy.csv")).unwrap();
        let steps: Vec<&str> = energy.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
        assert_eq!(steps, ["0", "10", "40"]);
    }
}
