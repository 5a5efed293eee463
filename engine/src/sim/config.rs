//! What a simulation is set up with (`Config`, the integrator) and the checks a set-up
//! passes before anything runs.
use super::*;

/// Time integration scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Integrator {
    /// Velocity Verlet (kick-drift-kick), second order, symplectic.
    Verlet,
    /// Gear's 6-value predictor-corrector.
    Gear,
}

/// What a simulation is set up with: time step, gravity, domain, integrator, broad phase.
#[derive(Debug, Clone)]
pub struct Config {
    /// Time step (s).
    pub dt: f64,
    /// Gravitational acceleration (m/s^2).
    pub gravity: Vector,
    /// Hard bounds: a particle centre outside them is an error of the run.
    pub domain_min: Vector,
    /// High corner of the domain (m); `domain_min` is the low one.
    pub domain_max: Vector,
    /// Time integration scheme.
    pub integrator: Integrator,
    /// Broad-phase method (neighbour search).
    pub neighbor: NeighborMethod,
    /// Verlet skin (absolute length): boxes are enlarged by it on every side.
    pub margin: f64,
    /// Update the broad phase every step instead of only when a particle left its box.
    pub every_step: bool,
    /// Renumber particles along a Morton curve every this many steps (0 = only at start).
    pub sort_every: u64,
    /// Cheap tests run on candidate pairs of polygons before the exact one.
    #[cfg(not(feature = "dim3"))]
    pub rejection: Rejection,
    /// The normal force law of every contact of round grains (LAMMPS
    /// gran/hooke/history or gran/hertz/history; polygons take Hooke only).
    pub normal_model: talus_kernels::contact::law::NormalModel,
}

/// Most materials of a simulation.
pub const MAX_MATERIALS: usize = 1024;

/// A radius is positive, finite, not larger than the domain (a bounding radius beyond
/// that is a mistake, and the quadtree would cut its box into millions of tiles), and not
/// below what the neighbour search can resolve: boxes are stored as `f32`, rounded outward
/// by up to 2^-22 of the coordinate, so a radius below 2^-20 of the largest coordinate of
/// the domain would give boxes mostly made of rounding (and a domain 2^40 times larger
/// than its particles would put them all in one quadtree leaf).
pub(super) fn check_radius(r: f64, c: &Config) -> std::result::Result<(), String> {
    let extent = (1..DIM).fold(c.domain_max[0] - c.domain_min[0], |e, a| {
        e.max(c.domain_max[a] - c.domain_min[a])
    });
    let coord = c
        .domain_min
        .iter()
        .chain(&c.domain_max)
        .fold(0.0f64, |m, v| m.max(v.abs()));
    let finest = coord * (1.0 / (1u64 << 20) as f64);
    if !(r > 0.0 && r.is_finite()) {
        Err(format!("radius {r} must be positive and finite"))
    } else if r > extent {
        Err(format!("radius {r} is larger than the domain ({extent} across)"))
    } else if r < finest {
        Err(format!(
            "radius {r} is below the resolution of the domain's coordinates ({finest:.3e} = 2^-20 of {coord:e}: \
             bounding boxes are stored in single precision); use a smaller domain or move it nearer the origin"
        ))
    } else {
        Ok(())
    }
}

pub(super) fn check_config(c: &Config, materials: &[Material], walls: &[Wall]) -> Result<()> {
    let bad = |m: String| Err(EngineError::Setup(m));
    if !(c.dt > 0.0 && c.dt.is_finite()) {
        return bad(format!("time step {} must be positive", c.dt));
    }
    if !(c.margin >= 0.0 && c.margin.is_finite()) {
        return bad(format!("neighbour margin {} must be >= 0", c.margin));
    }
    if !(c.domain_min.iter().chain(&c.domain_max).all(|v| v.is_finite())) {
        return bad(format!(
            "domain min {:?} and max {:?} must be finite",
            c.domain_min, c.domain_max
        ));
    }
    if !c.gravity.iter().all(|g| g.is_finite()) {
        return bad(format!("gravity {:?} must be finite", c.gravity));
    }
    if !(0..DIM).all(|a| c.domain_min[a] < c.domain_max[a]) {
        return bad(format!(
            "domain min {:?} must be below max {:?}",
            c.domain_min, c.domain_max
        ));
    }
    if materials.is_empty() || materials.len() > MAX_MATERIALS {
        return bad(format!(
            "{} materials: at least one and at most {MAX_MATERIALS} (the pair table has one entry per pair)",
            materials.len()
        ));
    }
    for w in walls {
        if w.material as usize >= materials.len() {
            return bad(format!("wall material {} does not exist", w.material));
        }
        #[cfg(not(feature = "dim3"))]
        let units = [("normal", w.line.normal.as_slice())];
        #[cfg(feature = "dim3")]
        let units = match &w.surface {
            crate::walls::Surface::Plane(p) => [("normal", p.normal.as_slice())],
            crate::walls::Surface::Cylinder(c) => {
                if !(c.radius > 0.0 && c.radius.is_finite() && c.spin.is_finite()) {
                    return bad(format!(
                        "cylinder wall: radius {} must be positive and finite, spin {} finite",
                        c.radius, c.spin
                    ));
                }
                [("axis", c.axis.as_slice())]
            }
        };
        for (what, n) in units {
            if (n.iter().map(|v| v * v).sum::<f64>().sqrt() - 1.0).abs() > 1e-9 {
                return bad(format!("wall {what} {n:?} must be a unit vector"));
            }
        }
    }
    Ok(())
}
