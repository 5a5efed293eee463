//! `talus bench`: particle-updates per second on the dense polydisperse bed the LAMMPS
//! peer settled (data/s2d_base.data, shipped in the repo), tiled to N = 10^4 ... 10^6
//! exactly as the peer's tile.py does, with the peer's physics, so that the figures compare with LAMMPS on identical
//! input; or, given a 3D bed (data/s3d_base.data: any atom off z = 0), the peer's S3D
//! spheres tiled to 5,832 ... 583,200 (1 x 1, 5 x 2 and 10 x 10 copies, as the peer's
//! beds), on the 3D build of the engine. Each configuration runs warm-up steps, then
//! `repeats` timed segments; the median segment is reported.
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, ValueEnum};
use talus_engine::pool::Phase;
use talus_engine::{Config, ContactParams, Integrator, Material, NeighborMethod, Simulation, Wall};
use talus_io::lammps_data::{read_lammps_data, LammpsData};
use talus_io3d::lammps_data::{read_lammps_data as read_lammps_data3d, LammpsData as LammpsData3d};

#[derive(Args)]
pub struct BenchArgs {
    /// The settled base bed (LAMMPS data file: data/s2d_base.data, 10,000 discs, or
    /// data/s3d_base.data, 5,832 spheres).
    #[arg(long, default_value = "data/s2d_base.data")]
    pub base: PathBuf,
    /// Bed sizes (multiples of the base bed's size) [default: 10000,100000,1000000 for
    /// discs, 5832,58320,583200 for spheres].
    #[arg(long, value_delimiter = ',', value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub sizes: Vec<usize>,
    /// Integrators to run: verlet, gear [default: verlet,gear for discs,
    /// verlet for spheres].
    #[arg(long, value_delimiter = ',')]
    pub integrators: Vec<String>,
    /// Neighbour update modes: skin (sweep only when a particle left its enlarged box),
    /// every-step (sweep every step).
    #[arg(long, value_delimiter = ',', default_value = "skin,every-step")]
    pub modes: Vec<String>,
    /// Particle-updates per timed segment (steps = this / N, at least 20).
    #[arg(long, default_value_t = 2.0e7, value_parser = crate::arg_ranges::positive_number())]
    pub updates: f64,
    /// Timed segments per configuration (the median is reported).
    #[arg(long, default_value_t = 3, value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub repeats: usize,
    /// Untimed warm-up steps.
    #[arg(long, default_value_t = 50)]
    pub warmup: u64,
    /// Verlet skin in m (default: 0.1 x the bed's mean radius, talus' own default, so
    /// 0.1 mm on the S2D discs and 0.05 mm on the S3D spheres; the peers' decks use
    /// 0.3 mm and 0.1 mm).
    #[arg(long)]
    pub margin: Option<f64>,
    /// Also write the rows as CSV to this file.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Run every configuration in this process. By default each runs in a child process of
    /// its own, so that its peak memory (VmHWM) is not polluted by the ones before.
    #[arg(long)]
    pub in_process: bool,
    /// Also time what an analysis costs (`[analysis]`): a step with its contact forces
    /// logged against a plain one and the analysis of its log, then writing the contact
    /// network; the medians of 5 calls, after the timed segments.
    #[arg(long)]
    pub analysis: bool,
    /// Worker threads of the pool, unpinned, deterministic force summation (`talus run
    /// --threads`; pinning and the other strategies: `talus scale`).
    #[arg(long, default_value_t = 1, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub threads: usize,
    /// The normal contact law: hooke (the peers' decks, in.s2d_run and in.s3d_run) or hertz
    /// (LAMMPS gran/hertz/history, fix wall/gran hertz/history: the decks of
    /// docs/bench/in.s2d_hertz_run and in.s3d_hertz_run), whose k_n, k_t and both
    /// dampings are the peers' divided by a typical sqrt(delta R_eff) of the bed (3.33e-5 m
    /// for S2D, 4.0e-6 m for S3D), so that its contacts are about as stiff.
    #[arg(long, value_enum, default_value_t = BenchModel::Hooke)]
    pub model: BenchModel,
    /// Internal: print the one row of a single configuration in machine-readable form.
    #[arg(long, hide = true)]
    pub row_only: bool,
}

