//! Tests of `lammps_data.rs`.
use super::*;
use std::io::Write;

fn write_tmp(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f.flush().unwrap();
    f
}

fn read_str(text: &str) -> Result<LammpsData> {
    let f = write_tmp(text);
    read_lammps_data(f.path())
}

/// Asserts a Parse error at `line` whose message contains `needle`.
fn expect_parse_err(text: &str, line: usize, needle: &str) {
    let f = write_tmp(text);
    match read_lammps_data(f.path()) {
        Err(IoError::Parse { path, line: l, msg }) => {
            assert_eq!(path, f.path());
            assert_eq!(l, line, "wrong line for error '{msg}'");
            assert!(msg.contains(needle), "message '{msg}' lacks '{needle}'");
        }
        other => panic!("expected a parse error containing '{needle}', got {other:?}"),
    }
}

const SMALL: &str = "\
LAMMPS data file via write_data, version 29 Sep 2021, timestep = 0

3 atoms
2 atom types

0 2 xlo xhi
-1 1.5 ylo yhi   # a trailing comment
-0.5 0.5 zlo zhi

Masses

1 1.0
2 2.0

Atoms # sphere

5 1 0.2 1000 0.5 0.25 0 0 0 0
3 2 0.4 2000 1.5 -0.5 0
9 1 1e-1 3e3 1.25 1.0 0 1 -1 0  # image flags

Pair Coeffs # granular

1 1 1
2 2 2

Velocities

9 1.5 -2.5 0 0 0 7.0
3 0 0 0 0 0 0
5 0.1 0.2 0 0 0 -3e-2
";

#[test]
fn reads_small_file() {
    let d = read_str(SMALL).unwrap();
    assert_eq!(d.len(), 3);
    assert_eq!(d.ids, vec![5, 3, 9]);
    assert_eq!(d.types, vec![1, 2, 1]);
    assert_eq!(d.radius, vec![0.1, 0.2, 0.05]);
    let sphere = |diam: f64, rho: f64| rho * PI * diam.powi(3) / 6.0;
    for (m, want) in d
        .mass
        .iter()
        .zip([sphere(0.2, 1000.0), sphere(0.4, 2000.0), sphere(0.1, 3000.0)])
    {
        assert!((m - want).abs() <= 1e-15 * want, "{m} vs {want}");
    }
    assert_eq!(d.x, vec![0.5, 1.5, 1.25]);
    assert_eq!(d.y, vec![0.25, -0.5, 1.0]);
    assert_eq!(d.z, vec![0.0; 3]);
    // Velocities matched by id; atom 3's is zero.
    assert_eq!(d.vx, vec![0.1, 0.0, 1.5]);
    assert_eq!(d.vy, vec![0.2, 0.0, -2.5]);
    assert_eq!(d.wz, vec![-3e-2, 0.0, 7.0]);
    assert_eq!(d.box_lo, [0.0, -1.0, -0.5]);
    assert_eq!(d.box_hi, [2.0, 1.5, 0.5]);
}

#[test]
fn no_velocities_section_means_at_rest() {
    let text = "title\n2 atoms\nAtoms\n\n1 1 1 1 0 0 0\n2 1 1 1 1 0 0\n";
    let d = read_str(text).unwrap();
    assert_eq!(d.vx, vec![0.0; 2]);
    assert_eq!(d.vy, vec![0.0; 2]);
    assert_eq!(d.wz, vec![0.0; 2]);
    assert_eq!(d.box_lo, [-0.5; 3]);
    assert_eq!(d.box_hi, [0.5; 3]);
}

#[test]
fn windows_line_endings() {
    let d = read_str(&SMALL.replace('\n', "\r\n")).unwrap();
    assert_eq!(d.ids, vec![5, 3, 9]);
    assert_eq!(d.wz, vec![-3e-2, 0.0, 7.0]);
}

