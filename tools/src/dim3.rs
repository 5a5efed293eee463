//! The 3D build of the commands that step a scenario (spheres): the same sources as
//! `dim2.rs` (`stepping.rs`, `resume.rs`, `scaling.rs`, `profile.rs`,
//! `thermo.rs`, `streams.rs`) on the
//! 3D crates.
pub use talus_engine3d as engine;
pub use talus_io3d as io;

#[path = "profile.rs"]
pub mod profile;
#[path = "resume.rs"]
pub mod resume;
#[path = "scaling.rs"]
pub mod scaling;
#[path = "staging.rs"]
pub mod staging;
#[path = "stepping.rs"]
pub mod stepping;
#[path = "streams.rs"]
pub mod streams;
#[path = "thermo.rs"]
pub mod thermo;

use std::path::Path;

use talus_engine3d::Simulation;
use talus_io3d::lammps_data::{read_lammps_data, LammpsData};

use crate::scale::ScaleArgs;

pub use crate::run::SummaryExtras;
pub use streams::take_shortfalls;

/// The run summary's lines of this dimension: the insertion streams (no polygons in 3D).
pub fn summary_extras(sim: &Simulation) -> SummaryExtras {
    SummaryExtras {
        insertions: streams::insertion_lines(sim),
        narrow_phase: None,
    }
}

/// The built-in bed of `talus scale` in 3D: the LAMMPS S3D bed of spheres, tiled as the
/// peer's tile.py.
pub struct Beds {
    spheres: Option<LammpsData>,
}

impl Beds {
    pub fn read(a: &ScaleArgs) -> Result<Beds, String> {
        let spheres = match a.bed.as_deref() {
            Some("spheres") => {
                let base = a.base.as_deref().unwrap_or(Path::new("data/s3d_base.data"));
                Some(read_lammps_data(base).map_err(|e| e.to_string())?)
            }
            _ => None,
        };
        Ok(Beds { spheres })
    }

    /// The bed `name` of `n` particles (default 58,320: 5 x 2 copies of the base bed).
    pub fn make(&self, name: &str, n: Option<usize>) -> Result<(Simulation, String), String> {
        let n = n.unwrap_or(58_320);
        match (name, &self.spheres) {
            ("spheres", Some(base)) => {
                if !n.is_multiple_of(base.len()) {
                    return Err(format!("--n {n} is not a multiple of the base bed ({})", base.len()));
                }
                let (rx, ry) = crate::bench::tiling3d(n / base.len());
                // talus' default skin: 0.1 x the mean radius (as `talus bench`).
                let skin = 0.1 * base.radius.iter().sum::<f64>() / base.len() as f64;
                let sim = crate::bench::peer_sim3d(
                    &base.tile(rx, ry),
                    talus_engine::Integrator::Verlet,
                    skin,
                    false,
                    crate::bench::BenchModel::Hooke,
                )?;
                Ok((sim, format!("LAMMPS S3D bed of spheres tiled to {n} ({rx} x {ry})")))
            }
            (other, _) => Err(format!("unknown --bed {other:?} in 3D (spheres)")),
        }
    }
}
