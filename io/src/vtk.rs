//! ParaView output: one `.vtu` (VTK XML UnstructuredGrid) file per frame (the `.pvd`
//! collection that lists the frames with their times: `pvd.rs`).
//!
//! Data go in one raw little-endian appended block (UInt64 size headers): no base64 or text
//! formatting, so writing 10^6 particles is little more than a memory copy.
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use talus_kernels::analysis::stress::Tensor;
use talus_kernels::math::{ANG, DIM};

use crate::{IoError, Result};

/// One snapshot of the particles, as borrowed per-particle columns (all the same length),
/// one column per axis of the vectors (per component of the angular velocity).
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// Particle ids.
    pub ids: &'a [u64],
    /// Particle types (the `type` column).
    pub types: &'a [u32],
    /// Positions, m.
    pub pos: [&'a [f64]; DIM],
    /// Velocities, m/s.
    pub vel: [&'a [f64]; DIM],
    /// Angular velocities, rad/s: about z in 2D, one component per axis in 3D.
    pub omega: [&'a [f64]; ANG],
    /// Radii (a polygon's bounding radius), m.
    pub radius: &'a [f64],
    /// The total force (contacts and gravity).
    pub force: [&'a [f64]; DIM],
    /// Orientation angles, rad (2D).
    #[cfg(not(feature = "dim3"))]
    pub angle: &'a [f64],
    /// The polygons' world-frame corners, if any particle is a polygon.
    #[cfg(not(feature = "dim3"))]
    pub polygons: Option<Polygons<'a>>,
    /// Each grain's analysis at this frame's step, where the run analyses (`[analysis]`).
    pub analysis: Option<GrainValues<'a>>,
}

/// Per grain: the stress (LAMMPS' `compute stress/atom` over the grain's volume, as
/// [`talus_engine::Analysis::grain_stress`]) and the contacts (walls included).
#[derive(Debug, Clone, Copy)]
pub struct GrainValues<'a> {
    /// Each grain's stress tensor.
    pub stress: &'a [Tensor],
    /// Each grain's number of contacts.
    pub contacts: &'a [u32],
}

/// Particle p of a frame is a polygon with corners `corners[start[p]..start[p + 1]]`
/// (counter-clockwise), a disc where that range is empty (the engine's own layout). 2D
/// frames only; the type is in both builds so that the writer is written once.
#[derive(Debug, Clone, Copy)]
pub struct Polygons<'a> {
    /// Offsets into `corners`: one per particle, then the end.
    pub start: &'a [u32],
    /// Corners of all the polygons, world frame, m.
    pub corners: &'a [[f64; 2]],
}

/// Names of the axes, for the columns named in error messages.
const AXES: [&str; 3] = ["x", "y", "z"];

impl<'a> Frame<'a> {
    /// Number of particles (the length of `ids`).
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the frame has no particle.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The polygons, if any.
    #[cfg(not(feature = "dim3"))]
    pub fn polygons(&self) -> Option<&Polygons<'a>> {
        self.polygons.as_ref()
    }

    /// None: 3D particles are spheres.
    #[cfg(feature = "dim3")]
    pub fn polygons(&self) -> Option<&Polygons<'a>> {
        None
    }

    /// The columns with their names (`x`, `vx`, `omega` in 2D or `omegax` in 3D, `fx`
    /// ...), in the order they are checked.
    fn columns(&self) -> Vec<(String, &'a [f64])> {
        let axes = |prefix: &str, c: &[&'a [f64]]| -> Vec<(String, &'a [f64])> {
            c.iter().zip(AXES).map(|(c, a)| (format!("{prefix}{a}"), *c)).collect()
        };
        let mut cols = axes("", &self.pos);
        cols.extend(axes("v", &self.vel));
        if ANG == 1 {
            cols.push(("omega".into(), self.omega[0]));
        } else {
            cols.extend(axes("omega", &self.omega));
        }
        cols.push(("radius".into(), self.radius));
        cols.extend(axes("f", &self.force));
        #[cfg(not(feature = "dim3"))]
        cols.push(("angle".into(), self.angle));
        cols
    }

    /// Checks every column has as many entries as `ids`; returns that number. `path` is the
    /// file about to be written, for the error message.
    pub(crate) fn check(&self, path: &Path) -> Result<usize> {
        let n = self.ids.len();
        let lens = std::iter::once(("types".to_string(), self.types.len()))
            .chain(self.columns().into_iter().map(|(name, c)| (name, c.len())))
            .chain(self.analysis.iter().flat_map(|a| {
                [
                    ("stress".to_string(), a.stress.len()),
                    ("contacts".to_string(), a.contacts.len()),
                ]
            }));
        for (name, len) in lens {
            if len != n {
                return Err(IoError::Invalid {
                    path: path.to_path_buf(),
                    msg: format!("frame column '{name}' has {len} entries but there are {n} ids"),
                });
            }
        }
        if let Some(pg) = self.polygons() {
            let ok = pg.start.len() == n + 1
                && pg.start.windows(2).all(|w| w[0] <= w[1])
                && pg.start.last().is_some_and(|&e| e as usize == pg.corners.len());
            if !ok {
                return Err(IoError::Invalid {
                    path: path.to_path_buf(),
                    msg: format!(
                        "polygon offsets ({} of them, {} corners) do not fit {n} particles",
                        pg.start.len(),
                        pg.corners.len()
                    ),
                });
            }
        }
        Ok(n)
    }

    /// The particle each point belongs to: a disc's centre, a polygon's corners in order.
    /// None when every particle is a disc or sphere (point k is particle k).
    fn point_owners(&self) -> Option<Vec<u32>> {
        let pg = self.polygons()?;
        let mut owner = Vec::with_capacity(self.len() + pg.corners.len());
        for p in 0..self.len() {
            let k = (pg.start[p + 1] - pg.start[p]).max(1) as usize;
            owner.extend(std::iter::repeat_n(p as u32, k));
        }
        Some(owner)
    }
}