// Small files with one defect each; line numbers are 1-based lines of these strings.
const HEAD: &str = "title\n2 atoms\n1 atom types\n0 1 xlo xhi\n\nAtoms # sphere\n\n";

#[test]
fn error_wrong_column_count() {
    expect_parse_err(&format!("{HEAD}1 1 1 1 0 0\n2 1 1 1 0 0 0\n"), 8, "6 columns");
    expect_parse_err(&format!("{HEAD}1 1 1 1 0 0 0 0 0\n2 1 1 1 0 0 0\n"), 8, "9 columns");
    expect_parse_err(
        &format!("{HEAD}1 1 1 1 0 0 0\n2 1 1 1 0 0 0\n\nVelocities\n\n1 0 0 0 0 0\n"),
        13,
        "6 columns",
    );
}

#[test]
fn error_unparsable_number() {
    expect_parse_err(&format!("{HEAD}1 1 1 1 0 0 0\n2 1 1 1 0 abc 0\n"), 9, "'abc'");
    expect_parse_err(&format!("{HEAD}1 1 1 1 0 0 0\n2 1 1 1 0 1.0.0 0\n"), 9, "y");
    expect_parse_err(&format!("{HEAD}1 1 1 1 0 0 0\n2 1 1 1 0 nan 0\n"), 9, "not finite");
    expect_parse_err(&format!("{HEAD}1 x 1 1 0 0 0\n2 1 1 1 0 0 0\n"), 8, "atom type");
    expect_parse_err(&format!("{HEAD}1 1 1 1 0 0 0 0 0.5 0\n2 1 1 1 0 0 0\n"), 8, "iy");
    expect_parse_err("title\nmany atoms\nAtoms\n", 2, "unknown section");
    expect_parse_err("title\n2.5 atoms\n", 2, "atom count");
}

#[test]
fn error_non_positive_diameter_or_density() {
    expect_parse_err(&format!("{HEAD}1 1 0 1 0 0 0\n2 1 1 1 0 0 0\n"), 8, "diameter");
    expect_parse_err(&format!("{HEAD}1 1 1 1 0 0 0\n2 1 1 -5 0 0 0\n"), 9, "density");
}

#[test]
fn error_duplicate_id() {
    expect_parse_err(
        &format!("{HEAD}7 1 1 1 0 0 0\n7 1 1 1 0 0 0\n"),
        9,
        "duplicate atom id 7",
    );
    expect_parse_err(
        &format!("{HEAD}1 1 1 1 0 0 0\n2 1 1 1 0 0 0\nVelocities\n1 0 0 0 0 0 0\n1 0 0 0 0 0 0\n"),
        12,
        "duplicate velocity",
    );
}

#[test]
fn error_velocity_for_unknown_id() {
    expect_parse_err(
        &format!("{HEAD}1 1 1 1 0 0 0\n2 1 1 1 0 0 0\n\nVelocities\n\n3 0 0 0 0 0 0\n"),
        13,
        "atom id 3",
    );
}

#[test]
fn error_atom_count_mismatch() {
    expect_parse_err(&format!("{HEAD}1 1 1 1 0 0 0\n"), 2, "header declares 2 atoms");
    expect_parse_err(
        &format!("{HEAD}1 1 1 1 0 0 0\n2 1 1 1 0 0 0\n3 1 1 1 0 0 0\n"),
        2,
        "Atoms section has 3",
    );
}

#[test]
fn error_missing_atoms_section() {
    expect_parse_err(
        "title\n2 atoms\n0 1 xlo xhi\n\nMasses\n\n1 1.0\n",
        7,
        "no Atoms section",
    );
    expect_parse_err("title\nAtoms\n\n1 1 1 1 0 0 0\n", 2, "no 'N atoms'");
}

#[test]
fn error_wrong_atom_style() {
    expect_parse_err(
        "title\n1 atoms\n\nAtoms # atomic\n\n1 1 0 0 0\n",
        4,
        "atom style 'atomic'",
    );
}