/// `talus bench --model`: the normal contact law of the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchModel {
    Hooke,
    Hertz,
}

/// A typical Hertz factor sqrt(delta R_eff) of the settled S2D bed, in m: the touching pairs
/// of data/s2d_base.data have a median of 3.04e-5 and a mean of 3.35e-5 (1.67 contacts a
/// disc, overlaps 1.9e-6 m in the median). With the Hooke coefficients divided by it, a
/// Hertz contact at that overlap is as stiff and as damped as the Hooke one, so the bed
/// stays near rest and the time step keeps its margin.
pub const HERTZ_FACTOR_2D: f64 = 1.0 / 3.0e4;
/// The same for data/s3d_base.data: median 3.99e-6 m, mean 4.40e-6 (1.94 contacts a
/// sphere, overlaps 6.4e-8 m in the median).
pub const HERTZ_FACTOR_3D: f64 = 4.0e-6;

impl BenchModel {
    fn hertz(self) -> bool {
        self == BenchModel::Hertz
    }

    /// The bed's typical Hertz factor ([`HERTZ_FACTOR_3D`] for spheres, else
    /// [`HERTZ_FACTOR_2D`]).
    fn factor(spheres: bool) -> f64 {
        if spheres {
            HERTZ_FACTOR_3D
        } else {
            HERTZ_FACTOR_2D
        }
    }

    /// The Hooke coefficients scaled for this law (LAMMPS's Hertz coefficients are per unit
    /// of sqrt(delta R_eff): k_n in N/m^2).
    fn scale(self, spheres: bool) -> f64 {
        if self.hertz() {
            1.0 / BenchModel::factor(spheres)
        } else {
            1.0
        }
    }
}

/// The peer's S2D physics (in.s2d_run): kn = 1e6 N/m, kt = 2/7 kn, gamma_n for e = 0.5 of
/// two R0 = 1 mm discs, gamma_t = gamma_n / 2, mu = 0.5, dt = t_c/50 of the smallest disc;
/// under Hertz every coefficient but mu divided by [`HERTZ_FACTOR_2D`].
fn peer_material(model: BenchModel) -> Material {
    let kn = 1.0e6;
    let m0 = 2500.0 * std::f64::consts::PI * 1.0e-6;
    let gn = ContactParams::gamma_for_restitution(kn, 0.5 * m0, 0.5);
    let s = model.scale(false);
    Material {
        name: "s2d".into(),
        density: 2500.0,
        contact: ContactParams {
            kn: s * kn,
            kt: s * (2.0 / 7.0 * kn),
            gamma_n: s * gn,
            gamma_t: s * (0.5 * gn),
            mu: 0.5,
        },
    }
}

pub fn peer_dt() -> f64 {
    let mmin = 2500.0 * std::f64::consts::PI * 0.5e-3 * 0.5e-3;
    std::f64::consts::PI * (mmin / 1.0e6).sqrt() / 50.0
}

/// A simulation of the tiled bed with the peer's walls (x = xlo, x = xhi, y = 0).
pub fn peer_sim(
    bed: &LammpsData,
    integrator: Integrator,
    margin: f64,
    every_step: bool,
    model: BenchModel,
) -> Result<Simulation, String> {
    let (xlo, xhi) = (bed.box_lo[0], bed.box_hi[0]);
    let wall = |p: [f64; 2], n: [f64; 2]| Wall::fixed(p, n, 0);
    let walls = vec![
        wall([xlo, 0.0], [1.0, 0.0]),
        wall([xhi, 0.0], [-1.0, 0.0]),
        wall([xlo, 0.0], [0.0, 1.0]),
    ];
    let config = Config {
        dt: peer_dt(),
        gravity: [0.0, -9.81],
        domain_min: [xlo - 0.01, -0.01],
        domain_max: [xhi + 0.01, 1.0],
        integrator,
        neighbor: NeighborMethod::Sweep,
        margin,
        every_step,
        sort_every: talus_io::build::SORT_EVERY,
        normal_model: talus_kernels::contact::law::NormalModel::hertz_if(model.hertz()),
        rejection: Default::default(),
    };
    Simulation::new(config, vec![peer_material(model)], walls, &bed.particle_inits(0)).map_err(|e| e.to_string())
}

