//! ParaView output: one `.vtu` (VTK XML UnstructuredGrid) file per frame, with a `.pvd`
//! collection that lists the frames with their times.
//!
//! Data go in one raw little-endian appended block (UInt64 size headers): no base64 or text
//! formatting, so writing 10^6 particles is little more than a memory copy.
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::{IoError, Result};

/// One snapshot of the particles, as borrowed per-particle columns (all the same length).
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    pub ids: &'a [u64],
    pub types: &'a [u32],
    pub x: &'a [f64],
    pub y: &'a [f64],
    pub vx: &'a [f64],
    pub vy: &'a [f64],
    pub omega: &'a [f64],
    pub radius: &'a [f64],
    pub fx: &'a [f64],
    pub fy: &'a [f64],
    pub angle: &'a [f64],
}

impl Frame<'_> {
    /// Number of particles (the length of `ids`).
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Checks every column has as many entries as `ids`; returns that number. `path` is the
    /// file about to be written, for the error message.
    pub(crate) fn check(&self, path: &Path) -> Result<usize> {
        let n = self.ids.len();
        let cols: [(&str, usize); 10] = [
            ("types", self.types.len()),
            ("x", self.x.len()),
            ("y", self.y.len()),
            ("vx", self.vx.len()),
            ("vy", self.vy.len()),
            ("omega", self.omega.len()),
            ("radius", self.radius.len()),
            ("fx", self.fx.len()),
            ("fy", self.fy.len()),
            ("angle", self.angle.len()),
        ];
        for (name, len) in cols {
            if len != n {
                return Err(IoError::Invalid {
                    path: path.to_path_buf(),
                    msg: format!("frame column '{name}' has {len} entries but there are {n} ids"),
                });
            }
        }
        Ok(n)
    }
}

/// VTK cell type of a single point.
const VTK_VERTEX: u8 = 1;

/// One DataArray of the appended block.
struct Array {
    name: &'static str,
    ty: &'static str,
    components: usize,
    value_bytes: usize,
}

/// The arrays in the order they are written; `write_vtu_to` must follow the same order.
const POINT_DATA: [Array; 7] = [
    arr("id", "Int64", 1, 8),
    arr("type", "Int32", 1, 4),
    arr("radius", "Float64", 1, 8),
    arr("velocity", "Float64", 3, 8),
    arr("omega", "Float64", 1, 8),
    arr("force", "Float64", 3, 8),
    arr("angle", "Float64", 1, 8),
];
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

/// Writes one frame as a `.vtu` file: one VTK_VERTEX cell per particle at (x, y, 0), with
/// point data id, type, radius, velocity, omega, force and angle.
pub fn write_vtu(path: &Path, frame: &Frame) -> Result<()> {
    let n = frame.check(path)?;
    let file = File::create(path).map_err(|e| IoError::os(path, e))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    write_vtu_to(&mut w, frame, n).map_err(|e| IoError::os(path, e))?;
    w.flush().map_err(|e| IoError::os(path, e))
}

