//! Restart from sections, bit for bit, in the build's dimension: a bed of grains with
//! friction and walls (discs between lines in 2D; spheres on a plane floor inside a
//! turning cylinder in 3D) run N steps, saved, restored, run M more, against N + M steps
//! straight. The 2D build's files and their damage are tested in the root package's
//! tests/checkpoint.
use std::collections::HashMap;

use talus_kernels::contact::{spring_components, ContactParams, PairExtras, RollingModel};
use talus_kernels::math::{ANG, DIM};

use super::state::names;
use super::*;
use crate::store::LOADS;

#[cfg(feature = "dim3")]
mod far;

mod cell_servo;

/// Sections copied out (as a file holds them).
#[derive(Clone)]
struct Saved(HashMap<&'static str, Vec<u8>>);

impl SectionSource for Saved {
    fn section(&self, name: &str) -> Option<&[u8]> {
        self.0.get(name).map(Vec::as_slice)
    }
}

fn save(sim: &Simulation) -> Saved {
    Saved(
        sim.sections()
            .into_iter()
            .map(|s| (s.name, s.bytes.into_owned()))
            .collect(),
    )
}

fn assert_same_state(a: &Simulation, b: &Simulation, what: &str) {
    let (sa, sb) = (a.sections(), b.sections());
    let names = |s: &[Section]| s.iter().map(|x| x.name).collect::<Vec<_>>();
    assert_eq!(names(&sa), names(&sb), "{what}: different sections");
    for (x, y) in sa.iter().zip(&sb) {
        assert!(x.bytes == y.bytes, "{what}: section {} differs", x.name);
    }
}

/// Equal bit for bit (NaN included), array by array; else the first difference.
fn same_bits(a: &[Vec<f64>], b: &[Vec<f64>], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        assert_eq!(x.len(), y.len(), "{what}: array {k} lengths");
        if let Some(p) = (0..x.len()).find(|&p| x[p].to_bits() != y[p].to_bits()) {
            panic!("{what}: array {k} index {p}: {} restarted, {} straight", x[p], y[p]);
        }
    }
}

/// A small deterministic generator (xorshift64*): uniform in [0, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

const R: f64 = 1e-3;
const SPACING: f64 = 2.05e-3;
const DENSITY: f64 = 2500.0;
const KN: f64 = 1e5;

fn mass(r: f64) -> f64 {
    if DIM == 2 {
        DENSITY * std::f64::consts::PI * r * r
    } else {
        DENSITY * 4.0 / 3.0 * std::f64::consts::PI * r * r * r
    }
}

/// Grains on a lattice (5 x 5 per layer in 3D, 14 per row in 2D), 200 in all, radii 0.95
/// to 1 R, velocities up to 0.5 m/s per axis: contacts (and slip) begin within a few
/// hundred steps.
fn grains() -> Vec<ParticleInit> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let across: usize = if DIM == 2 { 14 } else { 5 };
    (0..200)
        .map(|k| {
            let cell: [usize; DIM] = std::array::from_fn(|a| match a {
                a if a + 1 == DIM => k / across.pow(DIM as u32 - 1),
                a => k / across.pow(a as u32) % across,
            });
            let pos = std::array::from_fn(|a| {
                if a + 1 == DIM {
                    R + cell[a] as f64 * SPACING
                } else {
                    (cell[a] as f64 - (across - 1) as f64 / 2.0) * SPACING
                }
            });
            let r = R * (0.95 + 0.05 * rng.next());
            ParticleInit {
                id: k as u64 + 1,
                pos,
                angle: 0.0,
                vel: std::array::from_fn(|_| 0.5 * (2.0 * rng.next() - 1.0)),
                omega: [0.0; ANG],
                radius: r,
                mass: mass(r),
                material: 0,
                ptype: 1,
                flags: 0,
            }
        })
        .collect()
}

/// The floor at height 0, and side walls: two lines in 2D, a cylinder about the vertical
/// axis turning at 2 rad/s in 3D.
fn walls() -> Vec<Wall> {
    #[cfg(not(feature = "dim3"))]
    return vec![
        Wall::fixed([0.0, 0.0], [0.0, 1.0], 0),
        Wall::fixed([-14.4e-3, 0.0], [1.0, 0.0], 0),
        Wall::fixed([14.4e-3, 0.0], [-1.0, 0.0], 0),
    ];
    #[cfg(feature = "dim3")]
    vec![
        Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0),
        Wall::cylinder([0.0; 3], [0.0, 0.0, 1.0], 7.0e-3, 2.0, 0),
    ]
}

