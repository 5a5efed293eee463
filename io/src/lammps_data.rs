//! Reader for LAMMPS data files written by `write_data` with `atom_style sphere`.
//!
//! Kept: per-atom id, type, radius, mass, position, velocity and spin, plus the box. Other
//! sections are skipped.
//!
//! In the 2D build a file must be a 2D one (LAMMPS `dimension 2`): every atom at z = 0, and
//! no velocity along z or spin about x or y: a non-zero z, vz, wx or wy is refused with its
//! line (a 3D file cannot be read as discs; ignoring z would change every distance, as
//! LAMMPS computes them in 3D). The 3D build reads everything. A Velocities section, if there is one, must give every atom's velocity, as
//! LAMMPS' read_data requires; a file without one starts at rest.
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::f64::consts::PI;
use std::path::Path;

use crate::{IoError, Result};

/// The particles of a LAMMPS data file, in the order of its Atoms section.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LammpsData {
    /// Atom ids (positive, unique).
    pub ids: Vec<u64>,
    /// Atom types (>= 1).
    pub types: Vec<u16>,
    /// Radii (half the file's diameters), m.
    pub radius: Vec<f64>,
    /// Masses from diameter and density, as spheres' (see [`read_lammps_data`]), kg.
    pub mass: Vec<f64>,
    /// Positions along x, m.
    pub x: Vec<f64>,
    /// Positions along y, m.
    pub y: Vec<f64>,
    /// Positions along z, m (0 in the 2D build).
    pub z: Vec<f64>,
    /// Velocities along x, m/s (0 without a Velocities section).
    pub vx: Vec<f64>,
    /// Velocities along y, m/s.
    pub vy: Vec<f64>,
    /// Velocities along z, m/s (0 in the 2D build).
    pub vz: Vec<f64>,
    /// Angular velocities about x, rad/s (0 in the 2D build).
    pub wx: Vec<f64>,
    /// Angular velocities about y, rad/s (0 in the 2D build).
    pub wy: Vec<f64>,
    /// Angular velocities about z, rad/s.
    pub wz: Vec<f64>,
    /// Low corner of the box (`xlo xhi` ... lines; LAMMPS' default -0.5 where absent), m.
    pub box_lo: [f64; 3],
    /// High corner of the box (default 0.5), m.
    pub box_hi: [f64; 3],
}

impl LammpsData {
    /// Number of particles.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the file has no particle.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The particles as engine particles of material `material` (ids, types, masses and
    /// velocities from the file).
    pub fn particle_inits(&self, material: u16) -> Vec<talus_engine::ParticleInit> {
        (0..self.len())
            .map(|p| talus_engine::ParticleInit {
                id: self.ids[p],
                #[cfg(not(feature = "dim3"))]
                pos: [self.x[p], self.y[p]],
                #[cfg(feature = "dim3")]
                pos: [self.x[p], self.y[p], self.z[p]],
                angle: 0.0,
                #[cfg(not(feature = "dim3"))]
                vel: [self.vx[p], self.vy[p]],
                #[cfg(feature = "dim3")]
                vel: [self.vx[p], self.vy[p], self.vz[p]],
                #[cfg(not(feature = "dim3"))]
                omega: [self.wz[p]],
                #[cfg(feature = "dim3")]
                omega: [self.wx[p], self.wy[p], self.wz[p]],
                radius: self.radius[p],
                mass: self.mass[p],
                material,
                ptype: self.types[p],
                flags: 0,
            })
            .collect()
    }

    /// `copies` copies of this bed side by side along x ([`LammpsData::tile`] with one row).
    pub fn tile_x(&self, copies: usize) -> LammpsData {
        self.tile(copies, 1)
    }

