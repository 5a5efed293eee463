//! Output shows what was simulated: the polygon corners in the ParaView frames are the
//! engine's world-frame corners, wall bodies are walls (their own series, not particles),
//! the dump's force is the total force, and the energy series' total (with the
//! gravitational potential) stays constant in a free fall.
use std::path::Path;

use talus::engine::Simulation;
use talus::io::build::build;
use talus::io::output::{OutputKinds, Outputs};
use talus::io::scenario::parse_scenario;

#[path = "../common/mod.rs"]
mod common;

fn simulation(text: &str) -> Simulation {
    let sc = parse_scenario(text, Path::new("test.toml")).unwrap_or_else(|e| panic!("{e}"));
    build(&sc, Path::new("test.toml")).unwrap_or_else(|e| panic!("{e}")).sim
}

/// The hopper of scenarios/hopper.toml with 60 grains: two fixed polygon plates, a box.
fn small_hopper() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("scenarios/hopper.toml")).unwrap();
    assert!(text.contains("count = 600"), "scenarios/hopper.toml changed its count");
    text.replace("count = 600", "count = 60")
}

/// The DataArrays of a .vtu with appended raw data: (section, name, raw bytes), the
/// section being "PointData", "CellData", "Points" or "Cells".
fn appended_arrays(bytes: &[u8]) -> (String, Vec<(String, String, Vec<u8>)>) {
    let us = bytes.windows(30).position(|w| w.starts_with(b"<AppendedData")).unwrap();
    let us = us + bytes[us..].iter().position(|&b| b == b'_').unwrap();
    let header = std::str::from_utf8(&bytes[..us]).unwrap().to_string();
    let data = &bytes[us + 1..];
    let mut out = Vec::new();
    let mut section = String::new();
    for line in header.lines().map(str::trim) {
        for s in ["PointData", "CellData", "Points", "Cells"] {
            if line.starts_with(&format!("<{s}")) {
                section = s.to_string();
            }
        }
        if let Some(tag) = line.strip_prefix("<DataArray") {
            let attr = |name: &str| {
                let k = format!(" {name}=\"");
                let at = tag.find(&k).unwrap() + k.len();
                tag[at..at + tag[at..].find('"').unwrap()].to_string()
            };
            let off: usize = attr("offset").parse().unwrap();
            let len = u64::from_le_bytes(data[off..off + 8].try_into().unwrap()) as usize;
            out.push((section.clone(), attr("Name"), data[off + 8..off + 8 + len].to_vec()));
        }
    }
    (header, out)
}

fn array<'a>(arrays: &'a [(String, String, Vec<u8>)], section: &str, name: &str) -> &'a [u8] {
    &arrays
        .iter()
        .find(|a| a.0 == section && a.1 == name)
        .unwrap_or_else(|| panic!("no {section} {name}"))
        .2
}

