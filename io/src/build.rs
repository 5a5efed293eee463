//! From a parsed scenario to a ready simulation: materials with their damping resolved,
//! walls, particles from generators or LAMMPS data files, insertion streams, the time step.
//! Both dimensions: polygons, wall bodies and drums are 2D only so far.
use std::path::{Path, PathBuf};

use talus_engine::generate;
use talus_engine::sim::Shape;
use talus_engine::store::ball_mass;
use talus_engine::{Config, ContactParams, Integrator, Material, ParticleInit, Simulation, Wall};
#[cfg(not(feature = "dim3"))]
use talus_engine::{Drive, PolygonShape, Rejection};
use talus_kernels::math::{Vector, ANG, DIM};

use crate::lammps_data::read_lammps_data;
use crate::preflight::{self, Source};
use crate::scenario::{self as sc, NormalDamping, ParticleSource, Scenario};
use crate::stages::{stage_plans, StagePlan};
use crate::{IoError, Result};

/// A simulation with the run settings of its scenario.
pub struct Built {
    /// The simulation, ready to run.
    pub sim: Simulation,
    /// `[run] steps`: the most steps (with stages, their total).
    pub steps: u64,
    /// `[run] until`: stop earlier once settled.
    pub until: Option<sc::Until>,
    /// The `[[stage]]`s (none: the run is one stage).
    pub stages: Vec<StagePlan>,
    /// The id of the scenario's first `[[body]]` (the next after the particle sources'):
    /// a restart makes its stages with it ([`stage_plans`]).
    pub first_body_id: u64,
    /// `[[outflow]]`s.
    pub outflows: Vec<sc::Outflow>,
    /// `[output]`.
    pub output: sc::Output,
    /// `[analysis]`: None when the section is absent.
    pub analysis: Option<sc::Analysis>,
    /// `[checkpoint]`.
    pub checkpoint: sc::CheckpointSettings,
    /// The scenario's text (checkpoints carry it and its hash).
    pub scenario_text: String,
    /// The scenario's `title`, or its path where it has none.
    pub title: String,
    /// How the time step was chosen, for the run summary.
    pub dt_note: String,
    /// What set-up found odd but valid (overlapping particles, the time step): for the
    /// command line to print as warnings.
    pub warnings: Vec<String>,
}

/// Renumber particles every this many steps (LAMMPS' `atom_modify sort` default is 1000).
pub const SORT_EVERY: u64 = 1000;