/// VTK cell type of a single point.
const VTK_VERTEX: u8 = 1;
/// VTK cell type of a polygon (corners in order).
const VTK_POLYGON: u8 = 7;

/// One DataArray of the appended block.
struct Array {
    name: &'static str,
    ty: &'static str,
    components: usize,
    value_bytes: usize,
}

const ID: Array = arr("id", "Int64", 1, 8);
const TYPE: Array = arr("type", "Int32", 1, 4);
const RADIUS: Array = arr("radius", "Float64", 1, 8);
/// ParaView's Glyph sphere has radius 0.5: scaled by `diameter` it is the particle.
#[cfg(feature = "dim3")]
const DIAMETER: Array = arr("diameter", "Float64", 1, 8);
/// Vectors have 3 components in both builds (z = 0 in 2D): ParaView draws them so.
const VELOCITY: Array = arr("velocity", "Float64", 3, 8);
/// The angular velocity: 1 component (about z) in 2D, 3 in 3D.
const OMEGA: Array = arr("omega", "Float64", ANG, 8);
const FORCE: Array = arr("force", "Float64", 3, 8);
#[cfg(not(feature = "dim3"))]
const ANGLE: Array = arr("angle", "Float64", 1, 8);
/// A grain's stress as ParaView's tensor: 9 components, row by row (z's row and column
/// zero in 2D).
const STRESS: Array = arr("stress", "Float64", 9, 8);
const CONTACTS: Array = arr("contacts", "Int32", 1, 4);

