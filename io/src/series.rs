//! CSV time series: the energies and contact count of a run, the outflow regions' counts,
//! and the one writer they and the analysis series share.
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

/// A CSV time series: a header line, then one row per step, each flushed as it is
/// written (a row on disk survives a crash of the run that follows), continued by a
/// restarted run. The energy, analysis and outflow series are each one of these.
#[derive(Debug)]
pub(crate) struct CsvSeries {
    path: PathBuf,
    out: BufWriter<File>,
}

impl CsvSeries {
    /// Creates (or truncates) the file and writes the header.
    pub(crate) fn create(path: &Path, header: &str) -> Result<Self> {
        let file = File::create(path).map_err(|e| IoError::os(path, e))?;
        let mut s = CsvSeries {
            out: BufWriter::new(file),
            path: path.to_path_buf(),
        };
        writeln!(s.out, "{header}").map_err(|e| IoError::os(path, e))?;
        s.flush()?;
        Ok(s)
    }

    /// Continue the series in `path` (a restarted run): rows of steps before `before` kept,
    /// later ones dropped. A file with another header is refused (`what` names the series
    /// in the message); no file yet: a new series.
    pub(crate) fn resume(path: &Path, header: &str, before: u64, what: &str) -> Result<Self> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return CsvSeries::create(path, header),
            Err(e) => return Err(IoError::os(path, e)),
        };
        let mut lines = text.lines();
        if lines.next() != Some(header) {
            return Err(IoError::Parse {
                path: path.to_path_buf(),
                line: 1,
                msg: format!("not {what} (its header is to be {header:?})"),
            });
        }
        let mut s = CsvSeries::create(path, header)?;
        for line in lines {
            let row_step: Option<u64> = line.split(',').next().and_then(|v| v.parse().ok());
            if row_step.is_some_and(|r| r < before) {
                writeln!(s.out, "{line}").map_err(|e| IoError::os(&s.path, e))?;
            }
        }
        s.flush()?;
        Ok(s)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `step`, the `values` and `tail` (text after a comma, or nothing) as a row,
    /// and flushes it.
    pub(crate) fn row(&mut self, step: u64, values: &[f64], tail: &str) -> Result<()> {
        let w = &mut self.out;
        let mut row = || -> std::io::Result<()> {
            write!(w, "{step}")?;
            for &v in values {
                w.write_all(b",")?;
                write_f64(w, v)?;
            }
            if !tail.is_empty() {
                write!(w, ",{tail}")?;
            }
            writeln!(w)
        };
        row().map_err(|e| IoError::os(&self.path, e))?;
        self.flush()
    }

    pub(crate) fn flush(&mut self) -> Result<()> {
        self.out.flush().map_err(|e| IoError::os(&self.path, e))
    }
}

/// Writes one CSV row per `record` call:
/// `step,time,kinetic,rotational,elastic,potential,total,contacts`.
#[derive(Debug)]
pub struct EnergySeries(CsvSeries);

impl EnergySeries {
    /// Creates (or truncates) the file and writes the header.
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        CsvSeries::create(path.as_ref(), ENERGY_HEADER).map(EnergySeries)
    }

    /// Continue the series in `path` (a restarted run): rows of steps before `step` are
    /// kept, later ones dropped. No file yet: a new series.
    pub fn resume(path: impl AsRef<Path>, step: u64) -> Result<Self> {
        CsvSeries::resume(path.as_ref(), ENERGY_HEADER, step, "an energy series written by talus").map(EnergySeries)
    }

    /// Path of the CSV file.
    pub fn path(&self) -> &Path {
        self.0.path()
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
        let values = [time, kinetic, rotational, elastic, potential, total];
        self.0.row(step, &values, &contacts.to_string())
    }

    /// Flushes the file (rows are already flushed as they are written).
    pub fn flush(&mut self) -> Result<()> {
        self.0.flush()
    }
}

/// The outflow series' header: per check of each `[[outflow]]` (numbered from 0), the
/// grains taken out, their mass, and the mass over the time since the last check.
pub const OUTFLOW_HEADER: &str = "step,time,outflow,removed,mass,mass_rate";

/// `outflow.csv`: a row per check of each outflow region.
#[derive(Debug)]
pub struct OutflowSeries(CsvSeries);

impl OutflowSeries {
    /// Creates (or truncates) the file and writes the header.
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        CsvSeries::create(path.as_ref(), OUTFLOW_HEADER).map(OutflowSeries)
    }

    /// Continue the series (a restarted run): rows of steps up to `step` kept, since a
    /// run takes grains out before it writes a checkpoint of the same step.
    pub fn resume(path: impl AsRef<Path>, step: u64) -> Result<Self> {
        CsvSeries::resume(
            path.as_ref(),
            OUTFLOW_HEADER,
            step + 1,
            "an outflow series written by talus",
        )
        .map(OutflowSeries)
    }

    /// Path of the CSV file.
    pub fn path(&self) -> &Path {
        self.0.path()
    }

    /// A check of outflow `k` at `step` that took out `removed` grains of `mass` over
    /// `interval` seconds.
    pub fn record(&mut self, step: u64, time: f64, k: usize, removed: u64, mass: f64, interval: f64) -> Result<()> {
        let rate = if interval > 0.0 { mass / interval } else { 0.0 };
        // Counts as numbers: whole numbers print without a fraction.
        self.0.row(step, &[time, k as f64, removed as f64, mass, rate], "")
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