/// Build the simulation of `scenario`; `path` names the scenario in error messages.
pub fn build(scenario: &Scenario, path: &Path) -> Result<Built> {
    let invalid = |msg: String| IoError::Invalid {
        path: path.to_path_buf(),
        msg,
    };
    // 0. Generated counts the machine cannot hold are refused before anything is made.
    preflight::check_generated_memory(scenario).map_err(invalid)?;
    // 1. Particles, without material-dependent mass yet where generated.
    let mut inits: Vec<ParticleInit> = Vec::new();
    let mut sources: Vec<Source> = Vec::new();
    // Shapes of the particles, in the order of `inits` (None: a disc or a sphere).
    let mut shapes: Vec<Option<Shape>> = Vec::new();
    let mut next_id = 1u64;
    for (k, src) in scenario.particles.iter().enumerate() {
        let first = inits.len();
        let mat = &scenario.materials[src.material];
        let material = src.material as u16;
        match &src.source {
            ParticleSource::Generate {
                count,
                radius,
                packing,
                region_min,
                region_max,
                velocity,
                velocity_jitter,
                #[cfg(not(feature = "dim3"))]
                shape,
            } => {
                let dist = radius;
                let seed = scenario.seed.wrapping_add(k as u64);
                let n = *count as usize;
                inits
                    .try_reserve(n)
                    .map_err(|e| invalid(format!("particles[{k}]: cannot allocate {n} particles: {e}")))?;
                let balls = match packing {
                    sc::Packing::Lattice => generate::lattice(n, dist, *region_min, *region_max, seed),
                    sc::Packing::Random => generate::random(n, dist, *region_min, *region_max, seed),
                }
                .map_err(|e| invalid(format!("particles[{k}]: {e}")))?;
                let mut rng = generate::rng(seed ^ 0x0005_eed0_f7e1_0c17);
                #[cfg(not(feature = "dim3"))]
                let mut shape_rng = generate::rng(seed ^ 0x5a4e_0f00_d1ce_0001);
                for d in balls {
                    #[cfg(not(feature = "dim3"))]
                    let (polygon, mass, angle) = {
                        let polygon = match generate::polygon_vertices(shape, d.r, &mut shape_rng) {
                            Some(v) => {
                                Some(PolygonShape::new(&v).map_err(|e| invalid(format!("particles[{k}]: {e}")))?)
                            }
                            None => None,
                        };
                        let (mass, angle) = match &polygon {
                            Some(sh) => {
                                use rand::RngExt;
                                (
                                    mat.density * sh.area,
                                    shape_rng.random_range(0.0..std::f64::consts::TAU),
                                )
                            }
                            None => (ball_mass(mat.density, d.r), 0.0),
                        };
                        (polygon, mass, angle)
                    };
                    #[cfg(feature = "dim3")]
                    let (polygon, mass, angle) = (None, ball_mass(mat.density, d.r), 0.0);
                    shapes.push(polygon);
                    let jitter: Vector = if *velocity_jitter > 0.0 {
                        use rand::RngExt;
                        std::array::from_fn(|_| rng.random_range(-velocity_jitter..=*velocity_jitter))
                    } else {
                        [0.0; DIM]
                    };
                    inits.push(ParticleInit {
                        id: next_id,
                        pos: d.centre,
                        angle,
                        vel: std::array::from_fn(|a| velocity[a] + jitter[a]),
                        omega: [0.0; ANG],
                        radius: d.r,
                        mass,
                        material,
                        ptype: src.type_id,
                        flags: 0,
                    });
                    next_id += 1;
                }
            }
            ParticleSource::Lammps { file } => {
                let data = read_lammps_data(file)?;
                if data.is_empty() {
                    return Err(IoError::Invalid {
                        path: file.clone(),
                        msg: "the data file holds no atoms".into(),
                    });
                }
                next_id = next_id.max(data.ids.iter().max().map_or(0, |m| m + 1));
                inits.extend(data.particle_inits(material));
                shapes.resize(inits.len(), None);
            }
        }
        sources.push(Source {
            label: preflight::source_label(k, &src.source),
            range: first..inits.len(),
        });
    }
    // Single polygons and drums: walls of infinite mass (fixed or driven) or free grains.
    let first_body_id = next_id;
    #[cfg(not(feature = "dim3"))]
    let drives = add_bodies(scenario, &mut inits, &mut shapes, &mut sources, &mut next_id).map_err(invalid)?;
    // Particles poured in later count for the reference sizes and masses below.
    let poured = insert_population(scenario);

    if inits.is_empty() && poured.is_empty() {
        return Err(invalid("the scenario makes no particles".into()));
    }
    {
        let mut ids: Vec<u64> = inits.iter().map(|p| p.id).collect();
        ids.sort_unstable();
        if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
            return Err(invalid(format!(
                "particle id {} is used twice (ids must be unique across sources)",
                w[0]
            )));
        }
    }

    // 2. Materials: damping from restitution needs a reference mass (as the LAMMPS peer:
    //    the effective mass of two discs of the material's mean radius).
    let mut materials = Vec::new();
    for (m, mat) in scenario.materials.iter().enumerate() {
        let gamma_n = match mat.damping {
            NormalDamping::GammaN(g) => g,
            NormalDamping::Restitution(e) => {
                let r = mean_radius(&inits, &poured, Some(m))
                    .unwrap_or_else(|| mean_radius(&inits, &poured, None).unwrap_or(0.0));
                let meff = 0.5 * ball_mass(mat.density, r);
                ContactParams::gamma_for_restitution(mat.kn, meff, e)
            }
        };
        materials.push(Material {
            name: mat.name.clone(),
            density: mat.density,
            contact: ContactParams {
                kn: mat.kn,
                kt: mat.kt,
                gamma_n,
                gamma_t: mat.gamma_t.unwrap_or(0.5 * gamma_n),
                mu: mat.friction,
            },
        });
    }

    // 3. Walls (a box is four lines or six planes: floor, sides, top), no particle
    //    outside the domain, behind or inside a wall (wall bodies, drums' rings included),
    //    and no insertion region reaching into one.
    let all_walls = preflight::Walls::of(scenario);
    preflight::check_placement(&sources, &inits, &shapes, &scenario.domain, &all_walls).map_err(invalid)?;
    preflight::check_insert_regions(&scenario.inserts, &all_walls).map_err(invalid)?;
    let walls: Vec<Wall> = all_walls.surfaces().collect();

    // 4. Time step: a fraction of the shortest contact duration, over every pair of
    //    materials present (lightest discs, m_eff = m1 m2 / (m1 + m2)) and every wall
    //    (m_eff = m).
    let nmat = materials.len();
    let mut mmin = vec![f64::INFINITY; nmat];
    for p in &inits {
        mmin[p.material as usize] = mmin[p.material as usize].min(p.mass);
    }
    for p in &poured {
        mmin[p.material] = mmin[p.material].min(p.min_mass);
    }
    let table = pair_table(scenario, &materials, &inits, &poured);
    let mix = &table;
    let mut tc = f64::INFINITY;
    for a in 0..nmat {
        for b in 0..nmat {
            if mmin[a].is_finite() && mmin[b].is_finite() {
                let meff = mmin[a] * mmin[b] / (mmin[a] + mmin[b]);
                tc = tc.min(mix.get(a as u16, b as u16).contact_time(meff));
            }
        }
        for w in &walls {
            if mmin[a].is_finite() {
                tc = tc.min(mix.get(a as u16, w.material).contact_time(mmin[a]));
            }
        }
    }
    if !tc.is_finite() || tc <= 0.0 {
        return Err(invalid(format!(
            "the contact duration is not finite (t_c = {tc}): the damping is at or above critical \
             for the lightest pair; lower gamma_n or raise the restitution"
        )));
    }
    let (dt, dt_note) = match scenario.integrator.time_step {
        sc::TimeStep::Fixed(dt) => (dt, format!("dt = {dt:.4e} s (given) = t_c/{:.1}", tc / dt)),
        sc::TimeStep::Fraction(f) => (
            tc / f,
            format!("dt = t_c/{f} = {:.4e} s (t_c = {tc:.4e} s, lightest contact)", tc / f),
        ),
    };
    let mut warnings = preflight::dt_warnings(dt, tc, scenario.run.steps);
    let mean_r = mean_radius(&inits, &poured, None).unwrap_or(0.0);
    let config = Config {
        dt,
        gravity: scenario.gravity,
        domain_min: scenario.domain.min,
        domain_max: scenario.domain.max,
        integrator: match scenario.integrator.scheme {
            sc::Scheme::Verlet => Integrator::Verlet,
            sc::Scheme::Gear => Integrator::Gear,
        },
        neighbor: scenario.neighbor.method,
        margin: scenario.neighbor.margin * mean_r,
        every_step: scenario.neighbor.every_step,
        sort_every: SORT_EVERY,
        #[cfg(not(feature = "dim3"))]
        rejection: match scenario.neighbor.rejection {
            sc::Rejection::Circle => Rejection::Circle,
            sc::Rejection::Projection => Rejection::Projection,
            sc::Rejection::SeparatingLine => Rejection::SeparatingLine,
        },
        normal_model: scenario.normal_model,
    };
    let mut sim =
        Simulation::new_with_shapes(config, materials, walls, &inits, &shapes).map_err(|e| invalid(e.to_string()))?;
    sim.set_pair_table(table).map_err(|e| invalid(e.to_string()))?;
    // Moving walls: every engine wall a scenario wall made (a box's faces) moves with it.
    let faces = crate::stages::engine_walls(scenario);
    for (k, mv) in &scenario.wall_motions {
        for c in crate::stages::move_changes(&faces, *k, None, &sim.walls, mv) {
            c.apply(&mut sim).map_err(|e| invalid(format!("wall[{k}]: {e}")))?;
        }
    }
    #[cfg(not(feature = "dim3"))]
    for (d, ids) in drives {
        sim.drive_particles(d, &ids).map_err(|e| invalid(e.to_string()))?;
    }
    #[cfg(feature = "dim3")]
    crate::stages::start_drums(scenario, &mut sim).map_err(|e| invalid(e.to_string()))?;
    for (k, i) in scenario.inserts.iter().enumerate() {
        sim.add_insertion(insert_spec(i, k, scenario.seed, dt))
            .map_err(|e| invalid(format!("insert[{k}]: {e}")))?;
    }
    // After the insertion streams: the images reach as far as their largest grains.
    let d = &scenario.domain;
    if d.shear_rate != 0.0 {
        // The grains start on the shear's profile about the middle of the cell (LAMMPS'
        // `velocity all ramp`), added to the velocities they were given.
        let mid = 0.5 * (d.min[1] + d.max[1]);
        let ps = &mut sim.particles;
        for p in 0..ps.len() {
            if ps.inv_mass[p] > 0.0 {
                ps.vel[0][p] += d.shear_rate * (ps.pos[1][p] - mid);
            }
        }
        sim.set_lees_edwards(d.periodic, d.shear_rate)
            .map_err(|e| invalid(format!("domain.shear_rate: {e}")))?;
    } else if d.periodic.iter().any(|&p| p) {
        sim.set_periodic(d.periodic)
            .map_err(|e| invalid(format!("domain.periodic: {e}")))?;
    }
    if let Some(s) = d.servo {
        let spec = talus_engine::CellServo {
            servo: talus_engine::wall_motion::Servo {
                target: s.stress,
                gain: s.gain,
                max_speed: s.max_speed,
            },
            every: s.every,
            min_length: s.min_length,
            max_length: s.max_length,
        };
        sim.set_cell_servo(spec)
            .map_err(|e| invalid(format!("domain.servo: {e}")))?;
    }
    warnings.extend(preflight::overlap_warnings(&sim, &sources, &inits));
    Ok(Built {
        sim,
        steps: scenario.run.steps,
        until: scenario.run.until,
        stages: stage_plans(scenario, first_body_id),
        first_body_id,
        outflows: scenario.outflows.clone(),
        output: scenario.output.clone(),
        analysis: scenario.analysis.clone(),
        checkpoint: scenario.checkpoint.clone(),
        scenario_text: scenario.text.clone(),
        title: scenario.title.clone().unwrap_or_else(|| path.display().to_string()),
        dt_note,
        warnings,
    })
}