/// The per-particle arrays in the order they are written; `write_vtu_to` follows it.
#[cfg(not(feature = "dim3"))]
const POINT_DATA: [&Array; 7] = [&ID, &TYPE, &RADIUS, &VELOCITY, &OMEGA, &FORCE, &ANGLE];
#[cfg(feature = "dim3")]
const POINT_DATA: [&Array; 7] = [&ID, &TYPE, &RADIUS, &DIAMETER, &VELOCITY, &OMEGA, &FORCE];
const POINTS: Array = arr("Points", "Float64", 3, 8);
const CELLS: [Array; 3] = [
    arr("connectivity", "Int64", 1, 8),
    arr("offsets", "Int64", 1, 8),
    arr("types", "UInt8", 1, 1),
];

const fn arr(name: &'static str, ty: &'static str, components: usize, value_bytes: usize) -> Array {
    Array {
        name,
        ty,
        components,
        value_bytes,
    }
}

impl Array {
    fn data_bytes(&self, n: usize) -> u64 {
        (n * self.components * self.value_bytes) as u64
    }
}

/// Writes one frame as a `.vtu` file: one cell per particle, a VTK_VERTEX at the centre
/// of a disc or sphere, a VTK_POLYGON through the world-frame corners of a polygon (so
/// ParaView's Surface view shows each polygon as it was simulated). The per-particle values
/// (id, type, radius, velocity, omega, force; angle in 2D, diameter in 3D) are point data
/// when every particle is a disc or sphere (point k is particle k), cell data otherwise,
/// with the points carrying only a `radius`, 0 at a polygon's corners: a Glyph filter
/// scaled by `radius` draws the discs and leaves the polygons to their cells.
pub fn write_vtu(path: &Path, frame: &Frame) -> Result<()> {
    let n = frame.check(path)?;
    let file = File::create(path).map_err(|e| IoError::os(path, e))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    write_vtu_to(&mut w, frame, n).map_err(|e| IoError::os(path, e))?;
    w.flush().map_err(|e| IoError::os(path, e))
}

/// Writes component `a` of a vector given per axis, 0 past the frame's axes (z in 2D).
fn axis_value<W: Write>(w: &mut W, v: &[&[f64]], a: usize, k: usize) -> std::io::Result<()> {
    let x = if a < v.len() { v[a][k] } else { 0.0 };
    w.write_all(&x.to_le_bytes())
}

