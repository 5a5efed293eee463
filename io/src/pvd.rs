//! The `.pvd` collection of a ParaView time series: it lists the `.vtu` frames (`vtk.rs`)
//! with their times, rewritten after every frame (atomically: a temporary file renamed
//! over it), and continued where a restarted run left it.
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::vtk::{write_vtu, Frame};
use crate::{IoError, Result};

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

    /// Whether the collection has no frame yet.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Writes the frame's `.vtu`, then rewrites the `.pvd`. Returns the `.vtu` path. A frame
    /// with a step already in the series replaces it (its file was just overwritten).
    pub fn add_frame(&mut self, step: u64, time: f64, frame: &Frame) -> Result<PathBuf> {
        self.add_file(step, time, |vtu| write_vtu(vtu, frame))
    }

    /// As `add_frame`, the `.vtu` written by `write` (another grid than particles).
    pub fn add_file(&mut self, step: u64, time: f64, write: impl FnOnce(&Path) -> Result<()>) -> Result<PathBuf> {
        let file = format!("{}_{step:08}.vtu", self.basename);
        let vtu = self.dir.join(&file);
        if !time.is_finite() {
            return Err(IoError::Invalid {
                path: vtu,
                msg: format!("frame time {time} is not finite"),
            });
        }
        std::fs::create_dir_all(&self.dir).map_err(|e| IoError::os(&self.dir, e))?;
        write(&vtu)?;
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
                crate::number_text::write_f64(&mut w, e.time)?;
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
    use crate::vtk::tests::{attr, interleave3, parse_vtu, Cols};

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
            assert_eq!(v.f64s("force", 3), interleave3(&c.force));
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