/// Load and build a scenario file.
pub fn build_file(path: &Path) -> Result<Built> {
    let scenario = crate::scenario::load_scenario(path)?;
    build(&scenario, path)
}

/// Build the built-in default scenario.
pub fn build_default() -> Result<Built> {
    build(
        &crate::scenario::default_scenario(),
        &PathBuf::from("<built-in default>"),
    )
}

/// The single polygons and drums' segments of a scenario (2D): walls of infinite mass,
/// fixed or driven, or free grains (a source of their own for the placement checks);
/// the drives and the ids they move.
#[cfg(not(feature = "dim3"))]
fn add_bodies(
    scenario: &Scenario,
    inits: &mut Vec<ParticleInit>,
    shapes: &mut Vec<Option<Shape>>,
    sources: &mut Vec<Source>,
    next_id: &mut u64,
) -> std::result::Result<Vec<(Drive, Vec<u64>)>, String> {
    let (all_drives, body_drive, drum_drive) = drives(scenario);
    let mut drives: Vec<(Drive, Vec<u64>)> = all_drives.into_iter().map(|d| (d, Vec::new())).collect();
    // (vertices, material, type, motion, drive)
    type Body = (Vec<[f64; 2]>, usize, u16, sc::Motion, Option<usize>);
    let mut bodies: Vec<Body> = scenario
        .bodies
        .iter()
        .zip(body_drive)
        .map(|(b, d)| (b.vertices.clone(), b.material, b.type_id, b.motion.clone(), d))
        .collect();
    for (d, &drive) in scenario.drums.iter().zip(&drum_drive) {
        let motion = sc::Motion::Driven(drives[drive].0.clone());
        for seg in generate::drum_ring(d.centre, d.radius, d.thickness, d.segments as usize) {
            bodies.push((seg.to_vec(), d.material, 2, motion.clone(), Some(drive)));
        }
    }
    for (k, (vertices, material, ptype, motion, drive)) in bodies.into_iter().enumerate() {
        if motion == sc::Motion::Free {
            // A free body is a grain: the placement checks see it as a source.
            sources.push(Source {
                label: format!("body[{k}] (free polygon)"),
                range: inits.len()..inits.len() + 1,
            });
        }
        let shape = PolygonShape::new(&vertices).map_err(|e| e.to_string())?;
        let c = shape.centroid;
        let flags = match motion {
            sc::Motion::Fixed => talus_engine::flags::FIXED,
            sc::Motion::Free => 0,
            sc::Motion::Driven(_) => {
                drives[drive.expect("a driven body has a drive")].1.push(*next_id);
                talus_engine::flags::DRIVEN
            }
        };
        inits.push(ParticleInit {
            id: *next_id,
            pos: [c[0], c[1]],
            angle: 0.0,
            vel: [0.0, 0.0],
            omega: [0.0],
            radius: shape.radius,
            mass: scenario.materials[material].density * shape.area,
            material: material as u16,
            ptype,
            flags,
        });
        shapes.push(Some(shape));
        *next_id += 1;
    }
    Ok(drives)
}

