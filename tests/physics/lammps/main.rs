//! talus against LAMMPS on identical 3D input (issue 19): the collapse of 1,000 spheres
//! in simple-cubic columns (`in.s3d_collapse`, the start of the S3D base bed's recipe),
//! read by both codes from the same data file (`data/s3d_collapse_start.data`, written by
//! that deck), with the same contact law, walls and time step. LAMMPS 22Jul2025's
//! measurements every 500 steps are in `s3d_collapse_lammps.csv`.
//!
//! The free fall before the first contact is deterministic: both codes give the same
//! energy to rounding. Once the columns buckle the two runs part ways grain by grain (a
//! collapse is chaotic: the order of force sums alone decides which column falls
//! first), so from then on the bed's measures are compared, not the grains: the height
//! of its centre of mass and of its top, its kinetic energy, its contacts.
use std::path::Path;

use talus_io3d::build::build;
use talus_io3d::scenario::load_scenario;

/// One row of the LAMMPS thermo output.
#[derive(Debug, Clone, Copy)]
struct Row {
    step: u64,
    kinetic: f64,
    com: [f64; 3],
    zmax: f64,
    /// Contacts per particle summed (2 x touching pairs).
    contact_ends: f64,
}

fn lammps_rows() -> Vec<Row> {
    let text = include_str!("s3d_collapse_lammps.csv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("step"))
        .map(|l| {
            let f: Vec<f64> = l.split(',').map(|x| x.parse().unwrap()).collect();
            Row {
                step: f[0] as u64,
                kinetic: f[1],
                com: [f[3], f[4], f[5]],
                zmax: f[6],
                contact_ends: f[7],
            }
        })
        .collect()
}

#[test]
fn the_collapse_of_the_s3d_columns_measures_as_in_lammps() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/physics/lammps/s3d_collapse.toml");
    let scenario = load_scenario(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = build(&scenario, &path).unwrap_or_else(|e| panic!("{e}")).sim;
    assert_eq!(sim.len(), 1000);
    let reference = lammps_rows();
    let mut rows = Vec::new();
    for r in &reference {
        sim.run(r.step - sim.step).unwrap();
        let ps = &sim.particles;
        let n = ps.len() as f64;
        let com: [f64; 3] = std::array::from_fn(|a| ps.pos[a].iter().sum::<f64>() / n);
        // LAMMPS' bound(all,zmax): the highest centre.
        let zmax = ps.pos[2].iter().copied().fold(f64::MIN, f64::max);
        let e = sim.energies();
        rows.push(Row {
            step: sim.step,
            // LAMMPS' ke is the translational energy.
            kinetic: e.kinetic,
            com,
            zmax,
            contact_ends: 2.0 * e.contacts as f64,
        });
    }
    let drop = reference[0].com[2] - reference.last().unwrap().com[2];
    // Contacts in the second half of the run (the grains have parted ways by then):
    // the same on average, within 10 %.
    let half = |r: &[Row]| {
        let late: Vec<f64> = r.iter().filter(|x| x.step >= 7000).map(|x| x.contact_ends).collect();
        late.iter().sum::<f64>() / late.len() as f64
    };
    let (ours, theirs) = (half(&rows), half(&reference));
    assert!(
        (ours - theirs).abs() < 0.1 * theirs,
        "contacts per sample, steps 7000 on: {ours} against {theirs}"
    );
    for (t, l) in rows.iter().zip(&reference) {
        eprintln!(
            "step {:>6}: kinetic {:.4e} / {:.4e}  com z {:.6e} / {:.6e}  top {:.6e} / {:.6e}  contacts {} / {}",
            t.step, t.kinetic, l.kinetic, t.com[2], l.com[2], t.zmax, l.zmax, t.contact_ends, l.contact_ends
        );
    }
    for (t, l) in rows.iter().zip(&reference) {
        if l.contact_ends == 0.0 && l.step <= 2000 {
            // Free fall: the same numbers but for rounding.
            assert!(
                (t.kinetic - l.kinetic).abs() <= 1e-6 * l.kinetic.max(1e-300) || l.kinetic == 0.0,
                "step {}: kinetic {} against {}",
                t.step,
                t.kinetic,
                l.kinetic
            );
            assert!((t.com[2] - l.com[2]).abs() < 1e-9 * l.com[2], "step {}", t.step);
        }
        // The centre of mass falls as LAMMPS': within 1 % of the whole drop at every
        // sample (the two runs measured 0.3 % apart at most), over the middle of the
        // box; the top within a twentieth of a radius, the kinetic energy within 10 %.
        assert!(
            (t.com[2] - l.com[2]).abs() < 0.01 * drop,
            "step {}: centre of mass at z = {} against {} (drop {drop})",
            t.step,
            t.com[2],
            l.com[2]
        );
        for a in 0..2 {
            assert!((t.com[a] - l.com[a]).abs() < 0.01 * drop, "step {}: com[{a}]", t.step);
        }
        assert!(
            (t.zmax - l.zmax).abs() < 0.025e-3,
            "step {}: top {} against {}",
            t.step,
            t.zmax,
            l.zmax
        );
        assert!(
            (t.kinetic - l.kinetic).abs() <= 0.1 * l.kinetic,
            "step {}: kinetic {} against {}",
            t.step,
            t.kinetic,
            l.kinetic
        );
    }
}
