//! LAMMPS-style text dump (`dump custom` layout), readable by OVITO. One file holds every
//! snapshot of a run, one after the other.
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use talus_kernels::math::{Vector, DIM};

use crate::number_text::write_f64;
use crate::vtk::Frame;
use crate::{IoError, Result};

/// The per-atom columns of every snapshot: LAMMPS' names, which OVITO maps to its
/// Position, Velocity, Force, Angular Velocity, Radius (and Orientation in 2D).
#[cfg(not(feature = "dim3"))]
pub const DUMP_COLUMNS: &str = "id type x y z vx vy vz radius omegaz fx fy angle quatw quati quatj quatk";
/// The per-atom columns of every snapshot in 3D (OVITO: Position, Velocity, Force, Angular
/// Velocity, Radius).
#[cfg(feature = "dim3")]
pub const DUMP_COLUMNS: &str = "id type x y z vx vy vz fx fy fz omegax omegay omegaz radius";

/// The columns added where the run analyses (`[analysis]`): the grain's contacts and the
/// symmetric part of its stress, in LAMMPS' order of `compute stress/atom` (xx yy zz xy xz
/// yz; xx yy xy in 2D).
#[cfg(not(feature = "dim3"))]
pub const ANALYSIS_COLUMNS: &str = "contacts sxx syy sxy";
/// The analysis columns in 3D: contacts and the six stress components.
#[cfg(feature = "dim3")]
pub const ANALYSIS_COLUMNS: &str = "contacts sxx syy szz sxy sxz syz";

/// The (row, column) pairs of the stress columns.
#[cfg(not(feature = "dim3"))]
const STRESS_PAIRS: [(usize, usize); 3] = [(0, 0), (1, 1), (0, 1)];
#[cfg(feature = "dim3")]
const STRESS_PAIRS: [(usize, usize); 6] = [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)];

/// Appends snapshots to a LAMMPS text dump file.
#[derive(Debug)]
pub struct DumpWriter {
    path: PathBuf,
    out: BufWriter<File>,
    /// The axes the header marks periodic ("pp"); the others are fixed ("ff").
    pub periodic: [bool; DIM],
}

impl DumpWriter {
    /// Creates (or truncates) the dump file.
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = File::create(&path).map_err(|e| IoError::os(&path, e))?;
        Ok(DumpWriter {
            out: BufWriter::with_capacity(1 << 20, file),
            path,
            periodic: [false; DIM],
        })
    }

    /// Continue the dump in `path` (a restarted run): the snapshots of steps before `step`
    /// are kept, the file is cut where the first later one starts. No file yet: a new dump.
    pub fn resume(path: impl AsRef<Path>, step: u64) -> Result<Self> {
        use std::io::{BufRead, BufReader};
        let path = path.as_ref().to_path_buf();
        let file = match std::fs::OpenOptions::new().read(true).write(true).open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return DumpWriter::create(&path),
            Err(e) => return Err(IoError::os(&path, e)),
        };
        // Streamed: a dump can be far larger than memory.
        let mut reader = BufReader::with_capacity(1 << 20, &file);
        let (mut at, mut cut) = (0u64, None);
        let mut line = String::new();
        let mut after_timestep = false;
        let mut snapshot_start = 0;
        loop {
            line.clear();
            let n = reader.read_line(&mut line).map_err(|e| IoError::os(&path, e))?;
            if n == 0 {
                break;
            }
            if after_timestep {
                let s: u64 = line.trim().parse().map_err(|_| IoError::Invalid {
                    path: path.clone(),
                    msg: format!("byte {at}: a timestep that is not a number: {:?}", line.trim()),
                })?;
                if s >= step {
                    cut = Some(snapshot_start);
                    break;
                }
            }
            after_timestep = line.trim_end() == "ITEM: TIMESTEP";
            if after_timestep {
                snapshot_start = at;
            }
            at += n as u64;
        }
        drop(reader);
        let end = cut.unwrap_or(at);
        file.set_len(end).map_err(|e| IoError::os(&path, e))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        std::io::Seek::seek(&mut out, std::io::SeekFrom::Start(end)).map_err(|e| IoError::os(&path, e))?;
        Ok(DumpWriter {
            out,
            path,
            periodic: [false; DIM],
        })
    }

    /// Path of the dump file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one snapshot. In 2D, z gets the bounds -0.5..0.5 and every particle z = 0,
    /// vz = 0. The snapshot is flushed to the file before returning, so a viewer (or a
    /// crash) never sees half a snapshot that is not coming.
    pub fn write_snapshot(&mut self, step: u64, box_lo: Vector, box_hi: Vector, frame: &Frame) -> Result<()> {
        let n = frame.check(&self.path)?;
        write_snapshot_to(&mut self.out, step, [box_lo, box_hi], self.periodic, frame, n)
            .and_then(|()| self.out.flush())
            .map_err(|e| IoError::os(&self.path, e))
    }

    /// Flushes buffered output (snapshots are already flushed by `write_snapshot`).
    pub fn flush(&mut self) -> Result<()> {
        self.out.flush().map_err(|e| IoError::os(&self.path, e))
    }
}