/// The drives of a scenario's driven bodies and drums (2D), in the engine's order, with
/// the drive of each body (None: not driven) and of each drum. Bodies driven alike share
/// one drive; a drum a stage starts has one of its own, resting until that stage (its
/// start at `f64::MAX`, which [`talus_engine::Simulation::start_drive`] brings forward).
#[cfg(not(feature = "dim3"))]
pub fn drives(scenario: &Scenario) -> (Vec<Drive>, Vec<Option<usize>>, Vec<usize>) {
    let held = |j: usize| {
        let named = sc::Named::Drum(j);
        scenario.stages.iter().any(|s| s.start.contains(&named))
    };
    // (the drive, the drum it is held for)
    let mut all: Vec<(Drive, Option<usize>)> = Vec::new();
    let mut index = |d: Drive, tag: Option<usize>| match all.iter().position(|x| x.0 == d && x.1 == tag) {
        Some(k) => k,
        None => {
            all.push((d, tag));
            all.len() - 1
        }
    };
    let body_drive = scenario
        .bodies
        .iter()
        .map(|b| match &b.motion {
            sc::Motion::Driven(d) => Some(index(d.clone(), None)),
            _ => None,
        })
        .collect();
    let drum_drive = (0..scenario.drums.len())
        .map(|j| {
            let d = &scenario.drums[j];
            let tag = held(j).then_some(j);
            let drive = Drive {
                centre: d.centre,
                velocity: [0.0; 2],
                omega: d.omega,
                start: if tag.is_some() { f64::MAX } else { d.start },
                ramp: d.ramp,
                laws: d.turn.clone().map(|turn| talus_engine::DriveLaws {
                    slide: None,
                    turn: Some(turn),
                }),
            };
            index(drive, tag)
        })
        .collect();
    (all.into_iter().map(|x| x.0).collect(), body_drive, drum_drive)
}