    /// `rx` x `ry` copies of this bed, as `shared/peers/lammps/tile.py` builds the peer's
    /// beds: copy (i, j) occupies [i Lx, (i+1) Lx] x [j Ly, (j+1) Ly]; for odd i, x -> Lx - x
    /// (vx, wy, wz change sign), for odd j, y -> Ly - y (vy, wx, wz change sign). Particles
    /// that touched an internal wall meet their own mirror image at the seam, so the tiled
    /// bed is still at rest. Ids are renumbered 1..N in copy order.
    pub fn tile(&self, rx: usize, ry: usize) -> LammpsData {
        let n = self.len();
        let (x0, lx) = (self.box_lo[0], self.box_hi[0] - self.box_lo[0]);
        let (y0, ly) = (self.box_lo[1], self.box_hi[1] - self.box_lo[1]);
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&p| self.ids[p]);
        let mut out = LammpsData {
            box_lo: self.box_lo,
            box_hi: [x0 + rx as f64 * lx, y0 + ry as f64 * ly, self.box_hi[2]],
            ..Default::default()
        };
        for j in 0..ry {
            for i in 0..rx {
                let (fx, fy) = (i % 2 == 1, j % 2 == 1);
                let sign = |flip: bool| if flip { -1.0 } else { 1.0 };
                for &p in &order {
                    let (xx, yy) = (self.x[p] - x0, self.y[p] - y0);
                    let xx = if fx { lx - xx } else { xx };
                    let yy = if fy { ly - yy } else { yy };
                    out.ids.push(out.ids.len() as u64 + 1);
                    out.types.push(self.types[p]);
                    out.radius.push(self.radius[p]);
                    out.mass.push(self.mass[p]);
                    out.x.push(x0 + i as f64 * lx + xx);
                    // (One row: y as it was, as the 2D tiling always wrote it.)
                    out.y.push(if ry == 1 { self.y[p] } else { y0 + j as f64 * ly + yy });
                    out.z.push(self.z[p]);
                    out.vx.push(sign(fx) * self.vx[p]);
                    out.vy.push(sign(fy) * self.vy[p]);
                    out.vz.push(self.vz[p]);
                    out.wx.push(sign(fy) * self.wx[p]);
                    out.wy.push(sign(fx) * self.wy[p]);
                    out.wz.push(sign(fx != fy) * self.wz[p]);
                }
            }
        }
        out
    }
}

/// Section keywords LAMMPS itself knows. An unknown keyword is an error (as in LAMMPS), so a
/// corrupt data line that happens to start with a letter is reported instead of silently
/// starting a skipped section.
const KNOWN_SECTIONS: &[&str] = &[
    "Atoms",
    "Velocities",
    "Masses",
    "Ellipsoids",
    "Lines",
    "Triangles",
    "Bodies",
    "Bonds",
    "Angles",
    "Dihedrals",
    "Impropers",
    "Pair Coeffs",
    "PairIJ Coeffs",
    "Bond Coeffs",
    "Angle Coeffs",
    "Dihedral Coeffs",
    "Improper Coeffs",
    "BondBond Coeffs",
    "BondAngle Coeffs",
    "MiddleBondTorsion Coeffs",
    "EndBondTorsion Coeffs",
    "AngleTorsion Coeffs",
    "AngleAngleTorsion Coeffs",
    "BondBond13 Coeffs",
    "AngleAngle Coeffs",
    "Atom Type Labels",
    "Bond Type Labels",
    "Angle Type Labels",
    "Dihedral Type Labels",
    "Improper Type Labels",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Header,
    Atoms,
    Velocities,
    Skip,
}

/// Reads a LAMMPS data file (`atom_style sphere`).
///
/// Mass is recovered as `density * pi * diameter^3 / 6`: LAMMPS stores a sphere's density
/// even when the run is 2D, so this gives back the mass the run actually used.
pub fn read_lammps_data(path: &Path) -> Result<LammpsData> {
    let text = std::fs::read_to_string(path).map_err(|e| IoError::os(path, e))?;
    parse(&text, path)
}

/// Error constructor and number parsers that all carry the file's path.
struct Ctx<'p> {
    path: &'p Path,
}