/// The peer's S3D physics (in.s3d_run): spheres of R = 0.5 mm, 2500 kg/m^3, kn = 1e3 N/m,
/// kt = 2/7 kn, gamma_n for e = 0.5 of an equal pair, gamma_t = gamma_n / 2, mu = 0.5,
/// dt = t_c / 50 with t_c = pi sqrt(m / kn); under Hertz every coefficient but mu divided
/// by [`HERTZ_FACTOR_3D`].
fn peer_material3d(model: BenchModel) -> talus_engine3d::Material {
    let kn = 1.0e3;
    let gn = talus_engine3d::ContactParams::gamma_for_restitution(kn, 0.5 * peer_mass3d(), 0.5);
    let s = model.scale(true);
    talus_engine3d::Material {
        name: "s3d".into(),
        density: 2500.0,
        contact: talus_engine3d::ContactParams {
            kn: s * kn,
            kt: s * (2.0 / 7.0 * kn),
            gamma_n: s * gn,
            gamma_t: s * (0.5 * gn),
            mu: 0.5,
        },
    }
}

fn peer_mass3d() -> f64 {
    2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 0.5e-3f64.powi(3)
}

pub fn peer_dt3d() -> f64 {
    std::f64::consts::PI * (peer_mass3d() / 1.0e3).sqrt() / 50.0
}

/// A simulation of the tiled 3D bed with the peer's walls (planes at the box's x and y
/// faces, the floor z = 0).
pub fn peer_sim3d(
    bed: &LammpsData3d,
    integrator: Integrator,
    margin: f64,
    every_step: bool,
    model: BenchModel,
) -> Result<talus_engine3d::Simulation, String> {
    use talus_engine3d::Wall as Wall3d;
    let (lo, hi) = (bed.box_lo, bed.box_hi);
    let walls = vec![
        Wall3d::plane([lo[0], 0.0, 0.0], [1.0, 0.0, 0.0], 0),
        Wall3d::plane([hi[0], 0.0, 0.0], [-1.0, 0.0, 0.0], 0),
        Wall3d::plane([0.0, lo[1], 0.0], [0.0, 1.0, 0.0], 0),
        Wall3d::plane([0.0, hi[1], 0.0], [0.0, -1.0, 0.0], 0),
        Wall3d::plane([0.0, 0.0, 0.0], [0.0, 0.0, 1.0], 0),
    ];
    let config = talus_engine3d::Config {
        dt: peer_dt3d(),
        gravity: [0.0, 0.0, -9.81],
        domain_min: [lo[0] - 0.01, lo[1] - 0.01, -0.01],
        domain_max: [hi[0] + 0.01, hi[1] + 0.01, 0.2],
        integrator: match integrator {
            Integrator::Verlet => talus_engine3d::Integrator::Verlet,
            Integrator::Gear => talus_engine3d::Integrator::Gear,
        },
        neighbor: talus_engine3d::NeighborMethod::Sweep,
        margin,
        every_step,
        sort_every: talus_io::build::SORT_EVERY,
        normal_model: talus_kernels3d::contact::law::NormalModel::hertz_if(model.hertz()),
    };
    talus_engine3d::Simulation::new(config, vec![peer_material3d(model)], walls, &bed.particle_inits(0))
        .map_err(|e| e.to_string())
}

/// The peer's tiling of a bed of `k` copies: the S3D beds are 1 x 1, 5 x 2 and 10 x 10;
/// other counts a row along x.
pub fn tiling3d(k: usize) -> (usize, usize) {
    match k {
        10 => (5, 2),
        100 => (10, 10),
        k => (k, 1),
    }
}

/// What the measurement reads of a simulation, in either dimension.
trait Timed {
    fn set_threads(&mut self, threads: usize) -> Result<(), String>;
    fn run_steps(&mut self, steps: u64) -> Result<(), String>;
    fn updates(&self) -> u64;
    fn swaps(&self) -> u64;
    fn reset(&mut self);
    /// Wall seconds of the neighbour search, the forces and reduction, the particle
    /// passes, and the whole of the stepping, since the last reset.
    fn phases(&self) -> [f64; 4];
    fn coordination(&self) -> f64;
    fn bytes(&self) -> usize;
    /// Per call: seconds of one plain step, one logged step and its analysis; then, once
    /// per call after them all, of the last log's contact network written (to `path`). A
    /// run analysing at an interval hands the last analysis back for its buffers, and so
    /// do the calls here.
    fn analysis_calls(&mut self, path: &std::path::Path, calls: usize) -> Result<Vec<[f64; 4]>, String>;
}