/// What an insertion stream adds to the reference sizes and masses of the build: its
/// material, the mean radius of its distribution counted `weight` times (its total, or
/// what its rate pours until its stop; a `per_insert` stream with only a stop counts as
/// one insertion, the number of insertions depending on the time step still to be found),
/// and the lightest particle it can make (polygons: the lightest of a sample of shapes at
/// the smallest radius).
struct Poured {
    material: usize,
    mean_r: f64,
    weight: f64,
    min_mass: f64,
}

fn insert_population(scenario: &Scenario) -> Vec<Poured> {
    scenario
        .inserts
        .iter()
        .enumerate()
        .map(|(k, i)| {
            let density = scenario.materials[i.material].density;
            let rmin = i.radius.min();
            #[cfg(not(feature = "dim3"))]
            let min_mass = {
                let mut rng = generate::rng(scenario.seed.wrapping_add(k as u64));
                (0..64)
                    .map(|_| match generate::polygon_vertices(&i.shape, rmin, &mut rng) {
                        Some(v) => PolygonShape::new(&v).map_or(f64::INFINITY, |sh| density * sh.area),
                        None => ball_mass(density, rmin),
                    })
                    .fold(f64::INFINITY, f64::min)
            };
            #[cfg(feature = "dim3")]
            let min_mass = {
                let _ = k;
                ball_mass(density, rmin)
            };
            let duration = i.stop.map(|t| t - i.start);
            let weight = match (i.total, i.amount, duration) {
                (Some(t), sc::Amount::Rate(r), Some(d)) => (t as f64).min(r * d),
                (Some(t), _, _) => t as f64,
                (None, sc::Amount::Rate(r), Some(d)) => r * d,
                (None, sc::Amount::PerInsert(n), _) => n as f64,
                (None, sc::Amount::Rate(r), None) => r,
            };
            Poured {
                material: i.material,
                mean_r: i.radius.mean(),
                weight: weight.max(1.0),
                min_mass,
            }
        })
        .collect()
}