fn bed(neighbor: NeighborMethod, integrator: Integrator) -> Simulation {
    let m = mass(R);
    let gamma_n = ContactParams::gamma_for_restitution(KN, m / 2.0, 0.5);
    let contact = ContactParams {
        kn: KN,
        kt: 2.0 / 7.0 * KN,
        gamma_n,
        gamma_t: 0.5 * gamma_n,
        mu: 0.5,
    };
    let mut gravity = [0.0; DIM];
    gravity[DIM - 1] = -9.81;
    let mut domain_min = [-0.02; DIM];
    domain_min[DIM - 1] = -1e-3;
    let config = Config {
        dt: 1e-6,
        gravity,
        domain_min,
        domain_max: [0.04; DIM],
        integrator,
        neighbor,
        margin: 0.1e-3,
        every_step: false,
        // A renumbering after the checkpoint.
        sort_every: 300,
        #[cfg(not(feature = "dim3"))]
        rejection: Rejection::Circle,
        normal_model: talus_kernels::contact::law::NormalModel::Hertz,
    };
    let material = Material {
        name: "glass".into(),
        density: DENSITY,
        contact,
    };
    Simulation::new(config, vec![material], walls(), &grains()).unwrap()
}

const N: u64 = 400;
const M: u64 = 400;

#[test]
fn restart_from_sections_is_bitwise_the_straight_run() {
    let runs = [Integrator::Verlet, Integrator::Gear]
        .into_iter()
        .flat_map(|i| NeighborMethod::ALL.iter().map(move |&m| (m, i)));
    for (method, integrator) in runs {
        let what = &format!("{} {integrator:?}", method.name());
        let mut first = bed(method, integrator);
        first.run(N).unwrap();
        // The state carries what a restart must not lose: springs that slipped, of pairs
        // and of wall contacts.
        let slipped = |xi: &[talus_kernels::contact::Spring]| {
            xi.iter()
                .filter(|s| spring_components(s).iter().any(|&c| c != 0.0))
                .count()
        };
        assert!(slipped(&first.contacts.xi) > 10, "{what}: too few pair springs");
        assert!(slipped(&first.wall_contacts.xi) > 5, "{what}: too few wall springs");
        let saved = save(&first);
        let gear = saved.0.keys().filter(|k| k.starts_with("gear.")).count();
        let expected = if integrator == Integrator::Gear { 4 * LOADS } else { 0 };
        assert_eq!(gear, expected, "{what}: Gear history sections");
        drop(first);
        let mut restored = Simulation::from_sections(&saved).unwrap();
        restored.run(M).unwrap();
        let mut straight = bed(method, integrator);
        straight.run(N + M).unwrap();
        assert!(straight.neighbor_updates > 2, "{what}: the broad phase never moved");
        let (a, b) = (&restored.particles, &straight.particles);
        same_bits(&a.pos, &b.pos, &format!("{what}: positions"));
        same_bits(&a.vel, &b.vel, &format!("{what}: velocities"));
        same_bits(&a.omega, &b.omega, &format!("{what}: spins"));
        let springs = |xi: &[talus_kernels::contact::Spring]| xi.iter().flat_map(spring_components).copied().collect();
        let (sa, sb) = (&restored.contacts.xi, &straight.contacts.xi);
        same_bits(&[springs(sa)], &[springs(sb)], &format!("{what}: springs"));
        let (sa, sb) = (&restored.wall_contacts.xi, &straight.wall_contacts.xi);
        same_bits(&[springs(sa)], &[springs(sb)], &format!("{what}: wall springs"));
        assert_same_state(&restored, &straight, what);
    }
}