macro_rules! timed_simulation {
    ($sim:ty, $phase:ident, $io:ident, $engine:ident) => {
        impl Timed for $sim {
            fn set_threads(&mut self, threads: usize) -> Result<(), String> {
                let strategy = $engine::ForceStrategy::Deterministic;
                self.set_parallel(&vec![None; threads], strategy)
                    .map_err(|e| e.to_string())
            }
            fn run_steps(&mut self, steps: u64) -> Result<(), String> {
                self.run(steps).map_err(|e| e.to_string())
            }
            fn updates(&self) -> u64 {
                self.neighbor_updates
            }
            fn swaps(&self) -> u64 {
                self.sweep_stats().map_or(0, |s| s.swaps)
            }
            fn reset(&mut self) {
                self.reset_times()
            }
            fn phases(&self) -> [f64; 4] {
                let p = self.profile();
                [
                    p.neighbor_wall(),
                    p.wall_of($phase::Forces) + p.wall_of($phase::Reduce),
                    p.wall_of($phase::Predict) + p.wall_of($phase::Vertices) + p.wall_of($phase::Correct),
                    p.stepping,
                ]
            }
            fn coordination(&self) -> f64 {
                self.contacts_per_particle()
            }
            fn bytes(&self) -> usize {
                self.memory_bytes()
            }
            fn analysis_calls(&mut self, path: &std::path::Path, calls: usize) -> Result<Vec<[f64; 4]>, String> {
                let err = |e: &dyn std::fmt::Display| e.to_string();
                let mut earlier = None;
                let mut times = (0..calls)
                    .map(|_| {
                        let t = Instant::now();
                        self.run(1).map_err(|e| err(&e))?;
                        let plain = t.elapsed().as_secs_f64();
                        self.log_next_run();
                        let t = Instant::now();
                        self.run(1).map_err(|e| err(&e))?;
                        let logged = t.elapsed().as_secs_f64();
                        let t = Instant::now();
                        let a = self
                            .analyse_reusing(None, earlier.take().unwrap_or_default())
                            .map_err(|e| err(&e))?;
                        let analyse = t.elapsed().as_secs_f64();
                        earlier = Some(a);
                        Ok([plain, logged, analyse, 0.0])
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                // The network files after all the steps: a file of some 200 MB written
                // between two calls left its write-back to the next call's steps.
                let log = self.contact_log().ok_or("the logged step left no log")?;
                for t in &mut times {
                    let start = Instant::now();
                    $io::contact_network::write_contact_network(path, self, log).map_err(|e| err(&e))?;
                    t[3] = start.elapsed().as_secs_f64();
                }
                Ok(times)
            }
        }
    };
}

timed_simulation!(Simulation, Phase, talus_io, talus_engine);
use talus_engine3d::pool::Phase as Phase3d;
timed_simulation!(talus_engine3d::Simulation, Phase3d, talus_io3d, talus_engine3d);

struct Row {
    n: usize,
    integrator: String,
    mode: String,
    steps: u64,
    wall: f64,
    ups: f64,
    z: f64,
    neighbor: f64,
    forces: f64,
    integrate: f64,
    updates: u64,
    sweep_ms: f64,
    swaps_per_update: f64,
    bytes: f64,
    hwm: f64,
    /// `--analysis`: seconds of a plain step, a logged step, the analysis, the network.
    analysis: [f64; 4],
    /// `--analysis`: the logged step's extra and the analysis, in plain steps.
    analysis_steps: f64,
}

/// The bed of either dimension.
enum Base {
    Discs(LammpsData),
    Spheres(LammpsData3d),
}

impl Base {
    /// The bed of a LAMMPS data file: spheres where some atom is off the plane z = 0.
    fn read(path: &std::path::Path) -> Result<Base, String> {
        let d = read_lammps_data3d(path).map_err(|e| e.to_string())?;
        if d.z.iter().any(|&z| z != 0.0) {
            Ok(Base::Spheres(d))
        } else {
            read_lammps_data(path).map(Base::Discs).map_err(|e| e.to_string())
        }
    }

    fn len(&self) -> usize {
        match self {
            Base::Discs(d) => d.len(),
            Base::Spheres(d) => d.len(),
        }
    }

    /// The skin: `--margin`, else 0.1 x the mean radius (talus' default, as a scenario's
    /// `[neighbor] margin`).
    fn margin(&self, a: &BenchArgs) -> f64 {
        let r = match self {
            Base::Discs(d) => &d.radius,
            Base::Spheres(d) => &d.radius,
        };
        a.margin
            .unwrap_or_else(|| 0.1 * r.iter().sum::<f64>() / r.len().max(1) as f64)
    }
}

/// Run one configuration in this process and measure it.
fn measure(
    base: &Base,
    n: usize,
    integrator: Integrator,
    iname: &str,
    every_step: bool,
    mname: &str,
    a: &BenchArgs,
) -> Result<Row, String> {
    let k = n / base.len();
    match base {
        Base::Discs(d) => {
            let bed = d.tile_x(k);
            let sim = peer_sim(&bed, integrator, base.margin(a), every_step, a.model)?;
            drop(bed);
            measure_sim(sim, n, iname, mname, a)
        }
        Base::Spheres(d) => {
            let (rx, ry) = tiling3d(k);
            let bed = d.tile(rx, ry);
            let sim = peer_sim3d(&bed, integrator, base.margin(a), every_step, a.model)?;
            drop(bed);
            measure_sim(sim, n, iname, mname, a)
        }
    }
}

/// Warm up and time one simulation.
fn measure_sim<S: Timed>(mut sim: S, n: usize, iname: &str, mname: &str, a: &BenchArgs) -> Result<Row, String> {
    if a.threads > 1 {
        sim.set_threads(a.threads)?;
    }
    reset_peak_rss();
    sim.run_steps(a.warmup)?;
    let steps = ((a.updates / n as f64) as u64).max(20);
    let mut segs = Vec::new();
    for _ in 0..a.repeats.max(1) {
        let (u0, sw0) = (sim.updates(), sim.swaps());
        sim.reset();
        let start = Instant::now();
        sim.run_steps(steps)?;
        let wall = start.elapsed().as_secs_f64();
        let [neighbor, forces, integrate, stepping] = sim.phases();
        segs.push((
            wall,
            neighbor,
            forces,
            integrate,
            stepping,
            sim.updates() - u0,
            sim.swaps() - sw0,
        ));
    }
    segs.sort_by(|x, y| x.0.total_cmp(&y.0));
    let m = segs[segs.len() / 2];
    let mut row = Row {
        n,
        integrator: iname.to_string(),
        mode: mname.to_string(),
        steps,
        wall: m.0,
        ups: n as f64 * steps as f64 / m.0,
        z: sim.coordination(),
        neighbor: 100.0 * m.1 / m.4,
        forces: 100.0 * m.2 / m.4,
        integrate: 100.0 * m.3 / m.4,
        updates: m.5,
        sweep_ms: if m.5 > 0 { 1e3 * m.1 / m.5 as f64 } else { 0.0 },
        swaps_per_update: if m.5 > 0 { m.6 as f64 / m.5 as f64 } else { 0.0 },
        bytes: sim.bytes() as f64 / n as f64,
        hwm: peak_rss().unwrap_or(0.0) / n as f64,
        analysis: [0.0; 4],
        analysis_steps: 0.0,
    };
    if a.analysis {
        let path = std::env::temp_dir().join(format!("talus-bench-contacts-{}.vtu", std::process::id()));
        let calls = sim.analysis_calls(&path, ANALYSIS_CALLS);
        let _ = std::fs::remove_file(&path);
        let calls = calls?;
        let median = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        row.analysis = std::array::from_fn(|k| median(calls.iter().map(|c| c[k]).collect()));
        // What an analysis costs in steps, per call (the plain step beside it, in the same
        // second: this shared machine's speed drifts between calls), then the median.
        row.analysis_steps = median(
            calls
                .iter()
                .map(|[plain, logged, analyse, _]| (logged - plain + analyse) / plain)
                .collect(),
        );
    }
    Ok(row)
}

/// `--analysis`: how many analyses are timed (each after a plain and a logged step); the
/// figures are their medians.
const ANALYSIS_CALLS: usize = 5;

/// Run one configuration in a child process (`talus bench --row-only ...`) and parse its row.
fn measure_in_child(n: usize, integ: &str, mode: &str, a: &BenchArgs) -> Result<Row, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the talus executable: {e}"))?;
    let out = std::process::Command::new(exe)
        .args(["--vector-build", talus_kernels::vector_build::Build::detect().name()])
        .arg("bench")
        .arg("--row-only")
        .arg("--in-process")
        .args(["--base", &a.base.display().to_string()])
        .args(["--sizes", &n.to_string(), "--integrators", integ, "--modes", mode])
        .args(["--updates", &a.updates.to_string(), "--repeats", &a.repeats.to_string()])
        .args(["--warmup", &a.warmup.to_string()])
        .args(a.analysis.then_some("--analysis"))
        .args(["--threads", &a.threads.to_string()])
        .args([
            "--model",
            a.model.to_possible_value().expect("no variant is skipped").get_name(),
        ])
        .args(
            a.margin
                .map(|m| ["--margin".to_string(), m.to_string()])
                .into_iter()
                .flatten(),
        )
        .output()
        .map_err(|e| format!("cannot run the benchmark child: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("ROW ")).ok_or_else(|| {
        format!(
            "benchmark child for N={n} {integ} {mode} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )
    })?;
    let f: Vec<&str> = line.split_whitespace().skip(1).collect();
    let num = |k: usize| {
        f.get(k)
            .and_then(|v| v.parse::<f64>().ok())
            .ok_or("bad ROW line from the benchmark child")
    };
    Ok(Row {
        n,
        integrator: integ.to_string(),
        mode: mode.to_string(),
        steps: num(0)? as u64,
        wall: num(1)?,
        ups: num(2)?,
        z: num(3)?,
        neighbor: num(4)?,
        forces: num(5)?,
        integrate: num(6)?,
        updates: num(7)? as u64,
        sweep_ms: num(8)?,
        swaps_per_update: num(9)?,
        bytes: num(10)?,
        hwm: num(11)?,
        analysis: [num(12)?, num(13)?, num(14)?, num(15)?],
        analysis_steps: num(16)?,
    })
}

/// Peak resident memory of this process (VmHWM) in bytes, if /proc tells.
fn peak_rss() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let l = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = l.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024.0)
}

