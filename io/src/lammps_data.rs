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
#[path = "lammps_data_tests.rs"]
mod tests;