impl Ctx<'_> {
    fn err(&self, line: usize, msg: impl Into<String>) -> IoError {
        IoError::Parse {
            path: self.path.to_path_buf(),
            line,
            msg: msg.into(),
        }
    }

    fn f64(&self, line: usize, tok: &str, what: &str) -> Result<f64> {
        match tok.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            Ok(_) => Err(self.err(line, format!("{what} is not finite: '{tok}'"))),
            Err(_) => Err(self.err(line, format!("cannot parse {what} '{tok}' as a number"))),
        }
    }

    fn u64(&self, line: usize, tok: &str, what: &str) -> Result<u64> {
        tok.parse::<u64>()
            .map_err(|_| self.err(line, format!("cannot parse {what} '{tok}' as a non-negative integer")))
    }

    fn i64(&self, line: usize, tok: &str, what: &str) -> Result<i64> {
        tok.parse::<i64>()
            .map_err(|_| self.err(line, format!("cannot parse {what} '{tok}' as an integer")))
    }
}

/// Splits on whitespace into at most `N` fields without allocating; also returns the total
/// number of fields, so a line with too many columns is still detected.
fn fields<const N: usize>(s: &str) -> ([&str; N], usize) {
    let mut out = [""; N];
    let mut n = 0;
    for tok in s.split_ascii_whitespace() {
        if n < N {
            out[n] = tok;
        }
        n += 1;
    }
    (out, n)
}