fn f64s(b: &[u8]) -> Vec<f64> {
    b.chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn i64s(b: &[u8]) -> Vec<i64> {
    b.chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The values of an ASCII DataArray named `name`.
fn ascii_array(text: &str, name: &str) -> Vec<f64> {
    let at = text
        .find(&format!("Name=\"{name}\""))
        .unwrap_or_else(|| panic!("no {name}"));
    let start = at + text[at..].find('>').unwrap() + 1;
    let end = start + text[start..].find("</DataArray>").unwrap();
    text[start..end]
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect()
}

#[test]
fn polygon_frames_show_the_simulated_corners_and_walls_are_walls() {
    let mut sim = simulation(&small_hopper());
    sim.run(300).unwrap();
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

    let ps = &sim.particles;
    let sh = sim.shapes.as_ref().unwrap();
    let grains: Vec<usize> = (0..ps.len()).filter(|&p| ps.flags[p] == 0).collect();
    let bodies: Vec<usize> = (0..ps.len()).filter(|&p| ps.flags[p] != 0).collect();
    assert_eq!((grains.len(), bodies.len()), (60, 2));

    // Particles: one polygon cell per grain, through its world-frame corners.
    let bytes = std::fs::read(dir.path().join("particles_00000300.vtu")).unwrap();
    let (header, arrays) = appended_arrays(&bytes);
    let corners: Vec<[f64; 2]> = grains.iter().flat_map(|&p| sh.world[sh.range(p)].to_vec()).collect();
    assert!(
        header.contains(&format!("NumberOfPoints=\"{}\" NumberOfCells=\"60\"", corners.len())),
        "{header}"
    );
    assert_eq!(array(&arrays, "Cells", "types"), vec![7u8; 60]);
    let offsets = i64s(array(&arrays, "Cells", "offsets"));
    let mut end = 0;
    for (k, &p) in grains.iter().enumerate() {
        end += sh.range(p).len() as i64;
        assert_eq!(offsets[k], end, "cell {k}");
    }
    assert_eq!(
        i64s(array(&arrays, "Cells", "connectivity")),
        (0..corners.len() as i64).collect::<Vec<_>>()
    );
    let points = f64s(array(&arrays, "Points", "Points"));
    let got: Vec<[f64; 2]> = points.chunks_exact(3).map(|c| [c[0], c[1]]).collect();
    assert_eq!(got, corners, "the corners are the engine's world-frame corners");
    let ids = i64s(array(&arrays, "CellData", "id"));
    assert_eq!(ids, grains.iter().map(|&p| ps.id[p] as i64).collect::<Vec<_>>());
    let angle = f64s(array(&arrays, "CellData", "angle"));
    assert_eq!(angle, grains.iter().map(|&p| ps.angle[p]).collect::<Vec<_>>());

    // Walls: the box's three sides (open top) as lines, the two plates as polygons
    // through their corners.
    let text = std::fs::read_to_string(dir.path().join("walls_00000300.vtu")).unwrap();
    assert_eq!(ascii_array(&text, "types"), vec![3.0, 3.0, 3.0, 7.0, 7.0]);
    assert_eq!(ascii_array(&text, "kind"), vec![0.0, 0.0, 0.0, 1.0, 1.0]);
    let pts = ascii_array(&text, "Points");
    let plate_corners: Vec<f64> = bodies
        .iter()
        .flat_map(|&p| sh.world[sh.range(p)].to_vec())
        .flat_map(|c| [c[0], c[1], 0.0])
        .collect();
    assert_eq!(pts[18..].to_vec(), plate_corners);
    // The floor, y = 0 across the domain.
    assert_eq!(pts[..6].to_vec(), vec![0.31, 0.0, 0.0, -0.01, 0.0, 0.0]);
    let pvd = std::fs::read_to_string(dir.path().join("walls.pvd")).unwrap();
    assert!(pvd.contains("walls_00000300.vtu"), "{pvd}");

    // Dump: grains only; fx fy the total force (contacts and gravity).
    let dump = std::fs::read_to_string(dir.path().join("particles.dump")).unwrap();
    let lines: Vec<&str> = dump.lines().collect();
    assert_eq!(lines[3], "60");
    assert!(lines[8].contains("fx fy angle quatw quati quatj quatk"), "{}", lines[8]);
    let g = sim.config.gravity;
    for (row, &p) in lines[9..].iter().zip(&grains) {
        let t: Vec<f64> = row.split(' ').map(|v| v.parse().unwrap()).collect();
        assert_eq!(t[0] as u64, ps.id[p]);
        let m = ps.mass(p);
        assert_eq!([t[10], t[11]], [ps.force[0][p] + m * g[0], ps.force[1][p] + m * g[1]]);
    }
}

/// Three discs falling freely (no walls, no contacts, no damping): kinetic energy grows
/// by what the potential loses, and the total of the energy series stays constant (the
/// velocity Verlet scheme is exact for a constant force, up to rounding).
#[test]
fn free_fall_keeps_the_total_energy() {
    let text = r#"
title = "free fall"
gravity = [0.0, -9.81]
[domain]
min = [0.0, -10.0]
max = [1.0, 10.0]
[[material]]
name = "m"
density = 2500.0
kn = 1.0e6
restitution = 1.0
friction = 0.0
[[particles]]
material = "m"
count = 3
radius = { kind = "uniform", mean = 0.01, width = 0.0 }
packing = "lattice"
region = { min = [0.0, 8.0], max = [1.0, 9.0] }
[run]
steps = 10000
"#;
    let mut sim = simulation(text);
    let dir = tempfile::tempdir().unwrap();
    let kinds = OutputKinds {
        vtk: false,
        dump: false,
        energy: true,
        analysis: None,
        outflow: false,
    };
    let mut out = Outputs::create(dir.path(), kinds).unwrap();
    out.write_energy(&sim).unwrap();
    for _ in 0..20 {
        sim.run(500).unwrap();
        out.write_energy(&sim).unwrap();
    }
    drop(out);
    let csv = std::fs::read_to_string(dir.path().join("energy.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("step,time,kinetic,rotational,elastic,potential,total,contacts")
    );
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 21);
    let (first, last) = (&rows[0], &rows[20]);
    // The grains fell: the kinetic energy grew by metres' worth of potential.
    assert!(last[2] > 10.0 && last[5] < first[5] - 10.0, "{first:?} {last:?}");
    // Potential, independently: m g y of the discs, m = density pi r^2.
    let m = 2500.0 * std::f64::consts::PI * 1e-4;
    let y: f64 = sim.particles.pos[1].iter().sum();
    assert!(
        (last[5] - m * 9.81 * y).abs() < 1e-9 * last[5].abs(),
        "{} vs {}",
        last[5],
        m * 9.81 * y
    );
    for r in &rows {
        assert_eq!(r[6], r[2] + r[3] + r[4] + r[5], "total is the sum");
        assert!(
            (r[6] - first[6]).abs() < 1e-9 * first[6].abs(),
            "total {} at step {}, {} at the start",
            r[6],
            r[0],
            first[6]
        );
    }
}

/// `--energy-every` writes the energy series on its own interval, frames on theirs.
#[test]
fn energy_rows_on_their_own_interval() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = common::grain_box(40, false, false, [0.03, 0.03], 400)
        .replace("vtk = false", "vtk = true")
        .replace("energy = false", "energy = true");
    std::fs::write(dir.path().join("s.toml"), scenario).unwrap();
    let o = common::run(
        &[
            "run",
            "s.toml",
            "--out",
            "o",
            "--every",
            "200",
            "--energy-every",
            "50",
            "-q",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", common::text(&o.stderr));
    let csv = std::fs::read_to_string(dir.path().join("o/energy.csv")).unwrap();
    let steps: Vec<u64> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(steps, (0..=400).step_by(50).collect::<Vec<u64>>());
    let mut frames: Vec<String> = std::fs::read_dir(dir.path().join("o"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("particles_"))
        .collect();
    frames.sort();
    assert_eq!(
        frames,
        [
            "particles_00000000.vtu",
            "particles_00000200.vtu",
            "particles_00000400.vtu"
        ]
    );
    assert!(
        common::text(&o.stdout).contains("particles           40\n"),
        "{}",
        common::text(&o.stdout)
    );
}