/// Mean radius of the particles made at the start and those poured in later (of one
/// material, or all); None if there are none.
/// The table of pair coefficients: the materials' mixing, cohesion and rolling friction
/// (a like pair the material's own, an unlike pair the smaller of the two, as friction),
/// then each `[[pair]]` over it. A pair's restitution gives its gamma_n for the effective
/// mass of the two materials' reference discs (each of its material's mean radius, as
/// for a material's own); a pair that sets its damping and not gamma_t gets gamma_n / 2.
fn pair_table(
    scenario: &Scenario,
    materials: &[Material],
    inits: &[ParticleInit],
    poured: &[Poured],
) -> talus_engine::material::PairTable {
    use talus_kernels::contact::PairExtras;
    let mut table = talus_engine::material::PairTable::new(materials);
    table.rolling = scenario.rolling;
    table.cohesion = scenario.cohesion_model;
    let n = materials.len();
    let own = |m: usize| PairExtras {
        cohesion: scenario.materials[m].cohesion,
        rolling_friction: scenario.materials[m].rolling_friction,
    };
    for a in 0..n {
        for b in 0..n {
            let (x, y) = (own(a), own(b));
            table.extras[a * n + b] = PairExtras {
                cohesion: x.cohesion.min(y.cohesion),
                rolling_friction: x.rolling_friction.min(y.rolling_friction),
            };
        }
    }
    let reference_mass = |m: usize| {
        let r = mean_radius(inits, poured, Some(m)).unwrap_or_else(|| mean_radius(inits, poured, None).unwrap_or(0.0));
        ball_mass(materials[m].density, r)
    };
    for p in &scenario.pairs {
        let (a, b) = (p.a as u16, p.b as u16);
        let mut params = *table.get(a, b);
        let mut extras = *table.extras(a, b);
        if let Some(kn) = p.kn {
            params.kn = kn;
        }
        if let Some(kt) = p.kt {
            params.kt = kt;
        }
        if let Some(d) = p.damping {
            params.gamma_n = match d {
                NormalDamping::GammaN(g) => g,
                NormalDamping::Restitution(e) => {
                    let (ma, mb) = (reference_mass(p.a), reference_mass(p.b));
                    ContactParams::gamma_for_restitution(params.kn, ma * mb / (ma + mb), e)
                }
            };
            params.gamma_t = 0.5 * params.gamma_n;
        }
        if let Some(g) = p.gamma_t {
            params.gamma_t = g;
        }
        if let Some(mu) = p.friction {
            params.mu = mu;
        }
        if let Some(c) = p.cohesion {
            extras.cohesion = c;
        }
        if let Some(r) = p.rolling_friction {
            extras.rolling_friction = r;
        }
        table.set(a, b, params, extras);
    }
    table
}

fn mean_radius(inits: &[ParticleInit], poured: &[Poured], material: Option<usize>) -> Option<f64> {
    let mine = |m: usize| material.is_none_or(|k| k == m);
    let (mut sum, mut count) = (0.0, 0.0);
    for p in inits.iter().filter(|p| mine(p.material as usize)) {
        sum += p.radius;
        count += 1.0;
    }
    for p in poured.iter().filter(|p| mine(p.material)) {
        sum += p.mean_r * p.weight;
        count += p.weight;
    }
    (count > 0.0).then(|| sum / count)
}

/// The engine's stream of an `[[insert]]` (the `k`-th), its times turned into steps of `dt`:
/// the first insertion at the first step at or after `start`, none at or after `stop`;
/// with a `rate` and no `every`, one insertion every 1/rate seconds (at least every step).
fn insert_spec(i: &sc::Insert, k: usize, seed: u64, dt: f64) -> talus_engine::InsertSpec {
    let steps = |t: f64| (t / dt).ceil().min(u64::MAX as f64) as u64;
    let every = i.every.unwrap_or(match i.amount {
        sc::Amount::Rate(r) => ((1.0 / (r * dt)).round().min(u64::MAX as f64) as u64).max(1),
        sc::Amount::PerInsert(_) => 1,
    });
    talus_engine::InsertSpec {
        region_min: i.region_min,
        region_max: i.region_max,
        radius: i.radius.clone(),
        #[cfg(not(feature = "dim3"))]
        shape: i.shape.clone(),
        material: i.material as u16,
        ptype: i.type_id,
        velocity: i.velocity,
        velocity_jitter: i.velocity_jitter,
        amount: i.amount,
        every,
        start_step: steps(i.start),
        stop_step: i.stop.map(steps),
        total: i.total,
        // Apart from the generators' seeds (seed + source index) and from one another.
        seed: i.seed.unwrap_or_else(|| seed ^ (0x1_5eed_0000_0000 + k as u64)),
        attempts: i.attempts,
    }
}