fn parse(text: &str, path: &Path) -> Result<LammpsData> {
    let cx = Ctx { path };
    let mut d = LammpsData {
        // LAMMPS's default box when the header does not give one.
        box_lo: [-0.5; 3],
        box_hi: [0.5; 3],
        ..LammpsData::default()
    };
    // (count, line of the "N atoms" header line)
    let mut declared_atoms: Option<(u64, usize)> = None;
    let mut declared_types: Option<u64> = None;
    let mut atoms_line: Option<usize> = None;
    let mut velocities_line: Option<usize> = None;
    let mut index_of: HashMap<u64, usize> = HashMap::new();
    let mut has_velocity: Vec<bool> = Vec::new();
    // The line of each atom, for messages.
    let mut atom_lines: Vec<usize> = Vec::new();
    let mut section = Section::Header;
    let mut last_line = 0;

    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        last_line = line;
        // LAMMPS always treats the first line as a title, whatever it holds.
        if i == 0 {
            continue;
        }
        let (content, comment) = match raw.find('#') {
            Some(p) => (&raw[..p], Some(&raw[p + 1..])),
            None => (raw, None),
        };
        let content = content.trim();
        if content.is_empty() {
            continue;
        }

        let numeric = content.starts_with(|c: char| c.is_ascii_digit() || "+-.".contains(c));
        if !numeric {
            // A section keyword; normalise inner whitespace ("Pair  Coeffs").
            let keyword = content.split_ascii_whitespace().collect::<Vec<_>>().join(" ");
            match keyword.as_str() {
                "Atoms" => {
                    if let Some(prev) = atoms_line {
                        return Err(cx.err(line, format!("second Atoms section (first at line {prev})")));
                    }
                    if let Some(style) = comment.and_then(|c| c.split_ascii_whitespace().next()) {
                        if style != "sphere" {
                            return Err(cx.err(
                                line,
                                format!("Atoms section has atom style '{style}'; only 'sphere' is supported"),
                            ));
                        }
                    }
                    let Some((n, _)) = declared_atoms else {
                        return Err(cx.err(line, "Atoms section, but the header has no 'N atoms' line"));
                    };
                    // Cap the reservation: the header count is not trusted yet.
                    let cap = n.min(1 << 24) as usize;
                    for v in [&mut d.radius, &mut d.mass, &mut d.x, &mut d.y, &mut d.z] {
                        v.reserve(cap);
                    }
                    d.ids.reserve(cap);
                    atom_lines.reserve(cap);
                    d.types.reserve(cap);
                    index_of.reserve(cap);
                    atoms_line = Some(line);
                    section = Section::Atoms;
                }
                "Velocities" => {
                    if atoms_line.is_none() {
                        return Err(cx.err(line, "Velocities section before the Atoms section"));
                    }
                    if let Some(prev) = velocities_line {
                        return Err(cx.err(line, format!("second Velocities section (first at line {prev})")));
                    }
                    let n = d.ids.len();
                    for v in [&mut d.vx, &mut d.vy, &mut d.vz, &mut d.wx, &mut d.wy, &mut d.wz] {
                        *v = vec![0.0; n];
                    }
                    has_velocity = vec![false; n];
                    velocities_line = Some(line);
                    section = Section::Velocities;
                }
                k if KNOWN_SECTIONS.contains(&k) => section = Section::Skip,
                k => return Err(cx.err(line, format!("unknown section '{k}'"))),
            }
            continue;
        }

        match section {
            Section::Header => header_line(&cx, line, content, &mut d, &mut declared_atoms, &mut declared_types)?,
            Section::Atoms => {
                let (f, n) = fields::<10>(content);
                if n != 7 && n != 10 {
                    return Err(cx.err(
                        line,
                        format!(
                            "Atoms line has {n} columns; expected 7 (id type diameter density x y z) \
                             or 10 (with image flags ix iy iz)"
                        ),
                    ));
                }
                let id = cx.u64(line, f[0], "atom id")?;
                if id == 0 {
                    return Err(cx.err(line, "atom id must be positive"));
                }
                let ty = cx.u64(line, f[1], "atom type")?;
                if ty == 0 || declared_types.is_some_and(|nt| ty > nt) {
                    let top =
                        declared_types.map_or(String::new(), |nt| format!(" (the header declares {nt} atom types)"));
                    return Err(cx.err(line, format!("atom type {ty} out of range{top}")));
                }
                // The particle store keeps types in 16 bits: refused, not cut down.
                let Ok(ty) = u16::try_from(ty) else {
                    return Err(cx.err(
                        line,
                        format!(
                            "Atoms section: atom type {ty} is above {}, the largest type talus can store \
                             (16 bits); renumber the types",
                            u16::MAX
                        ),
                    ));
                };
                let diameter = cx.f64(line, f[2], "diameter")?;
                if diameter <= 0.0 {
                    return Err(cx.err(line, format!("diameter must be positive, got {diameter}")));
                }
                let density = cx.f64(line, f[3], "density")?;
                if density <= 0.0 {
                    return Err(cx.err(line, format!("density must be positive, got {density}")));
                }
                let x = cx.f64(line, f[4], "x")?;
                let y = cx.f64(line, f[5], "y")?;
                let z = cx.f64(line, f[6], "z")?;
                #[cfg(not(feature = "dim3"))]
                if z != 0.0 {
                    return Err(cx.err(
                        line,
                        format!(
                            "atom {id} has z = {z}: talus reads 2D data files, where every atom lies in the plane \
                             z = 0 (LAMMPS dimension 2); set the z column to 0 (in LAMMPS: `set group all z 0.0` \
                             before write_data), or this is a 3D file, which talus cannot simulate as discs"
                        ),
                    ));
                }
                if n == 10 {
                    // Image flags are validated but dropped: positions are kept wrapped.
                    for (tok, what) in f[7..10].iter().zip(["ix", "iy", "iz"]) {
                        cx.i64(line, tok, what)?;
                    }
                }
                match index_of.entry(id) {
                    Entry::Occupied(_) => {
                        return Err(cx.err(line, format!("duplicate atom id {id}")));
                    }
                    Entry::Vacant(slot) => {
                        slot.insert(d.ids.len());
                    }
                }
                d.ids.push(id);
                atom_lines.push(line);
                d.types.push(ty);
                d.radius.push(0.5 * diameter);
                d.mass.push(density * PI * diameter * diameter * diameter / 6.0);
                d.x.push(x);
                d.y.push(y);
                d.z.push(z);
            }
            Section::Velocities => {
                let (f, n) = fields::<7>(content);
                if n != 7 {
                    return Err(cx.err(
                        line,
                        format!("Velocities line has {n} columns; expected 7 (id vx vy vz wx wy wz)"),
                    ));
                }
                let id = cx.u64(line, f[0], "atom id")?;
                let Some(&idx) = index_of.get(&id) else {
                    return Err(cx.err(
                        line,
                        format!("Velocities line for atom id {id}, which is not in the Atoms section"),
                    ));
                };
                if has_velocity[idx] {
                    return Err(cx.err(line, format!("duplicate velocity for atom id {id}")));
                }
                has_velocity[idx] = true;
                d.vx[idx] = cx.f64(line, f[1], "vx")?;
                d.vy[idx] = cx.f64(line, f[2], "vy")?;
                d.vz[idx] = cx.f64(line, f[3], "vz")?;
                d.wx[idx] = cx.f64(line, f[4], "wx")?;
                d.wy[idx] = cx.f64(line, f[5], "wy")?;
                #[cfg(not(feature = "dim3"))]
                for (k, what) in [(3, "vz"), (4, "wx"), (5, "wy")] {
                    let v = cx.f64(line, f[k], what)?;
                    if v != 0.0 {
                        return Err(cx.err(
                            line,
                            format!(
                                "atom {id} has {what} = {v}: a 2D data file moves atoms in the x-y plane only \
                                 (vz, wx and wy are 0, as LAMMPS' fix enforce2d keeps them); set that column to 0"
                            ),
                        ));
                    }
                }
                d.wz[idx] = cx.f64(line, f[6], "wz")?;
            }
            Section::Skip => {}
        }
    }

    if atoms_line.is_none() {
        return Err(cx.err(last_line.max(1), "no Atoms section"));
    }
    let (declared, header_line) = declared_atoms.expect("checked when the Atoms section began");
    if declared != d.ids.len() as u64 {
        return Err(cx.err(
            header_line,
            format!(
                "header declares {declared} atoms but the Atoms section has {}",
                d.ids.len()
            ),
        ));
    }
    if let Some(vline) = velocities_line {
        let missing = has_velocity.iter().filter(|&&h| !h).count();
        if let Some(first) = has_velocity.iter().position(|&h| !h) {
            return Err(cx.err(
                vline,
                format!(
                    "the Velocities section gives {} of the {} atoms a velocity: {missing} atom{} {} none, e.g. \
                     atom {} (line {}); give every atom a line (LAMMPS' read_data needs one per atom), or leave \
                     the section out to start all at rest",
                    d.ids.len() - missing,
                    d.ids.len(),
                    if missing == 1 { "" } else { "s" },
                    if missing == 1 { "has" } else { "have" },
                    d.ids[first],
                    atom_lines[first]
                ),
            ));
        }
    } else {
        let n = d.ids.len();
        for v in [&mut d.vx, &mut d.vy, &mut d.vz, &mut d.wx, &mut d.wy, &mut d.wz] {
            *v = vec![0.0; n];
        }
    }
    Ok(d)
}