/// A file of format 4 or before holds the sweep's ends as `u64` keys (the `f32` value's
/// ordered bits, then the tag), between a sentinel 0 and a sentinel `u64::MAX`: read, it
/// runs on bit for bit as the file of today's layout does; keys without their sentinels
/// are refused by name.
#[test]
fn keyed_ends_of_format_4_are_read() {
    let mut first = bed(NeighborMethod::Sweep, Integrator::Verlet);
    first.run(N).unwrap();
    assert!(first.neighbor_updates > 1, "the broad phase never moved");
    let good = save(&first);
    // By hand, not bytemuck's `pod_collect_to_vec`: that needs bytemuck's alloc feature,
    // which the engine does not enable (`cargo test -p talus-engine` would not build).
    let f32s = |b: &[u8]| -> Vec<f32> {
        b.chunks_exact(4)
            .map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
            .collect()
    };
    let boxes: Vec<Vec<f32>> = f32s(&good.0["broad.boxes"])
        .chunks_exact(2 * DIM)
        .map(<[f32]>::to_vec)
        .collect();
    let ordered = |f: f32| {
        let b = f.to_bits();
        if b & 0x8000_0000 != 0 {
            !b
        } else {
            b | 0x8000_0000
        }
    };
    let mut old = Saved(good.0.clone());
    for (a, (name, keyed)) in names::ENDS.into_iter().zip(names::KEYED_ENDS).enumerate() {
        let tags: Vec<u32> = old
            .0
            .remove(name)
            .unwrap()
            .chunks_exact(4)
            .map(|c| u32::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(tags.len(), 2 * first.len(), "{name}");
        let keys: Vec<u64> = std::iter::once(0)
            .chain(tags.iter().map(|&t| {
                let (p, end) = ((t & 0x7fff_ffff) as usize, t >> 31);
                ((ordered(boxes[p][2 * a + end as usize]) as u64) << 32) | t as u64
            }))
            .chain([u64::MAX])
            .collect();
        assert!(
            keys.windows(2).all(|w| w[0] < w[1]),
            "{name}: the keys of today's order are sorted"
        );
        old.0.insert(keyed, keys.iter().flat_map(|k| k.to_ne_bytes()).collect());
    }
    let mut read = Simulation::from_sections(&old).unwrap();
    let mut again = Simulation::from_sections(&good).unwrap();
    read.run(M).unwrap();
    again.run(M).unwrap();
    same_bits(&read.particles.pos, &again.particles.pos, "positions");
    assert_same_state(&read, &again, "format 4 ends");
    let mut cut = Saved(old.0.clone());
    let last = names::KEYED_ENDS[DIM - 1];
    let v = cut.0.get_mut(last).unwrap();
    v.truncate(v.len() - 8);
    assert!(refused(&cut).starts_with(&format!("{last}: ")), "{}", refused(&cut));
}

/// The bed's grains in a cell periodic across the floor (x in 2D; x and y in 3D), its
/// length one lattice spacing past the outer grains so that the lattice continues across
/// the faces, the grains drifting along x at 4 m/s so that many cross a face (and are
/// wrapped) before and after the checkpoint.
fn periodic_bed(neighbor: NeighborMethod, integrator: Integrator) -> Simulation {
    let mut sim = bed(neighbor, integrator);
    let across: f64 = if DIM == 2 { 14.0 } else { 5.0 };
    let half = across * SPACING / 2.0;
    let mut config = sim.config.clone();
    let axes: [bool; DIM] = std::array::from_fn(|a| a + 1 < DIM);
    for a in (0..DIM).filter(|&a| axes[a]) {
        config.domain_min[a] = -half;
        config.domain_max[a] = half;
    }
    let mut grains = grains();
    for g in &mut grains {
        g.vel[0] += 4.0;
    }
    let floor = walls().swap_remove(0);
    let material = sim.materials.swap_remove(0);
    sim = Simulation::new(config, vec![material], vec![floor], &grains).unwrap();
    sim.set_periodic(axes).unwrap();
    sim
}

const BOTH: [Integrator; 2] = [Integrator::Verlet, Integrator::Gear];

/// Restarts of a cell whose grains drift through its periodic faces (`make`) are bitwise
/// the straight run for every method and each of `integrators`; `restored` checks what the
/// restored simulation says of its cell.
fn drifting_cell_restarts_bitwise(
    kind: &str,
    make: fn(NeighborMethod, Integrator) -> Simulation,
    integrators: &[Integrator],
    restored_cell: impl Fn(&Simulation, &str),
) {
    let runs = integrators
        .iter()
        .flat_map(|&i| NeighborMethod::ALL.iter().map(move |&m| (m, i)));
    for (method, integrator) in runs {
        let what = &format!("{kind} {} {integrator:?}", method.name());
        let mut first = make(method, integrator);
        first.run(N).unwrap();
        let saved = save(&first);
        assert!(saved.0.contains_key("periodic.owner"), "{what}");
        drop(first);
        let mut restored = Simulation::from_sections(&saved).unwrap();
        restored_cell(&restored, what);
        restored.run(M).unwrap();
        let mut straight = make(method, integrator);
        let x_of = |sim: &Simulation| -> HashMap<u64, f64> {
            let ps = &sim.particles;
            ps.id.iter().zip(&ps.pos[0]).map(|(&i, &x)| (i, x)).collect()
        };
        let x0 = x_of(&straight);
        straight.run(N + M).unwrap();
        // Grains went through the faces: their wrapped x is behind where they started.
        let x1 = x_of(&straight);
        let wrapped = x0.iter().filter(|(i, x)| x1[*i] < **x).count();
        assert!(wrapped > 5, "{what}: {wrapped} grains wrapped");
        let (a, b) = (&restored.particles, &straight.particles);
        same_bits(&a.pos, &b.pos, &format!("{what}: positions"));
        same_bits(&a.vel, &b.vel, &format!("{what}: velocities"));
        assert_same_state(&restored, &straight, what);
    }
}

#[test]
fn restart_of_a_periodic_cell_is_bitwise_the_straight_run() {
    drifting_cell_restarts_bitwise("periodic", periodic_bed, &BOTH, |sim, what| {
        assert_eq!(sim.periodic_axes(), std::array::from_fn(|a| a + 1 < DIM), "{what}");
    });
}

/// The bed's grains in a Lees-Edwards cell sheared at 500 / s (x and y periodic: in 2D
/// without walls or gravity, the lattice's rows one spacing apart across y too; in 3D
/// over the floor), drifting along x as in [`periodic_bed`].
fn sheared_cell(neighbor: NeighborMethod, integrator: Integrator) -> Simulation {
    let mut sim = bed(neighbor, integrator);
    let across: f64 = if DIM == 2 { 14.0 } else { 5.0 };
    let half = across * SPACING / 2.0;
    let mut config = sim.config.clone();
    config.domain_min[0] = -half;
    config.domain_max[0] = half;
    config.domain_min[1] = -half;
    config.domain_max[1] = half;
    let walls_of_bed = walls;
    let mut walls = vec![];
    if DIM == 2 {
        // 15 rows from y = R.
        config.domain_min[1] = R - SPACING / 2.0;
        config.domain_max[1] = config.domain_min[1] + 15.0 * SPACING;
        config.gravity = [0.0; DIM];
    } else {
        walls.push(walls_of_bed().swap_remove(0));
    }
    let mut grains = grains();
    for g in &mut grains {
        g.vel[0] += 4.0;
    }
    let material = sim.materials.swap_remove(0);
    sim = Simulation::new(config, vec![material], walls, &grains).unwrap();
    let axes: [bool; DIM] = std::array::from_fn(|a| a < 2);
    sim.set_lees_edwards(axes, 500.0).unwrap();
    sim
}

#[test]
fn restart_of_a_sheared_cell_is_bitwise_the_straight_run() {
    drifting_cell_restarts_bitwise("sheared", sheared_cell, &BOTH, |sim, what| {
        assert_eq!(sim.shear_rate(), 500.0, "{what}");
    });
}

/// Which section a forged value is blamed on (the restore must refuse it, not panic).
fn refused(saved: &Saved) -> String {
    match Simulation::from_sections(saved) {
        Err(EngineError::State { section, msg }) => format!("{section}: {msg}"),
        Err(e) => panic!("not a state error: {e}"),
        Ok(_) => panic!("a forged state was accepted"),
    }
}

fn set_f64(saved: &mut Saved, name: &str, k: usize, v: f64) {
    let b = saved.0.get_mut(name).unwrap_or_else(|| panic!("no section {name}"));
    b[8 * k..8 * k + 8].copy_from_slice(&v.to_ne_bytes());
}

#[test]
fn forged_sections_are_refused_by_name() {
    let mut sim = bed(NeighborMethod::Sweep, Integrator::Verlet);
    sim.run(N).unwrap();
    let good = save(&sim);
    assert!(Simulation::from_sections(&good).is_ok());
    let last = DIM - 1;
    let vertical = ["p.y", "p.z"][DIM - 2];
    // (section, value index, value, words the refusal must hold)
    let mut cases: Vec<(&str, usize, f64, &str)> = vec![
        (names::VEL[last], 3, f64::NAN, "particle index 3"),
        (names::OMEGA[ANG - 1], 5, f64::INFINITY, "particle index 5"),
        (names::TORQUE[0], 2, f64::NAN, "not finite"),
        (names::FORCE[last], 1, f64::NEG_INFINITY, "not finite"),
        (vertical, 4, 1.0, "outside the domain"),
        (vertical, 4, f64::NAN, "outside the domain"),
        ("p.inv_inertia", 6, 1.0, "moment of inertia"),
        ("p.radius", 0, -1.0, "radius"),
        ("contact.xi", DIM - 1, f64::NAN, "tangential spring NaN"),
        ("wallc.xi", 0, f64::INFINITY, "tangential spring inf"),
        ("walls", 0, f64::NAN, ""),
        ("config", 0, -1.0, "time step"),
    ];
    if DIM == 3 {
        cases.extend([
            ("contact.xi", 2, f64::NAN, "z component"),
            // A plane's normal (values 4..7 of the first wall) that is no unit vector.
            ("walls", 6, 2.0, "unit vector"),
            // The cylinder's radius.
            ("walls", 11 + 7, -1.0, "radius"),
        ]);
    }
    for (name, k, v, words) in cases {
        let mut bad = Saved(good.0.clone());
        set_f64(&mut bad, name, k, v);
        let msg = refused(&bad);
        let blamed = if name == "walls" && k > 0 { "config" } else { name };
        assert!(
            msg.starts_with(&format!("{blamed}: ")) && msg.contains(words),
            "{name}[{k}] = {v}: {msg}"
        );
    }
    // Whole sections: missing, the wrong length, a code out of range.
    let mut bad = Saved(good.0.clone());
    bad.0.remove(names::POS[last]);
    assert_eq!(refused(&bad), format!("{}: missing", names::POS[last]));
    let mut bad = Saved(good.0.clone());
    bad.0.get_mut(names::ENDS[last]).unwrap().truncate(16);
    assert!(refused(&bad).starts_with(names::ENDS[last]), "{}", refused(&bad));
    let mut bad = Saved(good.0.clone());
    bad.0.get_mut("config").unwrap()[8 * (CONFIG_LAST)..].copy_from_slice(&7u64.to_ne_bytes());
    assert!(refused(&bad).starts_with("config: "), "{}", refused(&bad));
    if DIM == 3 {
        // Polygon shapes announced to the sphere engine.
        let mut bad = Saved(good.0.clone());
        bad.0.get_mut("scalars").unwrap()[8 * 10..8 * 11].copy_from_slice(&1u64.to_ne_bytes());
        assert!(
            refused(&bad).starts_with("scalars: polygon shapes"),
            "{}",
            refused(&bad)
        );
    }
    let mut bad = Saved(good.0.clone());
    bad.0.get_mut("wallc.w").unwrap()[..2].copy_from_slice(&9u16.to_ne_bytes());
    assert!(refused(&bad).contains("wall 9 of"), "{}", refused(&bad));
}

/// The Gear history is checked as the store is: a NaN or a missing array is refused by
/// the name of its section (the last rotational degree of freedom: `gear.b.angle` in 2D,
/// `gear.b.angle.z` in 3D).
#[test]
fn forged_gear_history_is_refused_by_name() {
    let mut sim = bed(NeighborMethod::Sweep, Integrator::Gear);
    sim.run(N).unwrap();
    let good = save(&sim);
    assert!(Simulation::from_sections(&good).is_ok());
    let name = names::GEAR[1][LOADS - 1];
    let mut bad = Saved(good.0.clone());
    set_f64(&mut bad, name, 7, f64::NAN);
    let msg = refused(&bad);
    assert!(
        msg.starts_with(&format!("{name}: particle index 7")) && msg.contains("not finite"),
        "{msg}"
    );
    let mut bad = Saved(good.0.clone());
    bad.0.remove(names::GEAR[3][0]);
    assert_eq!(refused(&bad), format!("{}: missing", names::GEAR[3][0]));
}

/// The last word of the config section (rejection in 2D, normal model in 3D).
const CONFIG_LAST: usize = 3 * DIM + 6;

/// Every method of the build has one checkpoint code; in 3D the methods that had
/// checkpoints before the octree keep their codes.
#[test]
fn every_method_has_one_checkpoint_code() {
    let codes = super::state_records::METHOD_CODES;
    assert_eq!(codes.len(), NeighborMethod::ALL.len());
    for m in NeighborMethod::ALL {
        assert_eq!(codes.iter().filter(|&c| c == m).count(), 1, "{}", m.name());
    }
    if DIM == 3 {
        let old = ["sweep", "cells", "verlet", "brute"];
        assert_eq!(codes[..4].iter().map(|m| m.name()).collect::<Vec<_>>(), old);
    } else {
        assert_eq!(codes, NeighborMethod::ALL);
    }
}

/// A stream poured over the bed: 2 grains every 100 steps from step 10, 16 in all (the
/// last event at step 710), into a box above it (between the side walls, inside the
/// cylinder in 3D).
fn poured_bed() -> Simulation {
    let mut sim = bed(NeighborMethod::ALL[0], Integrator::Verlet);
    let (lo, hi) = if DIM == 2 {
        ([-13e-3, 31.5e-3, 0.0], [13e-3, 39.5e-3, 0.0])
    } else {
        ([-4.5e-3, -4.5e-3, 24e-3], [4.5e-3, 4.5e-3, 36e-3])
    };
    let mut velocity = [0.0; DIM];
    velocity[DIM - 1] = -0.5;
    sim.add_insertion(crate::insert::InsertSpec {
        region_min: std::array::from_fn(|a| lo[a]),
        region_max: std::array::from_fn(|a| hi[a]),
        radius: crate::generate::RadiusDist::Uniform { mean: R, width: 0.1 },
        #[cfg(not(feature = "dim3"))]
        shape: crate::generate::ShapeSpec::Disc,
        material: 0,
        ptype: 2,
        velocity,
        velocity_jitter: 0.1,
        amount: crate::insert::Amount::PerInsert(2),
        every: 100,
        start_step: 10,
        stop_step: None,
        total: Some(16),
        seed: 17,
        attempts: 50,
    })
    .unwrap();
    sim
}

#[test]
fn a_restart_in_the_middle_of_a_stream_continues_it_bitwise() {
    let end = 800;
    let mut straight = poured_bed();
    straight.run(end).unwrap();
    assert_eq!(straight.len(), 216, "the stream's 16 are in");
    let c = straight.insertions()[0].counts;
    assert_eq!((c.events, c.inserted, c.short_events), (8, 16, 0));
    let mut ids: Vec<u64> = straight.particles.id.clone();
    ids.sort_unstable();
    assert_eq!(ids, (1..=216).collect::<Vec<u64>>(), "ids go on from the bed's");
    // Between events, and at an event's step (saved before it inserts).
    for at in [400, 410] {
        let mut first = poured_bed();
        first.run(at).unwrap();
        assert!(first.len() > 200 && first.len() < 216, "{at}: mid-stream");
        let saved = save(&first);
        drop(first);
        let mut restored = Simulation::from_sections(&saved).unwrap();
        restored.run(end - at).unwrap();
        let what = format!("restart at {at}");
        let (a, b) = (&restored.particles, &straight.particles);
        assert_eq!(a.id, b.id, "{what}: ids");
        same_bits(&a.pos, &b.pos, &format!("{what}: positions"));
        same_bits(&a.vel, &b.vel, &format!("{what}: velocities"));
        same_bits(&a.omega, &b.omega, &format!("{what}: spins"));
        same_bits(
            std::slice::from_ref(&a.radius),
            std::slice::from_ref(&b.radius),
            &format!("{what}: radii"),
        );
        assert_eq!(restored.insertions(), straight.insertions(), "{what}: streams");
        assert_same_state(&restored, &straight, &what);
    }
}

#[test]
fn forged_insertion_sections_are_refused_by_name() {
    let mut sim = poured_bed();
    sim.run(200).unwrap();
    let good = save(&sim);
    // More inserted than requested.
    let mut bad = Saved(good.0.clone());
    bad.0.get_mut("insert.state").unwrap()[8 * 2..8 * 3].copy_from_slice(&99u64.to_ne_bytes());
    assert!(refused(&bad).starts_with("insert.state: "), "{}", refused(&bad));
    // A region out of the domain (its first word: the low x).
    let mut bad = Saved(good.0.clone());
    bad.0.get_mut("insert.spec").unwrap()[8..16].copy_from_slice(&(-1.0f64).to_bits().to_ne_bytes());
    assert!(refused(&bad).contains("inside the domain"), "{}", refused(&bad));
    // A record cut short.
    let mut bad = Saved(good.0.clone());
    bad.0.get_mut("insert.spec").unwrap().truncate(8 * 10);
    assert!(refused(&bad).starts_with("insert.spec: "), "{}", refused(&bad));
}

/// The bed with cohesion and rolling resistance on every pair (grains and walls), under
/// `model`.
fn sticky_bed(neighbor: NeighborMethod, integrator: Integrator, model: RollingModel) -> Simulation {
    let mut sim = bed(neighbor, integrator);
    let mut table = sim.pair_table().clone();
    table.rolling = model;
    // 2D: a fifth of the spring's force at any overlap (Hooke, chord ~ overlap^(1/2)
    // past a few % of R). 3D (Hertz): the crossing area grows as the overlap, the spring
    // as its 3/2 power, so cohesion holds the pair at (k pi sqrt(R) / kn)^2 = 0.1 um.
    let cohesion = if DIM == 2 { 2e-3 * KN } else { 3e-3 * KN };
    let extras = PairExtras {
        cohesion,
        rolling_friction: 0.3,
    };
    let p = *table.get(0, 0);
    table.set(0, 0, p, extras);
    // 3D under cdt: sjkr2's cohesion (2 pi (2 R*) delta), so that the restart carries it.
    if DIM == 3 && model == RollingModel::ConstantTorque {
        table.cohesion = talus_kernels::contact::CohesionModel::Sjkr2;
    }
    sim.set_pair_table(table).unwrap();
    sim
}

/// A restart keeps the pair table and the rolling torques kept in pairs and wall contacts:
/// bitwise the straight run, under both rolling laws (3D: and sjkr2's cohesion). A table
/// forged with a negative cohesion or an unknown law (2D: sjkr2), or torques without a
/// table that has extras, are refused by name.
#[test]
fn restart_with_cohesion_and_rolling_is_bitwise_the_straight_run() {
    for model in [RollingModel::ElasticPlastic, RollingModel::ConstantTorque] {
        for method in [NeighborMethod::Sweep, NeighborMethod::Cells] {
            let what = &format!("{model:?} {}", method.name());
            let mut first = sticky_bed(method, Integrator::Verlet, model);
            first.run(N).unwrap();
            let held = |m: &[[f64; ANG]]| m.iter().filter(|m| m.iter().any(|&c| c != 0.0)).count();
            if model == RollingModel::ElasticPlastic {
                assert!(held(&first.contacts.rolling) > 10, "{what}: too few rolling torques");
                assert!(held(&first.wall_contacts.rolling) > 3, "{what}: too few wall torques");
            }
            let saved = save(&first);
            assert!(saved.0.contains_key("pair.table") && saved.0.contains_key("contact.rolling"));
            let first_table = &first.pair_table().clone();
            drop(first);
            let mut restored = Simulation::from_sections(&saved).unwrap();
            assert_eq!(restored.pair_table(), first_table, "{what}");
            restored.run(M).unwrap();
            let mut straight = sticky_bed(method, Integrator::Verlet, model);
            straight.run(N + M).unwrap();
            let (a, b) = (&restored.particles, &straight.particles);
            same_bits(&a.pos, &b.pos, &format!("{what}: positions"));
            same_bits(&a.omega, &b.omega, &format!("{what}: spins"));
            let flat = |m: &[[f64; ANG]]| vec![m.iter().flatten().copied().collect::<Vec<f64>>()];
            same_bits(
                &flat(&restored.contacts.rolling),
                &flat(&straight.contacts.rolling),
                &format!("{what}: rolling torques"),
            );
            assert_same_state(&restored, &straight, what);

            let mut bad = Saved(saved.0.clone());
            // Word 1 + 5: the first pair's cohesion.
            set_f64(&mut bad, "pair.table", 6, -1.0);
            let msg = refused(&bad);
            assert!(
                msg.starts_with("pair.table: ") && msg.contains("cohesion = -1"),
                "{msg}"
            );
            let mut bad = Saved(saved.0.clone());
            set_f64(&mut bad, "pair.table", 0, 4.0);
            assert!(refused(&bad).contains("laws 4, not 0 to 3"), "{}", refused(&bad));
            if DIM == 2 {
                // sjkr2 is for spheres.
                set_f64(&mut bad, "pair.table", 0, 2.0);
                assert!(refused(&bad).contains("sjkr2 is for spheres"), "{}", refused(&bad));
            }
            let mut bad = Saved(saved.0.clone());
            bad.0.remove("pair.table");
            let msg = refused(&bad);
            assert!(msg.starts_with("contact.rolling: "), "{msg}");
            let mut bad = Saved(saved.0.clone());
            set_f64(&mut bad, "contact.rolling", 0, f64::NAN);
            assert!(refused(&bad).contains("not finite"), "{}", refused(&bad));
        }
    }
}

/// The bed with its floor vibrating (a sine, 0.2 mm at 100 Hz) and, in 2D, a side wall
/// pushed in at 0.1 m/s and the other under a servo.
fn vibrated_bed(neighbor: NeighborMethod, integrator: Integrator) -> Simulation {
    use crate::wall_motion::Displacement;
    let mut sim = bed(neighbor, integrator);
    let up: [f64; DIM] = std::array::from_fn(|a| if a == DIM - 1 { 1.0 } else { 0.0 });
    let sine = Displacement::Sine {
        amplitude: 2e-4,
        frequency: 100.0,
        phase: 0.0,
    };
    sim.move_wall(0, up, sine).unwrap();
    if DIM == 2 {
        let right: [f64; DIM] = std::array::from_fn(|a| if a == 0 { 1.0 } else { 0.0 });
        sim.move_wall(1, right, Displacement::Velocity(0.1)).unwrap();
        // The right wall pushed in by a servo to 0.05 N.
        let servo = crate::wall_motion::Servo {
            target: 0.05,
            gain: 0.02,
            max_speed: 0.2,
        };
        sim.servo_wall(2, right.map(|x| -x), servo).unwrap();
    }
    sim
}

/// A restart keeps the walls' motions and poses: bitwise the straight run. A motion whose
/// table goes back in time is refused by name.
#[test]
fn restart_with_moving_walls_is_bitwise_the_straight_run() {
    for method in [NeighborMethod::Sweep, NeighborMethod::Quadtree] {
        let what = method.name();
        let mut first = vibrated_bed(method, Integrator::Verlet);
        first.run(N).unwrap();
        let saved = save(&first);
        assert!(saved.0.contains_key("walls.motion") && saved.0.contains_key("walls.listed"));
        drop(first);
        let mut restored = Simulation::from_sections(&saved).unwrap();
        assert_eq!(restored.wall_motions().len(), if DIM == 2 { 2 } else { 1 });
        assert_eq!(restored.wall_servos().len(), if DIM == 2 { 1 } else { 0 });
        restored.run(M).unwrap();
        let mut straight = vibrated_bed(method, Integrator::Verlet);
        straight.run(N + M).unwrap();
        let (a, b) = (&restored.particles, &straight.particles);
        same_bits(&a.pos, &b.pos, &format!("{what}: positions"));
        same_bits(&a.vel, &b.vel, &format!("{what}: velocities"));
        assert_eq!(restored.walls, straight.walls, "{what}: walls");
        assert_same_state(&restored, &straight, what);
    }
    // A table going back in time, as a forged file would have it.
    let mut sim = bed(NeighborMethod::Sweep, Integrator::Verlet);
    let up: [f64; DIM] = std::array::from_fn(|a| if a == DIM - 1 { 1.0 } else { 0.0 });
    let table = crate::wall_motion::Displacement::Table(vec![[0.0, 0.0], [1.0, 1e-3]]);
    sim.move_wall(0, up, table).unwrap();
    let mut bad = save(&sim);
    // Words: wall, direction, origin, kind, count, then t0 s0 t1 s1: t1 set before t0.
    set_f64(&mut bad, "walls.motion", 1 + 2 * DIM + 2 + 2, -1.0);
    let msg = refused(&bad);
    assert!(
        msg.starts_with("walls.motion: ") && msg.contains("table row 1"),
        "{msg}"
    );
}

/// What a stage changes (a wall taken away, a motion begun late, gravity turned, 2D a
/// servo to a stress) is kept by a restart: bitwise the straight run. A removed wall that moves, and a motion
/// starting before time 0, are refused by name.
#[test]
fn restart_after_stage_changes_is_bitwise_the_straight_run() {
    let up: [f64; DIM] = std::array::from_fn(|a| if a == DIM - 1 { 1.0 } else { 0.0 });
    let staged = || {
        let mut sim = bed(NeighborMethod::Sweep, Integrator::Verlet);
        sim.run(N / 2).unwrap();
        let last = sim.walls.len() - 1;
        sim.remove_wall(last).unwrap();
        sim.move_wall(0, up, crate::wall_motion::Displacement::Velocity(0.02))
            .unwrap();
        let mut g = [0.0; DIM];
        g[0] = 2.0;
        g[DIM - 1] = -9.81;
        sim.set_gravity(g).unwrap();
        // 2D: the left wall under a servo to a stress over an extent the floor and it
        // span (the checkpoint keeps the pairs; the geometry is of no matter here).
        #[cfg(not(feature = "dim3"))]
        {
            let servo = crate::wall_motion::Servo {
                target: 2.0,
                gain: 0.02,
                max_speed: 0.2,
            };
            sim.servo_face(1, [1.0, 0.0], servo, vec![[0, 1]]).unwrap();
        }
        sim
    };
    let mut first = staged();
    first.run(N / 2).unwrap();
    let saved = save(&first);
    assert!(saved.0.contains_key("walls.removed") && saved.0.contains_key("walls.motion.start"));
    assert_eq!(saved.0.contains_key("walls.servo.across"), DIM == 2);
    let mut restored = Simulation::from_sections(&saved).unwrap();
    assert!(restored.walls.last().unwrap().removed);
    restored.run(M).unwrap();
    let mut straight = staged();
    straight.run(N / 2 + M).unwrap();
    let (a, b) = (&restored.particles, &straight.particles);
    same_bits(&a.pos, &b.pos, "positions");
    same_bits(&a.vel, &b.vel, "velocities");
    assert_eq!(restored.walls, straight.walls, "walls");
    assert_same_state(&restored, &straight, "staged");
    let mut bad = saved.clone();
    set_f64(&mut bad, "walls.removed", 0, 0.0);
    let msg = refused(&bad);
    assert!(msg.contains("wall 0 is removed, yet it moves"), "{msg}");
    let mut bad = saved.clone();
    set_f64(&mut bad, "walls.motion.start", 0, -1.0);
    let msg = refused(&bad);
    assert!(msg.starts_with("walls.motion.start: motion 0"), "{msg}");
}

#[path = "state_tests_turns.rs"]
mod turns;
