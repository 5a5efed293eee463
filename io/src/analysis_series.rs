//! The analysis time series (`analysis.csv`): one row per analysis of a run
//! ([`talus_engine::Analysis`]). Its columns depend on the run (the dimension, the walls,
//! wall bodies, a region), so the header is made from the first analysis, and a restarted
//! run continues the file only if the header is the same.
use std::path::Path;

use talus_engine::Analysis;
use talus_kernels::analysis::stress::pressure;
use talus_kernels::math::DIM;

use crate::series::CsvSeries;
use crate::{IoError, Result};

const AXES: [&str; 3] = ["x", "y", "z"];

/// The header of the series for `a`: step, time, kinetic, rotational, potential, coordination,
/// coordination_held, rattlers, unbalanced, pressure, stress_xx, stress_xy, ... (row by
/// row), cell_length_y and shear_rate (under a cell servo), packing, region_pressure and
/// region_stress_xx ... (with a region: the grains whose centres lie in it), then the force on each wall, `wallK_fx` ... (K in the
/// run's order of walls), and on all wall bodies together, `bodies_fx` ... (if any).
pub fn header(a: &Analysis) -> String {
    let mut h = String::from(
        "step,time,kinetic,rotational,potential,coordination,coordination_held,rattlers,unbalanced,pressure",
    );
    for r in AXES.iter().take(DIM) {
        for c in AXES.iter().take(DIM) {
            h += &format!(",stress_{r}{c}");
        }
    }
    if a.cell.is_some() {
        h += ",cell_length_y,shear_rate";
    }
    if a.packing.is_some() {
        h += ",packing,region_pressure";
        for r in AXES.iter().take(DIM) {
            for c in AXES.iter().take(DIM) {
                h += &format!(",region_stress_{r}{c}");
            }
        }
    }
    for k in 0..a.wall_forces.len() {
        for c in AXES.iter().take(DIM) {
            h += &format!(",wall{k}_f{c}");
        }
    }
    if !a.body_forces.is_empty() {
        for c in AXES.iter().take(DIM) {
            h += &format!(",bodies_f{c}");
        }
    }
    h
}

/// The analysis series being written: an open CSV file and its header.
#[derive(Debug)]
pub struct AnalysisSeries {
    header: String,
    csv: CsvSeries,
}

impl AnalysisSeries {
    /// Creates (or truncates) the file with the header of `a`.
    pub fn create(path: impl AsRef<Path>, a: &Analysis) -> Result<Self> {
        let header = header(a);
        let csv = CsvSeries::create(path.as_ref(), &header)?;
        Ok(AnalysisSeries { header, csv })
    }

    /// Continue the series in `path` (a restarted run): rows of steps before `step` kept,
    /// later ones dropped. A file of another header (another set-up) is an error; no file
    /// yet: a new series.
    pub fn resume(path: impl AsRef<Path>, step: u64, a: &Analysis) -> Result<Self> {
        let header = header(a);
        let csv = CsvSeries::resume(path.as_ref(), &header, step, "this run's analysis series")?;
        Ok(AnalysisSeries { header, csv })
    }

    /// The file of the series.
    pub fn path(&self) -> &Path {
        self.csv.path()
    }

    /// Appends the row of `a` and flushes it.
    pub fn record(&mut self, a: &Analysis) -> Result<()> {
        if header(a) != self.header {
            return Err(IoError::Invalid {
                path: self.csv.path().to_path_buf(),
                msg: format!(
                    "the analysis of step {} has other columns than the series' header",
                    a.step
                ),
            });
        }
        let mut values = vec![
            a.time,
            a.kinetic,
            a.rotational,
            a.potential,
            a.coordination,
            a.coordination_held,
            a.rattlers as f64,
            a.unbalanced,
            pressure(&a.stress),
        ];
        values.extend(a.stress.iter().flatten());
        if let Some((l, rate)) = a.cell {
            values.extend([l, rate]);
        }
        if let (Some(p), Some(s)) = (a.packing, &a.region_stress) {
            values.push(p);
            values.push(pressure(s));
            values.extend(s.iter().flatten());
        }
        values.extend(a.wall_forces.iter().flatten());
        if !a.body_forces.is_empty() {
            values.extend((0..DIM).map(|c| a.body_forces.iter().map(|(_, f)| f[c]).sum::<f64>()));
        }
        self.csv.row(a.step, &values, "")
    }
}