fn write_vtu_to<W: Write>(w: &mut W, f: &Frame, n: usize) -> std::io::Result<()> {
    writeln!(w, r#"<?xml version="1.0"?>"#)?;
    writeln!(
        w,
        r#"<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
    )?;
    writeln!(w, "  <UnstructuredGrid>")?;
    writeln!(w, r#"    <Piece NumberOfPoints="{n}" NumberOfCells="{n}">"#)?;

    // Offsets count from the byte after the '_' marker; each block is an 8-byte size + data.
    let mut offset = 0u64;
    let mut decl = |w: &mut W, a: &Array| -> std::io::Result<()> {
        writeln!(
            w,
            r#"        <DataArray type="{}" Name="{}" NumberOfComponents="{}" format="appended" offset="{offset}"/>"#,
            a.ty, a.name, a.components
        )?;
        offset += 8 + a.data_bytes(n);
        Ok(())
    };
    writeln!(w, r#"      <PointData Scalars="radius" Vectors="velocity">"#)?;
    for a in &POINT_DATA {
        decl(w, a)?;
    }
    writeln!(w, "      </PointData>")?;
    writeln!(w, "      <Points>")?;
    decl(w, &POINTS)?;
    writeln!(w, "      </Points>")?;
    writeln!(w, "      <Cells>")?;
    for a in &CELLS {
        decl(w, a)?;
    }
    writeln!(w, "      </Cells>")?;
    writeln!(w, "    </Piece>")?;
    writeln!(w, "  </UnstructuredGrid>")?;
    write!(w, "  <AppendedData encoding=\"raw\">\n   _")?;

    let size = |w: &mut W, a: &Array| w.write_all(&a.data_bytes(n).to_le_bytes());
    let f64s = |w: &mut W, v: &[f64]| -> std::io::Result<()> {
        for x in v {
            w.write_all(&x.to_le_bytes())?;
        }
        Ok(())
    };
    let vec3 = |w: &mut W, a: &[f64], b: &[f64]| -> std::io::Result<()> {
        for (x, y) in a.iter().zip(b) {
            w.write_all(&x.to_le_bytes())?;
            w.write_all(&y.to_le_bytes())?;
            w.write_all(&0f64.to_le_bytes())?;
        }
        Ok(())
    };

    // id: VTK has no unsigned 64-bit array type ParaView handles well; ids fit in i64.
    size(w, &POINT_DATA[0])?;
    for &id in f.ids {
        w.write_all(&(id as i64).to_le_bytes())?;
    }
    size(w, &POINT_DATA[1])?;
    for &t in f.types {
        w.write_all(&(t as i32).to_le_bytes())?;
    }
    size(w, &POINT_DATA[2])?;
    f64s(w, f.radius)?;
    size(w, &POINT_DATA[3])?;
    vec3(w, f.vx, f.vy)?;
    size(w, &POINT_DATA[4])?;
    f64s(w, f.omega)?;
    size(w, &POINT_DATA[5])?;
    vec3(w, f.fx, f.fy)?;
    size(w, &POINT_DATA[6])?;
    f64s(w, f.angle)?;

    size(w, &POINTS)?;
    vec3(w, f.x, f.y)?;

    size(w, &CELLS[0])?;
    for i in 0..n as i64 {
        w.write_all(&i.to_le_bytes())?;
    }
    size(w, &CELLS[1])?;
    for i in 1..=n as i64 {
        w.write_all(&i.to_le_bytes())?;
    }
    size(w, &CELLS[2])?;
    // All cells are vertices: write the type bytes in chunks rather than one at a time.
    let chunk = [VTK_VERTEX; 4096];
    let mut left = n;
    while left > 0 {
        let k = left.min(chunk.len());
        w.write_all(&chunk[..k])?;
        left -= k;
    }

    write!(w, "\n  </AppendedData>\n</VTKFile>\n")
}

/// A time series of `.vtu` frames with a `.pvd` collection kept up to date after every frame.
///
/// Frames go to `{dir}/{basename}_{step:08}.vtu`; the collection is `{dir}/{basename}.pvd`.
/// A new series starts an empty collection (it does not read an existing `.pvd`).
#[derive(Debug, Clone)]
pub struct PvdSeries {
    dir: PathBuf,
    basename: String,
    frames: Vec<PvdEntry>,
}

#[derive(Debug, Clone)]
struct PvdEntry {
    step: u64,
    time: f64,
    file: String,
}

impl PvdSeries {
    /// Touches no file yet: the directory is created by the first `add_frame`.
    pub fn new(dir: impl Into<PathBuf>, basename: impl Into<String>) -> Self {
        PvdSeries {
            dir: dir.into(),
            basename: basename.into(),
            frames: Vec::new(),
        }
    }

    /// Continue the series already in `dir` (a restarted run): the frames of steps before
    /// `step` are kept, later ones dropped from the collection (their `.vtu` files are
    /// overwritten as the run reaches them again). No `.pvd` yet: a new series.
    pub fn resume(dir: impl Into<PathBuf>, basename: impl Into<String>, step: u64) -> Result<Self> {
        let mut s = PvdSeries::new(dir, basename);
        let pvd = s.pvd_path();
        let text = match std::fs::read_to_string(&pvd) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(s),
            Err(e) => return Err(IoError::os(&pvd, e)),
        };
        let prefix = format!("{}_", s.basename);
        for (k, line) in text.lines().enumerate() {
            let Some(rest) = line.trim().strip_prefix("<DataSet ") else {
                continue;
            };
            let attr = |name: &str| {
                rest.split_once(&format!("{name}=\""))
                    .and_then(|(_, r)| r.split_once('"'))
                    .map(|(v, _)| v.to_string())
            };
            let bad = || IoError::Parse {
                path: pvd.clone(),
                line: k + 1,
                msg: "not a DataSet entry written by talus (timestep and file PREFIX_STEP.vtu)".into(),
            };
            let (time, file) = (attr("timestep").ok_or_else(bad)?, attr("file").ok_or_else(bad)?);
            let frame_step: u64 = file
                .strip_prefix(&prefix)
                .and_then(|r| r.strip_suffix(".vtu"))
                .and_then(|n| n.parse().ok())
                .ok_or_else(bad)?;
            let time: f64 = time.parse().map_err(|_| bad())?;
            if frame_step < step {
                s.frames.push(PvdEntry {
                    step: frame_step,
                    time,
                    file,
                });
            }
        }
        Ok(s)
    }

    /// Path of the `.pvd` collection file.
    pub fn pvd_path(&self) -> PathBuf {
        self.dir.join(format!("{}.pvd", self.basename))
    }

    /// Number of frames in the collection.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Writes the frame's `.vtu`, then rewrites the `.pvd`. Returns the `.vtu` path. A frame
    /// with a step already in the series replaces it (its file was just overwritten).
    pub fn add_frame(&mut self, step: u64, time: f64, frame: &Frame) -> Result<PathBuf> {
        let file = format!("{}_{step:08}.vtu", self.basename);
        let vtu = self.dir.join(&file);
        if !time.is_finite() {
            return Err(IoError::Invalid {
                path: vtu,
                msg: format!("frame time {time} is not finite"),
            });
        }
        std::fs::create_dir_all(&self.dir).map_err(|e| IoError::os(&self.dir, e))?;
        write_vtu(&vtu, frame)?;
        match self.frames.iter_mut().find(|e| e.step == step) {
            Some(e) => e.time = time,
            None => self.frames.push(PvdEntry { step, time, file }),
        }
        self.write_pvd()?;
        Ok(vtu)
    }

    /// Writes the collection to a temporary file and renames it over the old one, so a run
    /// killed at any moment leaves a complete `.pvd` behind.
    fn write_pvd(&self) -> Result<()> {
        let pvd = self.pvd_path();
        let tmp = self.dir.join(format!("{}.pvd.tmp", self.basename));
        let write = || -> std::io::Result<()> {
            let file = File::create(&tmp)?;
            let mut w = BufWriter::new(file);
            writeln!(w, r#"<?xml version="1.0"?>"#)?;
            writeln!(
                w,
                r#"<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">"#
            )?;
            writeln!(w, "  <Collection>")?;
            for e in &self.frames {
                write!(w, r#"    <DataSet timestep=""#)?;
                crate::dump::write_f64(&mut w, e.time)?;
                writeln!(w, r#"" group="" part="0" file="{}"/>"#, xml_escape(&e.file))?;
            }
            writeln!(w, "  </Collection>")?;
            writeln!(w, "</VTKFile>")?;
            let file = w.into_inner().map_err(|e| e.into_error())?;
            // Data on disk before the rename, so even a power cut leaves old or new, not empty.
            file.sync_all()
        };
        write().map_err(|e| IoError::os(&tmp, e))?;
        std::fs::rename(&tmp, &pvd).map_err(|e| IoError::os(&pvd, e))
    }
}

/// Escapes a string for use inside a double-quoted XML attribute.
fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Owned columns from which test frames borrow.
    struct Cols {
        ids: Vec<u64>,
        types: Vec<u32>,
        x: Vec<f64>,
        y: Vec<f64>,
        vx: Vec<f64>,
        vy: Vec<f64>,
        omega: Vec<f64>,
        radius: Vec<f64>,
        fx: Vec<f64>,
        fy: Vec<f64>,
        angle: Vec<f64>,
    }

    impl Cols {
        fn new(n: usize) -> Self {
            let g = |k: f64| (0..n).map(|i| k * (i as f64 + 1.0) + 0.1).collect::<Vec<_>>();
            Cols {
                ids: (0..n as u64).map(|i| 1000 + 7 * i).collect(),
                types: (0..n as u32).map(|i| 1 + i % 3).collect(),
                x: g(1.5),
                y: g(-2.25),
                vx: g(1e-7),
                vy: g(-3e5),
                omega: g(0.125),
                radius: g(1e-3),
                fx: g(-1.0 / 3.0),
                fy: g(std::f64::consts::PI),
                angle: g(-0.5),
            }
        }

        fn frame(&self) -> Frame<'_> {
            Frame {
                ids: &self.ids,
                types: &self.types,
                x: &self.x,
                y: &self.y,
                vx: &self.vx,
                vy: &self.vy,
                omega: &self.omega,
                radius: &self.radius,
                fx: &self.fx,
                fy: &self.fy,
                angle: &self.angle,
            }
        }
    }

    /// Value of attribute `name` in an XML tag's text.
    fn attr<'a>(tag: &'a str, name: &str) -> &'a str {
        let key = format!(" {name}=\"");
        let start = tag.find(&key).unwrap_or_else(|| panic!("no {name} in {tag}")) + key.len();
        let len = tag[start..].find('"').unwrap();
        &tag[start..start + len]
    }

    /// A .vtu decoded by hand: the XML text before the data, and each DataArray's name,
    /// type, component count and raw bytes.
    struct Vtu {
        header: String,
        arrays: Vec<(String, String, usize, Vec<u8>)>,
    }

    fn parse_vtu(bytes: &[u8]) -> Vtu {
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
        for piece in header.split("<DataArray").skip(1) {
            let tag = &piece[..piece.find("/>").unwrap()];
            assert_eq!(attr(tag, "format"), "appended");
            let off: usize = attr(tag, "offset").parse().unwrap();
            let len = u64::from_le_bytes(data[off..off + 8].try_into().unwrap()) as usize;
            let raw = data[off + 8..off + 8 + len].to_vec();
            end_of_data = end_of_data.max(off + 8 + len);
            arrays.push((
                attr(tag, "Name").to_string(),
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
        fn raw(&self, name: &str, ty: &str, comps: usize) -> &[u8] {
            let a = self
                .arrays
                .iter()
                .find(|a| a.0 == name)
                .unwrap_or_else(|| panic!("no array {name}"));
            assert_eq!((a.1.as_str(), a.2), (ty, comps), "array {name}");
            &a.3
        }
        fn f64s(&self, name: &str, comps: usize) -> Vec<f64> {
            self.raw(name, "Float64", comps)
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect()
        }
        fn i64s(&self, name: &str) -> Vec<i64> {
            self.raw(name, "Int64", 1)
                .chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                .collect()
        }
    }

    fn interleave3(a: &[f64], b: &[f64]) -> Vec<f64> {
        a.iter().zip(b).flat_map(|(&x, &y)| [x, y, 0.0]).collect()
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
        assert_eq!(v.f64s("velocity", 3), interleave3(&c.vx, &c.vy));
        assert_eq!(v.f64s("omega", 1), c.omega);
        assert_eq!(v.f64s("force", 3), interleave3(&c.fx, &c.fy));
        assert_eq!(v.f64s("angle", 1), c.angle);
        assert_eq!(v.f64s("Points", 3), interleave3(&c.x, &c.y));
        assert_eq!(v.i64s("connectivity"), vec![0, 1, 2, 3, 4]);
        assert_eq!(v.i64s("offsets"), vec![1, 2, 3, 4, 5]);
        assert_eq!(v.raw("types", "UInt8", 1), &[VTK_VERTEX; 5]);
        assert_eq!(v.arrays.len(), 11);
    }

    #[test]
    fn vtu_many_particles_and_empty() {
        // More particles than one chunk of cell-type bytes.
        let c = Cols::new(10_000);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.vtu");
        write_vtu(&p, &c.frame()).unwrap();
        let v = parse_vtu(&std::fs::read(&p).unwrap());
        assert_eq!(v.f64s("Points", 3), interleave3(&c.x, &c.y));
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
        let mut f = c.frame();
        f.fy = &c.fy[..2];
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.vtu");
        match write_vtu(&p, &f) {
            Err(IoError::Invalid { path, msg }) => {
                assert_eq!(path, p);
                assert!(msg.contains("'fy'"), "{msg}");
            }
            other => panic!("expected Invalid, got {other:?}"),
        }
        assert!(!p.exists(), "nothing written for an invalid frame");
    }

    /// (timestep, file) of every DataSet in a .pvd.
    fn pvd_entries(path: &Path) -> Vec<(f64, String)> {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.starts_with("<?xml"));
        assert!(text.contains(r#"<VTKFile type="Collection""#));
        assert!(text.trim_end().ends_with("</VTKFile>"));
        text.lines()
            .filter(|l| l.contains("<DataSet"))
            .map(|l| (attr(l, "timestep").parse().unwrap(), attr(l, "file").to_string()))
            .collect()
    }

    #[test]
    fn pvd_lists_all_frames() {
        let c = Cols::new(4);
        let root = tempfile::tempdir().unwrap();
        // The directory does not exist yet: add_frame creates it.
        let dir = root.path().join("out/vtk");
        let mut s = PvdSeries::new(&dir, "run");
        assert!(s.is_empty());
        let steps = [(0u64, 0.0), (1000, 1e-3), (2000, 2.5e-9), (123_456_789, 1e7)];
        for (k, &(step, time)) in steps.iter().enumerate() {
            let p = s.add_frame(step, time, &c.frame()).unwrap();
            assert_eq!(p, dir.join(format!("run_{step:08}.vtu")));
            assert!(p.exists());
            // After each frame, the .pvd is complete and lists the frames so far.
            let e = pvd_entries(&s.pvd_path());
            assert_eq!(e.len(), k + 1);
            assert!(!dir.join("run.pvd.tmp").exists());
        }
        assert_eq!(s.pvd_path(), dir.join("run.pvd"));
        let e = pvd_entries(&s.pvd_path());
        let want: Vec<(f64, String)> = steps
            .iter()
            .map(|&(step, time)| (time, format!("run_{step:08}.vtu")))
            .collect();
        assert_eq!(e, want);
        assert_eq!(e[1].1, "run_00001000.vtu");
        assert_eq!(e[3].1, "run_123456789.vtu");
        // Every listed file is a readable frame, relative to the .pvd's directory.
        for (_, f) in &e {
            let v = parse_vtu(&std::fs::read(dir.join(f)).unwrap());
            assert_eq!(v.f64s("angle", 1), c.angle);
        }

        // Rewriting a step replaces its entry rather than listing it twice.
        s.add_frame(1000, 1.5e-3, &c.frame()).unwrap();
        let e = pvd_entries(&s.pvd_path());
        assert_eq!(e.len(), 4);
        assert_eq!(e[1], (1.5e-3, "run_00001000.vtu".to_string()));
        assert_eq!(s.len(), 4);
    }

    #[test]
    fn pvd_escapes_names_and_rejects_bad_time() {
        let c = Cols::new(1);
        let dir = tempfile::tempdir().unwrap();
        let mut s = PvdSeries::new(dir.path(), "a&b");
        s.add_frame(7, 0.5, &c.frame()).unwrap();
        let text = std::fs::read_to_string(s.pvd_path()).unwrap();
        assert!(text.contains(r#"file="a&amp;b_00000007.vtu""#), "{text}");
        assert!(matches!(
            s.add_frame(8, f64::NAN, &c.frame()),
            Err(IoError::Invalid { .. })
        ));
        assert_eq!(s.len(), 1);
    }
}