#[test]
fn error_misc() {
    expect_parse_err("title\n1 atoms\n1 0 xlo xhi\n", 3, "not below");
    expect_parse_err("title\n1 atoms\n0 1 0 xy xz yz\n", 3, "triclinic");
    expect_parse_err(
        "title\n1 atoms\n1 atom types\nAtoms\n1 2 1 1 0 0 0\n",
        5,
        "out of range",
    );
    expect_parse_err("title\n1 atoms\nVelocities\n", 3, "before the Atoms");
}

/// The particle store keeps types in 16 bits: a type above 65535 is refused at its
/// line, declared or not, instead of being cut down to 65535; 65535 itself is kept.
#[test]
fn error_type_above_16_bits() {
    let head = "title\n2 atoms\n0 1 xlo xhi\n\nAtoms # sphere\n\n";
    expect_parse_err(
        &format!("{head}1 1 1 1 0 0 0\n2 65536 1 1 0 0 0\n"),
        8,
        "Atoms section: atom type 65536 is above 65535, the largest type talus can store",
    );
    let declared = head.replace("2 atoms\n", "2 atoms\n70000 atom types\n");
    expect_parse_err(
        &format!("{declared}1 70000 1 1 0 0 0\n2 1 1 1 0 0 0\n"),
        8,
        "atom type 70000",
    );
    let top = read_str(&format!("{head}1 65535 1 1 0 0 0\n2 1 1 1 0 0 0\n")).unwrap();
    assert_eq!(top.types, vec![65535, 1]);
    assert_eq!(top.particle_inits(0)[0].ptype, 65535);
}

/// A Velocities section that leaves atoms out used to start them at rest silently; as
/// in LAMMPS, every atom needs its line.
#[test]
fn error_velocities_for_some_atoms_only() {
    let head = HEAD.replace("2 atoms", "3 atoms");
    let atoms = "1 1 1 1 0 0 0\n2 1 1 1 2 0 0\n3 1 1 1 4 0 0\n";
    expect_parse_err(
        &format!("{head}{atoms}\nVelocities\n\n3 1 0 0 0 0 0\n"),
        12,
        "gives 1 of the 3 atoms a velocity: 2 atoms have none, e.g. atom 1 (line 8)",
    );
    expect_parse_err(
        &format!("{head}{atoms}\nVelocities\n\n3 1 0 0 0 0 0\n1 0 0 0 0 0 0\n"),
        12,
        "1 atom has none, e.g. atom 2 (line 9)",
    );
    let all = read_str(&format!(
        "{head}{atoms}\nVelocities\n\n3 1 0 0 0 0 0\n1 0 0 0 0 0 0\n2 0 0 0 0 0 0\n"
    ))
    .unwrap();
    assert_eq!(all.vx, vec![0.0, 0.0, 1.0]);
}

