//! CSV time series of a run's energies and contact count.
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use talus_kernels::math::dot;

use crate::number_text::write_f64;
use crate::{IoError, Result};

/// The CSV header line (without newline).
pub const ENERGY_HEADER: &str = "step,time,kinetic,rotational,elastic,potential,total,contacts";

/// Gravitational potential energy of the free particles, zero at the origin:
/// U = -sum m g . r (with g = (0, -9.81): m 9.81 y). Fixed and driven bodies (infinite
/// mass, moved by no force) have none.
pub fn gravitational_potential(sim: &talus_engine::Simulation) -> f64 {
    let ps = &sim.particles;
    let g = sim.config.gravity;
    (0..ps.len())
        .filter(|&p| ps.inv_mass[p] > 0.0)
        .map(|p| -ps.mass(p) * dot(g, std::array::from_fn(|a| ps.pos[a][p])))
        .sum()
}

/// Writes one CSV row per `record` call:
/// `step,time,kinetic,rotational,elastic,potential,total,contacts`.
#[derive(Debug)]
pub struct EnergySeries {
    path: PathBuf,
    out: BufWriter<File>,
}

impl EnergySeries {
    /// Creates (or truncates) the file and writes the header.
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = File::create(&path).map_err(|e| IoError::os(&path, e))?;
        let mut s = EnergySeries {
            out: BufWriter::new(file),
            path,
        };
        writeln!(s.out, "{ENERGY_HEADER}").map_err(|e| IoError::os(&s.path, e))?;
        s.flush()?;
        Ok(s)
    }

    /// Continue the series in `path` (a restarted run): rows of steps before `step` are
    /// kept, later ones dropped. No file yet: a new series.
    pub fn resume(path: impl AsRef<Path>, step: u64) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return EnergySeries::create(&path),
            Err(e) => return Err(IoError::os(&path, e)),
        };
        let mut lines = text.lines();
        if lines.next() != Some(ENERGY_HEADER) {
            return Err(IoError::Parse {
                path,
                line: 1,
                msg: format!("not an energy series written by talus (header {ENERGY_HEADER:?})"),
            });
        }
        let mut s = EnergySeries::create(&path)?;
        for line in lines {
            let row_step: Option<u64> = line.split(',').next().and_then(|v| v.parse().ok());
            if row_step.is_some_and(|r| r < step) {
                writeln!(s.out, "{line}").map_err(|e| IoError::os(&s.path, e))?;
            }
        }
        s.flush()?;
        Ok(s)
    }

    /// Path of the CSV file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one row (total = kinetic + rotational + elastic + potential) and flushes
    /// it: records are rare, and a row on disk survives a crash of the run that follows.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        step: u64,
        time: f64,
        kinetic: f64,
        rotational: f64,
        elastic: f64,
        potential: f64,
        contacts: u64,
    ) -> Result<()> {
        let total = kinetic + rotational + elastic + potential;
        let w = &mut self.out;
        let mut row = || -> std::io::Result<()> {
            write!(w, "{step}")?;
            for v in [time, kinetic, rotational, elastic, potential, total] {
                w.write_all(b",")?;
                write_f64(w, v)?;
            }
            writeln!(w, ",{contacts}")
        };
        row().map_err(|e| IoError::os(&self.path, e))?;
        self.flush()
    }

    pub fn flush(&mut self) -> Result<()> {
        self.out.flush().map_err(|e| IoError::os(&self.path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("energy.csv");
        let rows = [
            (0u64, 0.0, 0.0, 0.0, 0.0, 0.0, 0u64),
            (100, 1e-4, 1.0 / 3.0, 2.5e-9, 7.125, -3.5, 42),
            (u64::MAX, 12.5, 1e-300, 0.1, 0.2, 0.25, 1_000_000),
        ];
        let mut s = EnergySeries::create(&p).unwrap();
        assert_eq!(s.path(), p);
        // The header is on disk as soon as the file is created.
        assert_eq!(std::fs::read_to_string(&p).unwrap(), format!("{ENERGY_HEADER}\n"));
        for (k, &(step, t, ke, re, ee, pe, c)) in rows.iter().enumerate() {
            s.record(step, t, ke, re, ee, pe, c).unwrap();
            // Flushed per record: the file already holds this row while the writer is alive.
            let n = std::fs::read_to_string(&p).unwrap().lines().count();
            assert_eq!(n, k + 2);
        }
        drop(s);

        let text = std::fs::read_to_string(&p).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(ENERGY_HEADER));
        for &(step, t, ke, re, ee, pe, c) in &rows {
            let f: Vec<&str> = lines.next().unwrap().split(',').collect();
            assert_eq!(f.len(), 8);
            assert_eq!(f[0].parse::<u64>().unwrap(), step);
            let v: Vec<f64> = f[1..7].iter().map(|x| x.parse().unwrap()).collect();
            assert_eq!(v, vec![t, ke, re, ee, pe, ke + re + ee + pe]);
            assert_eq!(f[7].parse::<u64>().unwrap(), c);
        }
        assert_eq!(lines.next(), None);
    }

    #[test]
    fn create_in_missing_dir_is_os_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("missing/energy.csv");
        assert!(matches!(
            EnergySeries::create(&p),
            Err(IoError::Os { path, .. }) if path == p
        ));
    }
}