/// One header line: counts and box bounds. Unknown header keywords (bonds, ellipsoids, ...)
/// are ignored since a sphere system does not use them.
fn header_line(
    cx: &Ctx,
    line: usize,
    content: &str,
    d: &mut LammpsData,
    declared_atoms: &mut Option<(u64, usize)>,
    declared_types: &mut Option<u64>,
) -> Result<()> {
    let (f, n) = fields::<6>(content);
    match (n, &f[1..n.min(6)]) {
        (2, ["atoms"]) => {
            if declared_atoms.is_some() {
                return Err(cx.err(line, "second 'atoms' header line"));
            }
            *declared_atoms = Some((cx.u64(line, f[0], "atom count")?, line));
        }
        (3, ["atom", "types"]) => {
            *declared_types = Some(cx.u64(line, f[0], "atom type count")?);
        }
        (4, [_, lo_kw, hi_kw]) if lo_kw.ends_with("lo") && hi_kw.ends_with("hi") => {
            let axis = match (*lo_kw, *hi_kw) {
                ("xlo", "xhi") => 0,
                ("ylo", "yhi") => 1,
                ("zlo", "zhi") => 2,
                _ => return Err(cx.err(line, format!("unknown box bounds '{lo_kw} {hi_kw}'"))),
            };
            let lo = cx.f64(line, f[0], lo_kw)?;
            let hi = cx.f64(line, f[1], hi_kw)?;
            if lo >= hi {
                return Err(cx.err(line, format!("box {lo_kw} {lo} is not below {hi_kw} {hi}")));
            }
            d.box_lo[axis] = lo;
            d.box_hi[axis] = hi;
        }
        (6, [_, _, "xy", "xz", "yz"]) => {
            // A triclinic box with zero tilt is just an orthogonal one.
            for tok in &f[0..3] {
                if cx.f64(line, tok, "tilt factor")? != 0.0 {
                    return Err(cx.err(line, "triclinic (tilted) boxes are not supported"));
                }
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
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
}