fn write_snapshot_to<W: Write>(
    w: &mut W,
    step: u64,
    [box_lo, box_hi]: [Vector; 2],
    periodic: [bool; DIM],
    f: &Frame,
    n: usize,
) -> std::io::Result<()> {
    write!(w, "ITEM: TIMESTEP\n{step}\nITEM: NUMBER OF ATOMS\n{n}\n")?;
    // Fixed ("ff") or periodic ("pp") per axis; in 2D one periodic slab in z so OVITO
    // treats the cell as 2D-like.
    let flags: Vec<&str> = periodic.iter().map(|&p| if p { "pp" } else { "ff" }).collect();
    let slab = if DIM == 2 { " pp" } else { "" };
    writeln!(w, "ITEM: BOX BOUNDS {}{slab}", flags.join(" "))?;
    for d in 0..DIM {
        write_f64(w, box_lo[d])?;
        w.write_all(b" ")?;
        write_f64(w, box_hi[d])?;
        w.write_all(b"\n")?;
    }
    if DIM == 2 {
        writeln!(w, "-0.5 0.5")?;
    }
    match f.analysis {
        Some(_) => writeln!(w, "ITEM: ATOMS {DUMP_COLUMNS} {ANALYSIS_COLUMNS}")?,
        None => writeln!(w, "ITEM: ATOMS {DUMP_COLUMNS}")?,
    }
    // Column a of a vector given per axis, 0 past the frame's axes (z in 2D).
    let at = |v: &[&[f64]], a: usize, i: usize| if a < v.len() { v[a][i] } else { 0.0 };
    for i in 0..n {
        write!(w, "{} {}", f.ids[i], f.types[i])?;
        for v in (0..3).map(|a| at(&f.pos, a, i)).chain((0..3).map(|a| at(&f.vel, a, i))) {
            w.write_all(b" ")?;
            write_f64(w, v)?;
        }
        // fx fy (fz): the total force (contacts and gravity), as LAMMPS writes it.
        #[cfg(not(feature = "dim3"))]
        {
            for v in [f.radius[i], f.omega[0][i], f.force[0][i], f.force[1][i], f.angle[i]] {
                w.write_all(b" ")?;
                write_f64(w, v)?;
            }
            // The orientation as OVITO reads it: a quaternion of the rotation by `angle`
            // about z.
            let (s, c) = (0.5 * f.angle[i]).sin_cos();
            w.write_all(b" ")?;
            write_f64(w, c)?;
            w.write_all(b" 0 0 ")?;
            write_f64(w, s)?;
        }
        #[cfg(feature = "dim3")]
        for v in (0..3)
            .map(|a| f.force[a][i])
            .chain((0..3).map(|a| f.omega[a][i]))
            .chain([f.radius[i]])
        {
            w.write_all(b" ")?;
            write_f64(w, v)?;
        }
        if let Some(a) = &f.analysis {
            write!(w, " {}", a.contacts[i])?;
            let s = &a.stress[i];
            for (r, c) in STRESS_PAIRS {
                w.write_all(b" ")?;
                write_f64(w, 0.5 * (s[r][c] + s[c][r]))?;
            }
        }
        w.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use talus_kernels::math::ANG;

    use super::*;

    struct Snap {
        step: u64,
        lo: Vector,
        hi: Vector,
        ids: Vec<u64>,
        types: Vec<u32>,
        /// pos (DIM) vel (DIM) force (DIM) omega (ANG) radius, angle in 2D
        cols: Vec<Vec<f64>>,
    }

    /// Where each vector starts in `Snap::cols`.
    const POS: usize = 0;
    const VEL: usize = DIM;
    const FORCE: usize = 2 * DIM;
    const OMEGA: usize = 3 * DIM;
    const RADIUS: usize = 3 * DIM + ANG;
    const COLS: usize = RADIUS + 1 + (DIM == 2) as usize;

    impl Snap {
        fn new(step: u64, n: usize, seed: f64) -> Self {
            let g = |k: f64| -> Vec<f64> { (0..n).map(|i| seed * k * (i as f64 + 0.3).powi(3) / 7.0).collect() };
            let scales = [
                1.0, -1.0, 2.5, 1e-12, 1e20, -0.0, 1e-300, 0.0, 3e7, -5.0, 0.25, 1e-9, 1e-4, 0.5,
            ];
            let mut cols: Vec<Vec<f64>> = (0..COLS).map(|k| g(scales[k])).collect();
            cols[RADIUS] = g(1e-4);
            if DIM == 2 {
                cols[COLS - 1] = g(std::f64::consts::PI);
            }
            Snap {
                step,
                lo: std::array::from_fn(|d| -seed * (d + 1) as f64),
                hi: std::array::from_fn(|d| seed * 3.0 + 1.0 / (d + 3) as f64),
                ids: (0..n as u64).map(|i| 10 * i + 1).collect(),
                types: (0..n as u32).map(|i| 1 + i % 2).collect(),
                cols,
            }
        }

        fn frame(&self) -> Frame<'_> {
            let c = &self.cols;
            Frame {
                ids: &self.ids,
                types: &self.types,
                pos: std::array::from_fn(|a| c[POS + a].as_slice()),
                vel: std::array::from_fn(|a| c[VEL + a].as_slice()),
                force: std::array::from_fn(|a| c[FORCE + a].as_slice()),
                omega: std::array::from_fn(|a| c[OMEGA + a].as_slice()),
                radius: &c[RADIUS],
                #[cfg(not(feature = "dim3"))]
                angle: &c[COLS - 1],
                #[cfg(not(feature = "dim3"))]
                polygons: None,
                analysis: None,
            }
        }
    }

    /// Reads snapshots back, checking every line's layout against the LAMMPS dump format.
    fn parse_dump(text: &str) -> Vec<Snap> {
        let mut lines = text.lines();
        let mut out = Vec::new();
        let num = |s: &str| s.parse::<f64>().unwrap();
        // The text columns of Snap::cols (`z`, `vz` stand for the vectors' third component).
        let names: Vec<String> = ["", "v", "f"]
            .iter()
            .flat_map(|v| ["x", "y", "z"][..DIM].iter().map(move |a| format!("{v}{a}")))
            .chain(if DIM == 2 {
                vec!["omegaz".to_string()]
            } else {
                ["x", "y", "z"].map(|a| format!("omega{a}")).to_vec()
            })
            .chain(["radius".to_string()])
            .chain((DIM == 2).then(|| "angle".to_string()))
            .collect();
        while let Some(l) = lines.next() {
            assert_eq!(l, "ITEM: TIMESTEP");
            let step = lines.next().unwrap().parse().unwrap();
            assert_eq!(lines.next().unwrap(), "ITEM: NUMBER OF ATOMS");
            let n: usize = lines.next().unwrap().parse().unwrap();
            let bounds = if DIM == 2 { "ff ff pp" } else { "ff ff ff" };
            assert_eq!(lines.next().unwrap(), format!("ITEM: BOX BOUNDS {bounds}"));
            let mut lo = [0.0; DIM];
            let mut hi = [0.0; DIM];
            for d in 0..DIM {
                let b: Vec<f64> = lines.next().unwrap().split(' ').map(num).collect();
                assert_eq!(b.len(), 2);
                (lo[d], hi[d]) = (b[0], b[1]);
            }
            if DIM == 2 {
                assert_eq!(lines.next().unwrap(), "-0.5 0.5");
            }
            let header = lines.next().unwrap();
            assert_eq!(header, format!("ITEM: ATOMS {DUMP_COLUMNS}"));
            let columns: Vec<&str> = header["ITEM: ATOMS ".len()..].split(' ').collect();
            let col = |name: &str| {
                columns
                    .iter()
                    .position(|c| *c == name)
                    .unwrap_or_else(|| panic!("{name}"))
            };
            let mut s = Snap {
                step,
                lo,
                hi,
                ids: vec![],
                types: vec![],
                cols: vec![vec![]; COLS],
            };
            for _ in 0..n {
                let t: Vec<&str> = lines.next().unwrap().split(' ').collect();
                assert_eq!(t.len(), columns.len());
                s.ids.push(t[col("id")].parse().unwrap());
                s.types.push(t[col("type")].parse().unwrap());
                if DIM == 2 {
                    assert_eq!(t[col("z")], "0");
                    assert_eq!(t[col("vz")], "0");
                    // The orientation: a unit quaternion about z of half the angle.
                    let a = num(t[col("angle")]);
                    let q = ["quatw", "quati", "quatj", "quatk"].map(|c| num(t[col(c)]));
                    assert_eq!([q[1], q[2]], [0.0, 0.0]);
                    assert!((q[0] - (0.5 * a).cos()).abs() < 1e-15 && (q[3] - (0.5 * a).sin()).abs() < 1e-15);
                }
                for (c, name) in s.cols.iter_mut().zip(&names) {
                    c.push(num(t[col(name)]));
                }
            }
            out.push(s);
        }
        out
    }

    fn assert_same(a: &Snap, b: &Snap) {
        assert_eq!(a.step, b.step);
        assert_eq!(a.lo, b.lo);
        assert_eq!(a.hi, b.hi);
        assert_eq!(a.ids, b.ids);
        assert_eq!(a.types, b.types);
        // Exact equality: the text must round-trip every bit.
        assert_eq!(a.cols, b.cols);
    }

    #[test]
    fn two_snapshots_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("run.dump");
        let s1 = Snap::new(0, 4, 1.0);
        let s2 = Snap::new(25_000, 7, -0.123456789);
        let mut w = DumpWriter::create(&p).unwrap();
        assert_eq!(w.path(), p);
        w.write_snapshot(s1.step, s1.lo, s1.hi, &s1.frame()).unwrap();
        // Flushed per snapshot: the first is complete on disk before the second is written.
        let partial = parse_dump(&std::fs::read_to_string(&p).unwrap());
        assert_eq!(partial.len(), 1);
        w.write_snapshot(s2.step, s2.lo, s2.hi, &s2.frame()).unwrap();
        drop(w);

        let back = parse_dump(&std::fs::read_to_string(&p).unwrap());
        assert_eq!(back.len(), 2);
        assert_same(&back[0], &s1);
        assert_same(&back[1], &s2);
    }

    /// The snapshot's header as OVITO reads it: three bounded axes in 3D, a thin periodic
    /// z slab in 2D, and LAMMPS' column names.
    #[test]
    fn header_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("run.dump");
        let s = Snap::new(0, 1, 1.0);
        let mut w = DumpWriter::create(&p).unwrap();
        w.write_snapshot(s.step, s.lo, s.hi, &s.frame()).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let head: Vec<&str> = text.lines().take(9).collect();
        #[cfg(not(feature = "dim3"))]
        let want = [
            "ITEM: BOX BOUNDS ff ff pp",
            "-1 3.3333333333333335",
            "-2 3.25",
            "-0.5 0.5",
            "ITEM: ATOMS id type x y z vx vy vz radius omegaz fx fy angle quatw quati quatj quatk",
        ];
        #[cfg(feature = "dim3")]
        let want = [
            "ITEM: BOX BOUNDS ff ff ff",
            "-1 3.3333333333333335",
            "-2 3.25",
            "-3 3.2",
            "ITEM: ATOMS id type x y z vx vy vz fx fy fz omegax omegay omegaz radius",
        ];
        assert_eq!(head[..4], ["ITEM: TIMESTEP", "0", "ITEM: NUMBER OF ATOMS", "1"]);
        assert_eq!(head[4..], want);
    }

    #[test]
    fn mismatched_frame_is_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.dump");
        let s = Snap::new(1, 3, 1.0);
        let mut f = s.frame();
        f.types = &s.types[..1];
        let mut w = DumpWriter::create(&p).unwrap();
        assert!(matches!(
            w.write_snapshot(1, s.lo, s.hi, &f),
            Err(IoError::Invalid { .. })
        ));
        w.flush().unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "");
    }

    #[test]
    fn create_in_missing_dir_is_os_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("no/such/dir/run.dump");
        match DumpWriter::create(&p) {
            Err(IoError::Os { path, .. }) => assert_eq!(path, p),
            other => panic!("expected Os error, got {other:?}"),
        }
    }

    #[test]
    fn numbers_are_short_and_exact() {
        let fmt = |v: f64| {
            let mut b = Vec::new();
            write_f64(&mut b, v).unwrap();
            String::from_utf8(b).unwrap()
        };
        assert_eq!(fmt(0.0), "0");
        assert_eq!(fmt(0.5), "0.5");
        assert_eq!(fmt(-1.25e-3), "-0.00125");
        assert_eq!(fmt(1e-300), "1e-300");
        assert_eq!(fmt(-3.5e20), "-3.5e20");
        for v in [
            1.0 / 3.0,
            -1.2276605486388026e-15,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            1e16 - 2.0,
            1e16,
            1e-5,
            0.1 + 0.2,
        ] {
            let s = fmt(v);
            assert_eq!(s.parse::<f64>().unwrap(), v, "{s}");
            assert!(s.len() <= 25, "{s}");
        }
    }
}
