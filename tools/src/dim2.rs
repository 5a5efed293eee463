//! The 2D build of the commands that step a scenario (discs and convex polygons): the
//! same sources as `dim3.rs` (`stepping.rs`, `resume.rs`, `scaling.rs`, `profile.rs`,
//! `thermo.rs`, `streams.rs`) on the 2D crates, and what only 2D runs report (the polygon narrow phase).
pub use talus_engine as engine;
pub use talus_io as io;

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

use talus_engine::{Integrator, Simulation};
use talus_io::lammps_data::{read_lammps_data, LammpsData};

use crate::scale::ScaleArgs;

pub use crate::run::SummaryExtras;
pub use streams::take_shortfalls;

/// The run summary's lines of this dimension: the insertion streams and the polygon
/// narrow phase.
pub fn summary_extras(sim: &Simulation) -> SummaryExtras {
    let insertions = streams::insertion_lines(sim);
    let narrow_phase = sim.shapes.is_some().then(|| {
        let ns = sim.narrow;
        let pct = |x: u64| 100.0 * x as f64 / ns.candidates.max(1) as f64;
        format!(
            "{} candidate pair checks with a polygon: {:.1}% rejected by the bounding circles, \
             {:.1}% by the centre-line projections, {:.1}% by the separating line ({:.2} moves per search), \
             {:.1}% found apart ({:.1}% by the gap left from their last closest-feature walk, the rest by a walk: \
             {:.2} feature pairs per walk, {} fallbacks), {:.1}% touching \
             ({:.1}% of the polygon overlaps tracked from their crossing edges, the rest clipped; \
             {} redone with exact signs, {} in expansion arithmetic)",
            ns.candidates,
            pct(ns.circle_rejected),
            pct(ns.projection_rejected),
            pct(ns.line_rejected),
            ns.line_iterations as f64 / (ns.projection_tested - ns.projection_rejected).max(1) as f64,
            pct(ns.separated),
            pct(ns.gap_skips),
            ns.walk_steps as f64 / (ns.separated - ns.gap_skips + ns.touching).max(1) as f64,
            ns.fallbacks,
            pct(ns.touching),
            100.0 * ns.tracked as f64 / (ns.tracked + ns.clipped).max(1) as f64,
            ns.accurate,
            ns.exact
        )
    });
    SummaryExtras {
        insertions,
        narrow_phase,
    }
}

/// The built-in beds of `talus scale` in 2D: the LAMMPS-settled discs (tiled along x) or
/// the dense bed of random polygons.
pub struct Beds {
    discs: Option<LammpsData>,
}

impl Beds {
    pub fn read(a: &ScaleArgs) -> Result<Beds, String> {
        let discs = match a.bed.as_deref() {
            Some("discs") => {
                let base = a.base.as_deref().unwrap_or(Path::new("data/s2d_base.data"));
                Some(read_lammps_data(base).map_err(|e| e.to_string())?)
            }
            _ => None,
        };
        Ok(Beds { discs })
    }

    /// The bed `name` of `n` particles (default 100,000).
    pub fn make(&self, name: &str, n: Option<usize>) -> Result<(Simulation, String), String> {
        let n = n.unwrap_or(100_000);
        match (name, &self.discs) {
            ("discs", Some(base)) => {
                if !n.is_multiple_of(base.len()) {
                    return Err(format!("--n {n} is not a multiple of the base bed ({})", base.len()));
                }
                let bed = base.tile_x(n / base.len());
                // talus' default skin: 0.1 x the mean radius (as `talus bench`).
                let skin = 0.1 * base.radius.iter().sum::<f64>() / base.len() as f64;
                let sim =
                    crate::bench::peer_sim(&bed, Integrator::Verlet, skin, false, crate::bench::BenchModel::Hooke)?;
                Ok((sim, format!("LAMMPS bed of discs tiled to {n}")))
            }
            ("polygons", _) => Ok((
                crate::bench_polygons::polygon_bed(n, Default::default())?,
                format!("dense bed of {n} random 5-8-gons"),
            )),
            (other, _) => Err(format!("unknown --bed {other:?} (discs, polygons, spheres)")),
        }
    }
}