fn write_vtu_to<W: Write>(w: &mut W, f: &Frame, n: usize) -> std::io::Result<()> {
    let owners = f.point_owners();
    let np = owners.as_ref().map_or(n, Vec::len);
    let corner = |k: usize| f.polygons().map(|pg| pg.corners[k]);
    writeln!(w, r#"<?xml version="1.0"?>"#)?;
    writeln!(
        w,
        r#"<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
    )?;
    writeln!(w, "  <UnstructuredGrid>")?;
    writeln!(w, r#"    <Piece NumberOfPoints="{np}" NumberOfCells="{n}">"#)?;

    // Offsets count from the byte after the '_' marker; each block is an 8-byte size + data.
    let mut offset = 0u64;
    let mut decl = |w: &mut W, a: &Array, count: usize| -> std::io::Result<()> {
        writeln!(
            w,
            r#"        <DataArray type="{}" Name="{}" NumberOfComponents="{}" format="appended" offset="{offset}"/>"#,
            a.ty, a.name, a.components
        )?;
        offset += 8 + a.data_bytes(count);
        Ok(())
    };
    // Discs only: point k is particle k, all values are point data (no cell data: the
    // same values again). With polygons: the values are cell data, and the points carry
    // only the radius the discs' glyphs need (a copy per corner would double the file).
    let cells = f.polygons().is_some();
    let analysis_arrays: &[&Array] = if f.analysis.is_some() {
        &[&STRESS, &CONTACTS]
    } else {
        &[]
    };
    if cells {
        writeln!(w, r#"      <PointData Scalars="radius">"#)?;
        decl(w, &RADIUS, np)?;
        writeln!(w, "      </PointData>")?;
        writeln!(w, r#"      <CellData Scalars="radius" Vectors="velocity">"#)?;
        for a in POINT_DATA.into_iter().chain(analysis_arrays.iter().copied()) {
            decl(w, a, n)?;
        }
        writeln!(w, "      </CellData>")?;
    } else {
        writeln!(w, r#"      <PointData Scalars="radius" Vectors="velocity">"#)?;
        for a in POINT_DATA.into_iter().chain(analysis_arrays.iter().copied()) {
            decl(w, a, np)?;
        }
        writeln!(w, "      </PointData>")?;
    }
    writeln!(w, "      <Points>")?;
    decl(w, &POINTS, np)?;
    writeln!(w, "      </Points>")?;
    writeln!(w, "      <Cells>")?;
    decl(w, &CELLS[0], np)?;
    decl(w, &CELLS[1], n)?;
    decl(w, &CELLS[2], n)?;
    writeln!(w, "      </Cells>")?;
    writeln!(w, "    </Piece>")?;
    writeln!(w, "  </UnstructuredGrid>")?;
    write!(w, "  <AppendedData encoding=\"raw\">\n   _")?;

    // The values of the per-particle arrays: once per cell, then once per point.
    let data = |w: &mut W,
                owner: &dyn Fn(usize) -> usize,
                count: usize,
                at_corner: &dyn Fn(usize) -> bool,
                all: bool|
     -> std::io::Result<()> {
        let size = |w: &mut W, a: &Array| w.write_all(&a.data_bytes(count).to_le_bytes());
        // `comps` values per entry, component `a` from `v[a]`, zero past its end.
        let values = |w: &mut W, v: &[&[f64]], comps: usize| -> std::io::Result<()> {
            (0..count).try_for_each(|k| (0..comps).try_for_each(|a| axis_value(w, v, a, owner(k))))
        };
        if all {
            // id: VTK has no unsigned 64-bit array type ParaView handles well; ids fit in i64.
            size(w, &ID)?;
            (0..count).try_for_each(|k| w.write_all(&(f.ids[owner(k)] as i64).to_le_bytes()))?;
            size(w, &TYPE)?;
            (0..count).try_for_each(|k| w.write_all(&(f.types[owner(k)] as i32).to_le_bytes()))?;
        }
        size(w, &RADIUS)?;
        (0..count).try_for_each(|k| {
            let r = if at_corner(k) { 0.0 } else { f.radius[owner(k)] };
            w.write_all(&r.to_le_bytes())
        })?;
        if !all {
            return Ok(());
        }
        #[cfg(feature = "dim3")]
        {
            size(w, &DIAMETER)?;
            (0..count).try_for_each(|k| w.write_all(&(2.0 * f.radius[owner(k)]).to_le_bytes()))?;
        }
        size(w, &VELOCITY)?;
        values(w, &f.vel, VELOCITY.components)?;
        size(w, &OMEGA)?;
        values(w, &f.omega, OMEGA.components)?;
        size(w, &FORCE)?;
        values(w, &f.force, FORCE.components)?;
        #[cfg(not(feature = "dim3"))]
        {
            size(w, &ANGLE)?;
            values(w, &[f.angle], 1)?;
        }
        if let Some(a) = &f.analysis {
            size(w, &STRESS)?;
            (0..count).try_for_each(|k| {
                let s = &a.stress[owner(k)];
                (0..9).try_for_each(|c| {
                    let (r, col) = (c / 3, c % 3);
                    let v = if r < DIM && col < DIM { s[r][col] } else { 0.0 };
                    w.write_all(&v.to_le_bytes())
                })
            })?;
            size(w, &CONTACTS)?;
            (0..count).try_for_each(|k| w.write_all(&(a.contacts[owner(k)] as i32).to_le_bytes()))?;
        }
        Ok(())
    };
    // Point k of a polygon run: the owner's corner, unless the owner is a disc.
    let is_polygon = |p: usize| f.polygons().is_some_and(|pg| pg.start[p + 1] > pg.start[p]);
    match &owners {
        Some(o) => {
            data(w, &|k| o[k] as usize, np, &|k| is_polygon(o[k] as usize), false)?;
            data(w, &|p| p, n, &|_| false, true)?;
        }
        None => data(w, &|k| k, np, &|_| false, true)?,
    }

    w.write_all(&POINTS.data_bytes(np).to_le_bytes())?;
    for p in 0..n {
        match f.polygons().filter(|_| is_polygon(p)) {
            Some(pg) => (pg.start[p] as usize..pg.start[p + 1] as usize).try_for_each(|k| {
                let c = corner(k).expect("a polygon run");
                [c[0], c[1], 0.0].iter().try_for_each(|v| w.write_all(&v.to_le_bytes()))
            })?,
            None => (0..3).try_for_each(|a| axis_value(w, &f.pos, a, p))?,
        }
    }

    // Every cell's points are its own, in order: connectivity is 0..points.
    w.write_all(&CELLS[0].data_bytes(np).to_le_bytes())?;
    for i in 0..np as i64 {
        w.write_all(&i.to_le_bytes())?;
    }
    w.write_all(&CELLS[1].data_bytes(n).to_le_bytes())?;
    let mut end = 0i64;
    for p in 0..n {
        end += match f.polygons() {
            Some(pg) => (pg.start[p + 1] - pg.start[p]).max(1) as i64,
            None => 1,
        };
        w.write_all(&end.to_le_bytes())?;
    }
    w.write_all(&CELLS[2].data_bytes(n).to_le_bytes())?;
    if f.polygons().is_some() {
        for p in 0..n {
            w.write_all(&[if is_polygon(p) { VTK_POLYGON } else { VTK_VERTEX }])?;
        }
    } else {
        // All cells are vertices: write the type bytes in chunks rather than one at a time.
        let chunk = [VTK_VERTEX; 4096];
        let mut left = n;
        while left > 0 {
            let k = left.min(chunk.len());
            w.write_all(&chunk[..k])?;
            left -= k;
        }
    }

    write!(w, "\n  </AppendedData>\n</VTKFile>\n")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Owned columns from which test frames borrow.
    pub(crate) struct Cols {
        ids: Vec<u64>,
        types: Vec<u32>,
        pos: [Vec<f64>; DIM],
        vel: [Vec<f64>; DIM],
        omega: [Vec<f64>; ANG],
        radius: Vec<f64>,
        pub(crate) force: [Vec<f64>; DIM],
        #[cfg(not(feature = "dim3"))]
        angle: Vec<f64>,
    }

    impl Cols {
        pub(crate) fn new(n: usize) -> Self {
            let g = |k: f64| (0..n).map(|i| k * (i as f64 + 1.0) + 0.1).collect::<Vec<_>>();
            fn per_axis<const N: usize>(g: &dyn Fn(f64) -> Vec<f64>, k: [f64; 3]) -> [Vec<f64>; N] {
                std::array::from_fn(|a| g(k[a]))
            }
            Cols {
                ids: (0..n as u64).map(|i| 1000 + 7 * i).collect(),
                types: (0..n as u32).map(|i| 1 + i % 3).collect(),
                pos: per_axis(&g, [1.5, -2.25, 0.75]),
                vel: per_axis(&g, [1e-7, -3e5, 2.5]),
                omega: per_axis(&g, [0.125, -4.0, 1e9]),
                radius: g(1e-3),
                force: per_axis(&g, [-1.0 / 3.0, std::f64::consts::PI, -7e-3]),
                #[cfg(not(feature = "dim3"))]
                angle: g(-0.5),
            }
        }

        pub(crate) fn frame(&self) -> Frame<'_> {
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
                polygons: None,
                analysis: None,
            }
        }
    }

    /// Value of attribute `name` in an XML tag's text.
    pub(crate) fn attr<'a>(tag: &'a str, name: &str) -> &'a str {
        let key = format!(" {name}=\"");
        let start = tag.find(&key).unwrap_or_else(|| panic!("no {name} in {tag}")) + key.len();
        let len = tag[start..].find('"').unwrap();
        &tag[start..start + len]
    }

    /// A .vtu decoded by hand: the XML text before the data, and each DataArray's name,
    /// type, component count and raw bytes.
    pub(crate) struct Vtu {
        pub(crate) header: String,
        pub(crate) arrays: Vec<(String, String, usize, Vec<u8>)>,
    }

    pub(crate) fn parse_vtu(bytes: &[u8]) -> Vtu {
        let open = b"<AppendedData encoding=\"raw\">";
        let p = bytes
            .windows(open.len())
            .position(|w| w == open)
            .expect("AppendedData element");
        let us = p + bytes[p..].iter().position(|&b| b == b'_').unwrap();
        let header = std::str::from_utf8(&bytes[..us]).unwrap().to_string();
        let data = &bytes[us + 1..];
        assert!(header.contains(r#"header_type="UInt64""#));
        assert!(header.contains(r#"byte_order="LittleEndian""#));
        assert!(header.contains(r#"type="UnstructuredGrid""#));

        let mut arrays = Vec::new();
        let mut end_of_data = 0;
        let mut at = 0;
        for piece in header.split("<DataArray").skip(1) {
            at = at + header[at..].find("<DataArray").unwrap() + 1;
            // Cell data are named "cell:NAME".
            let before = &header[..at];
            let in_cells = before
                .rfind("<CellData")
                .is_some_and(|c| before.rfind("</CellData>").is_none_or(|e| e < c));
            let tag = &piece[..piece.find("/>").unwrap()];
            assert_eq!(attr(tag, "format"), "appended");
            let off: usize = attr(tag, "offset").parse().unwrap();
            let len = u64::from_le_bytes(data[off..off + 8].try_into().unwrap()) as usize;
            let raw = data[off + 8..off + 8 + len].to_vec();
            end_of_data = end_of_data.max(off + 8 + len);
            arrays.push((
                format!("{}{}", if in_cells { "cell:" } else { "" }, attr(tag, "Name")),
                attr(tag, "type").to_string(),
                attr(tag, "NumberOfComponents").parse().unwrap(),
                raw,
            ));
        }
        // The blocks tile the appended section exactly, followed by the closing tags.
        assert_eq!(
            std::str::from_utf8(&data[end_of_data..]).unwrap(),
            "\n  </AppendedData>\n</VTKFile>\n"
        );
        Vtu { header, arrays }
    }

    impl Vtu {
        pub(crate) fn raw(&self, name: &str, ty: &str, comps: usize) -> &[u8] {
            let a = self
                .arrays
                .iter()
                .find(|a| a.0 == name)
                .unwrap_or_else(|| panic!("no array {name}"));
            assert_eq!((a.1.as_str(), a.2), (ty, comps), "array {name}");
            &a.3
        }
        pub(crate) fn f64s(&self, name: &str, comps: usize) -> Vec<f64> {
            self.raw(name, "Float64", comps)
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect()
        }
        pub(crate) fn i64s(&self, name: &str) -> Vec<i64> {
            self.raw(name, "Int64", 1)
                .chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                .collect()
        }
    }

    /// Per-axis columns as VTK's 3-component tuples (z = 0 in 2D).
    pub(crate) fn interleave3(c: &[Vec<f64>]) -> Vec<f64> {
        (0..c[0].len())
            .flat_map(|k| (0..3).map(move |a| if a < c.len() { c[a][k] } else { 0.0 }))
            .collect()
    }

    /// Per-component columns as tuples.
    fn interleave(c: &[Vec<f64>]) -> Vec<f64> {
        (0..c[0].len()).flat_map(|k| c.iter().map(move |v| v[k])).collect()
    }

    #[test]
    fn vtu_round_trip() {
        let c = Cols::new(5);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.vtu");
        write_vtu(&p, &c.frame()).unwrap();
        let v = parse_vtu(&std::fs::read(&p).unwrap());

        assert!(v.header.contains(r#"<Piece NumberOfPoints="5" NumberOfCells="5">"#));
        let ids: Vec<u64> = v.i64s("id").iter().map(|&i| i as u64).collect();
        assert_eq!(ids, c.ids);
        let types: Vec<u32> = v
            .raw("type", "Int32", 1)
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes(b.try_into().unwrap()) as u32)
            .collect();
        assert_eq!(types, c.types);
        assert_eq!(v.f64s("radius", 1), c.radius);
        assert_eq!(v.f64s("velocity", 3), interleave3(&c.vel));
        assert_eq!(v.f64s("omega", ANG), interleave(&c.omega));
        assert_eq!(v.f64s("force", 3), interleave3(&c.force));
        #[cfg(not(feature = "dim3"))]
        assert_eq!(v.f64s("angle", 1), c.angle);
        #[cfg(feature = "dim3")]
        {
            let d: Vec<f64> = c.radius.iter().map(|r| 2.0 * r).collect();
            assert_eq!(v.f64s("diameter", 1), d);
            // The points are the sphere centres, z included.
            assert!(v
                .f64s("Points", 3)
                .chunks_exact(3)
                .zip(&c.pos[2])
                .all(|(p, z)| p[2] == *z));
        }
        assert_eq!(v.f64s("Points", 3), interleave3(&c.pos));
        assert_eq!(v.i64s("connectivity"), vec![0, 1, 2, 3, 4]);
        assert_eq!(v.i64s("offsets"), vec![1, 2, 3, 4, 5]);
        assert_eq!(v.raw("types", "UInt8", 1), &[VTK_VERTEX; 5]);
        // Only point data (cell data would repeat it), the radius the active scalar and
        // the velocity the active vector for ParaView's Glyph filter.
        assert!(v.header.contains(r#"<PointData Scalars="radius" Vectors="velocity">"#));
        assert!(!v.header.contains("<CellData"));
        assert_eq!(v.arrays.len(), 11);
    }

    /// Polygons are polygon cells through their corners; discs stay vertices. Every cell's
    /// points are its own: the points, offsets and connectivity agree, and the corners are
    /// the given world-frame corners, in order.
    #[cfg(not(feature = "dim3"))]
    #[test]
    fn polygons_are_polygon_cells() {
        let c = Cols::new(4);
        // Particle 0 a disc, 1 a triangle, 2 a disc, 3 a square.
        let tri = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]];
        let sq = [[5.0, 5.0], [6.0, 5.0], [6.0, 6.0], [5.0, 6.0]];
        let corners: Vec<[f64; 2]> = tri.iter().chain(&sq).copied().collect();
        let start = [0u32, 0, 3, 3, 7];
        let mut f = c.frame();
        f.polygons = Some(Polygons {
            start: &start,
            corners: &corners,
        });
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("poly.vtu");
        write_vtu(&p, &f).unwrap();
        let v = parse_vtu(&std::fs::read(&p).unwrap());
        assert!(
            v.header.contains(r#"<Piece NumberOfPoints="9" NumberOfCells="4">"#),
            "{}",
            v.header
        );
        assert_eq!(
            v.raw("types", "UInt8", 1),
            &[VTK_VERTEX, VTK_POLYGON, VTK_VERTEX, VTK_POLYGON]
        );
        assert_eq!(v.i64s("offsets"), vec![1, 4, 5, 9]);
        assert_eq!(v.i64s("connectivity"), (0..9).collect::<Vec<i64>>());
        let pts = v.f64s("Points", 3);
        let expect: Vec<[f64; 2]> = [[c.pos[0][0], c.pos[1][0]]]
            .into_iter()
            .chain(tri)
            .chain([[c.pos[0][2], c.pos[1][2]]])
            .chain(sq)
            .collect();
        let got: Vec<[f64; 2]> = pts.chunks_exact(3).map(|p| [p[0], p[1]]).collect();
        assert_eq!(got, expect);
        // Point data: the radius of a disc at its centre, 0 at corners (glyphs for discs
        // only); the values per particle are cell data.
        let owner = [0, 1, 1, 1, 2, 3, 3, 3, 3];
        let ids: Vec<i64> = c.ids.iter().map(|&i| i as i64).collect();
        assert_eq!(v.i64s("cell:id"), ids);
        assert_eq!(v.f64s("cell:velocity", 3), interleave3(&c.vel));
        assert_eq!(v.f64s("cell:force", 3), interleave3(&c.force));
        assert_eq!(v.f64s("cell:omega", 1), c.omega[0]);
        let radius: Vec<f64> = owner
            .iter()
            .map(|&o| if o % 2 == 0 { c.radius[o] } else { 0.0 })
            .collect();
        assert_eq!(v.f64s("radius", 1), radius);
        assert_eq!(v.f64s("cell:radius", 1), c.radius);
        assert_eq!(v.f64s("cell:angle", 1), c.angle);
        assert_eq!(v.arrays.len(), 1 + 7 + 1 + 3);
        // Offsets that do not fit the particles are refused.
        let bad = [0u32, 0, 3, 3];
        f.polygons = Some(Polygons {
            start: &bad,
            corners: &corners,
        });
        assert!(write_vtu(&p, &f).is_err());
    }

    #[test]
    fn vtu_many_particles_and_empty() {
        // More particles than one chunk of cell-type bytes.
        let c = Cols::new(10_000);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.vtu");
        write_vtu(&p, &c.frame()).unwrap();
        let v = parse_vtu(&std::fs::read(&p).unwrap());
        assert_eq!(v.f64s("Points", 3), interleave3(&c.pos));
        assert_eq!(v.raw("types", "UInt8", 1), vec![VTK_VERTEX; 10_000]);
        assert_eq!(v.i64s("offsets").last(), Some(&10_000));

        let e = Cols::new(0);
        let p = dir.path().join("empty.vtu");
        write_vtu(&p, &e.frame()).unwrap();
        let v = parse_vtu(&std::fs::read(&p).unwrap());
        assert!(v.header.contains(r#"NumberOfPoints="0""#));
        assert!(v.arrays.iter().all(|a| a.3.is_empty()));
    }

    #[test]
    fn mismatched_columns_are_rejected() {
        let c = Cols::new(3);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.vtu");
        // Every column is checked, each named in the message.
        let last = ["'y'", "'z'"][DIM - 2];
        let omega = ["'omega'", "'omegaz'"][ANG / 3];
        type Spoil = fn(&Cols) -> Frame<'_>;
        let cases: [(&str, Spoil); 5] = [
            ("'fy'", |c| Frame {
                force: std::array::from_fn(|a| &c.force[a][..if a == 1 { 2 } else { 3 }]),
                ..c.frame()
            }),
            ("'vx'", |c| Frame {
                vel: std::array::from_fn(|a| &c.vel[a][usize::from(a == 0)..]),
                ..c.frame()
            }),
            ("'radius'", |c| Frame {
                radius: &c.radius[..0],
                ..c.frame()
            }),
            (last, |c| Frame {
                pos: std::array::from_fn(|a| &c.pos[a][..if a == DIM - 1 { 1 } else { 3 }]),
                ..c.frame()
            }),
            (omega, |c| Frame {
                omega: std::array::from_fn(|a| &c.omega[a][..if a == ANG - 1 { 1 } else { 3 }]),
                ..c.frame()
            }),
        ];
        for (name, spoil) in cases {
            match write_vtu(&p, &spoil(&c)) {
                Err(IoError::Invalid { path, msg }) => {
                    assert_eq!(path, p);
                    assert!(msg.contains(name), "{msg}");
                }
                other => panic!("expected Invalid, got {other:?}"),
            }
            assert!(!p.exists(), "nothing written for an invalid frame");
        }
    }
}