/// Reset the peak-RSS counter (Linux: writing 5 to clear_refs), so that the peak of each
/// run excludes the set-up of the bed.
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

pub fn bench(mut a: BenchArgs) -> Result<(), String> {
    let base = Base::read(&a.base)?;
    let spheres = matches!(base, Base::Spheres(_));
    if a.sizes.is_empty() {
        a.sizes = if spheres {
            vec![5832, 58_320, 583_200]
        } else {
            vec![10_000, 100_000, 1_000_000]
        };
    }
    if a.integrators.is_empty() {
        a.integrators = if spheres {
            vec!["verlet".into()]
        } else {
            vec!["verlet".into(), "gear".into()]
        };
    }
    let commit = crate::scale::git_commit();
    if !a.row_only {
        println!(
            "talus bench: bed tiled from {} ({} {}), {}, {}, commit {commit}, dt = {:.4e} s, skin {:.4e} m, {} build",
            a.base.display(),
            base.len(),
            if spheres { "spheres, 3D" } else { "discs" },
            if a.model.hertz() {
                format!("Hertz (the Hooke coefficients / {:.3e} m)", BenchModel::factor(spheres))
            } else {
                "Hooke".to_string()
            },
            if a.threads == 1 {
                "1 thread".to_string()
            } else {
                format!("{} threads (unpinned, deterministic sum)", a.threads)
            },
            if spheres { peer_dt3d() } else { peer_dt() },
            base.margin(&a),
            talus_kernels::vector_build::Build::detect().name()
        );
        println!(
            "{:>8} {:>6} {:>10} {:>6} {:>8} {:>10} {:>6} {:>6} {:>6} {:>6} {:>7} {:>9} {:>9} {:>7} {:>7}",
            "N",
            "integ",
            "mode",
            "steps",
            "wall s",
            "upd/s",
            "z",
            "neigh%",
            "force%",
            "integ%",
            "sweeps",
            "ms/sweep",
            "swaps/sw",
            "B/p arr",
            "B/p rss"
        );
    }
    let mut rows = Vec::new();
    for &n in &a.sizes {
        if n % base.len() != 0 {
            return Err(format!("size {n} is not a multiple of the base bed ({})", base.len()));
        }
        for integ in &a.integrators {
            let (integrator, iname) = match integ.as_str() {
                "verlet" => (Integrator::Verlet, "verlet"),
                "gear" => (Integrator::Gear, "gear"),
                other => return Err(format!("unknown integrator '{other}' (verlet, gear)")),
            };
            for mode in &a.modes {
                let (every_step, mname) = match mode.as_str() {
                    "skin" => (false, "skin"),
                    "every-step" => (true, "every-step"),
                    other => return Err(format!("unknown mode '{other}' (skin, every-step)")),
                };
                let row = if a.in_process {
                    measure(&base, n, integrator, iname, every_step, mname, &a)?
                } else {
                    measure_in_child(n, integ, mode, &a)?
                };
                if a.row_only {
                    println!(
                        "ROW {} {:e} {:e} {:e} {:e} {:e} {:e} {} {:e} {:e} {:e} {:e} {:e} {:e} {:e} {:e} {:e}",
                        row.steps,
                        row.wall,
                        row.ups,
                        row.z,
                        row.neighbor,
                        row.forces,
                        row.integrate,
                        row.updates,
                        row.sweep_ms,
                        row.swaps_per_update,
                        row.bytes,
                        row.hwm,
                        row.analysis[0],
                        row.analysis[1],
                        row.analysis[2],
                        row.analysis[3],
                        row.analysis_steps
                    );
                    return Ok(());
                }
                println!(
                    "{:>8} {:>6} {:>10} {:>6} {:>8.3} {:>10.3e} {:>6.3} {:>6.1} {:>6.1} {:>6.1} {:>7} {:>9.3} {:>9.0} {:>7.0} {:>7.0}",
                    row.n, row.integrator, row.mode, row.steps, row.wall, row.ups, row.z, row.neighbor, row.forces,
                    row.integrate, row.updates, row.sweep_ms, row.swaps_per_update, row.bytes, row.hwm
                );
                if a.analysis {
                    let [plain, logged, analyse, network] = row.analysis.map(|s| 1e3 * s);
                    println!(
                        "{:>8} analysis: plain step {plain:.1} ms, logged step {logged:.1} ms, analyse {analyse:.1} ms: {:.2} plain steps an analysis, the logged step's extra included; network {network:.1} ms",
                        "",
                        row.analysis_steps
                    );
                }
                rows.push(row);
            }
        }
    }
    // Growth of the sweep's cost with N: fit log(time per sweep) against log(N).
    for integ in ["verlet", "gear"] {
        let pts: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.mode == "every-step" && r.integrator == integ && r.sweep_ms > 0.0)
            .map(|r| ((r.n as f64).ln(), r.sweep_ms.ln()))
            .collect();
        if pts.len() >= 2 {
            let k = pts.len() as f64;
            let (sx, sy) = pts.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
            let (mx, my) = (sx / k, sy / k);
            let num: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
            let den: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
            println!(
                "sweep time per update ~ N^{:.3} ({integ}, every-step runs, {} sizes)",
                num / den,
                pts.len()
            );
        }
    }
    if let Some(p) = &a.csv {
        let mut s = String::from(
            "n,integrator,mode,threads,steps,wall_s,updates_per_s,contacts_per_particle,neighbor_pct,forces_pct,integrate_pct,sweeps,ms_per_sweep,swaps_per_sweep,bytes_per_particle_arrays,bytes_per_particle_peak_rss,commit\n",
        );
        for r in &rows {
            s += &format!(
                "{},{},{},{},{},{:.4},{:.4e},{:.4},{:.2},{:.2},{:.2},{},{:.4},{:.1},{:.1},{:.1},{commit}\n",
                r.n,
                r.integrator,
                r.mode,
                a.threads,
                r.steps,
                r.wall,
                r.ups,
                r.z,
                r.neighbor,
                r.forces,
                r.integrate,
                r.updates,
                r.sweep_ms,
                r.swaps_per_update,
                r.bytes,
                r.hwm
            );
        }
        std::fs::write(p, s).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(())
}