/// A 2D file has every atom at z = 0 and nothing moving out of the plane: anything
/// else is refused at its line (it used to be dropped silently).
#[test]
#[cfg(not(feature = "dim3"))]
fn error_out_of_plane_values() {
    expect_parse_err(
        &format!("{HEAD}1 1 1 1 0 0 0\n2 1 1 1 2 0 0.5\n"),
        9,
        "atom 2 has z = 0.5: talus reads 2D data files",
    );
    expect_parse_err(
        &format!("{HEAD}1 1 1 1 0 0 -1e-9 0 0 0\n2 1 1 1 2 0 0\n"),
        8,
        "set the z column to 0",
    );
    let atoms = "1 1 1 1 0 0 0\n2 1 1 1 2 0 0\n\nVelocities\n\n";
    for (row, what) in [
        ("2 0 0 0.1 0 0 0", "vz = 0.1"),
        ("2 0 0 0 3 0 0", "wx = 3"),
        ("2 0 0 0 0 -2 0", "wy = -2"),
    ] {
        expect_parse_err(
            &format!("{HEAD}{atoms}1 0 0 0 0 0 0\n{row}\n"),
            14,
            &format!("atom 2 has {what}: a 2D data file"),
        );
    }
    // The 3D bed shipped in data/ is refused at its first atom.
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/s3d_base.data");
    match read_lammps_data(&p) {
        Err(IoError::Parse { line: 12, msg, .. }) => assert!(msg.contains("atom 1 has z = 0.0004999"), "{msg}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn missing_file_is_os_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("nope.data");
    match read_lammps_data(&p) {
        Err(IoError::Os { path, .. }) => assert_eq!(path, p),
        other => panic!("expected Os error, got {other:?}"),
    }
}

/// The LAMMPS reference packing shipped in data/.
#[test]
fn reads_reference_packing() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/s2d_base.data");
    let d = read_lammps_data(&p).unwrap();
    assert_eq!(d.len(), 10_000);
    assert_eq!(d.box_lo, [0.0, -0.002, -0.0005]);
    assert_eq!(d.box_hi, [0.306525, 0.274137748154254, 0.0005]);
    assert_eq!(d.ids[0], 1);
    assert_eq!(d.types[0], 1);
    let r = d.radius[0];
    assert!((2.0 * r - 1.51067e-3).abs() < 1e-8);
    // The packing was built as 2D discs of areal density 2500 kg/m^2.
    for i in 0..d.len() {
        let want = 2500.0 * PI * d.radius[i] * d.radius[i];
        assert!((d.mass[i] - want).abs() < 1e-6 * want, "atom {}", d.ids[i]);
    }
    assert!((d.mass[0] - 4.481e-3).abs() < 1e-6);
    assert_eq!(d.vx[0], 2.665948842261892e-09);
    assert_eq!(d.vy[0], -1.2276605486388026e-15);
    assert_eq!(d.wz[0], -3.529492684865908e-06);
    assert_eq!(d.vx[1], 1.9540030402006103e-06);
    assert_eq!(d.wz[1], -0.0007151771284955436);
}

/// The 3D bed shipped in data/ (the peer's S3D base: 5,832 spheres of R = 0.5 mm,
/// 2500 kg/m^3), and its 5 x 2 tiling (the peer's 58,320 bed) as tile.py builds it.
#[test]
#[cfg(feature = "dim3")]
fn reads_and_tiles_the_3d_bed() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/s3d_base.data");
    let d = read_lammps_data(&p).unwrap();
    assert_eq!(d.len(), 5832);
    assert_eq!((d.box_lo, d.box_hi), ([0.0, 0.0, -0.001], [0.0189, 0.0189, 0.0239]));
    for i in 0..d.len() {
        assert_eq!(d.radius[i], 0.5e-3);
        let want = 2500.0 * 4.0 / 3.0 * PI * 0.125e-9;
        assert!((d.mass[i] - want).abs() < 1e-12 * want);
        assert!(d.z[i] > 0.0 && d.z[i] < 0.0239);
    }
    let t = d.tile(5, 2);
    assert_eq!(t.len(), 58_320);
    assert_eq!(t.box_hi, [5.0 * 0.0189, 2.0 * 0.0189, 0.0239]);
    assert_eq!(t.ids, (1..=58_320).collect::<Vec<u64>>());
    // Copy (1, 1) is the base mirrored in x and y, spins turned accordingly.
    let k = d.ids.iter().position(|&i| i == 1).unwrap();
    let q = 6 * 5832;
    assert_eq!(t.x[q], 0.0189 + (0.0189 - d.x[k]));
    assert_eq!(t.y[q], 0.0189 + (0.0189 - d.y[k]));
    assert_eq!((t.z[q], t.vz[q]), (d.z[k], d.vz[k]));
    assert_eq!((t.vx[q], t.vy[q]), (-d.vx[k], -d.vy[k]));
    assert_eq!((t.wx[q], t.wy[q], t.wz[q]), (-d.wx[k], -d.wy[k], d.wz[k]));
}
