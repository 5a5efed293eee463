//! A census of the overlaps a simulation starts with: coincident particles (two sources
//! in one region, two LAMMPS atoms at one place) and pairs overlapping by more than a
//! fraction of the smaller one's radius. A settled bed's contacts overlap by a few
//! percent at most; much more is stored energy that will throw the particles apart.
//! Read-only, over the contact table's candidate pairs (so after the first neighbour
//! update, which `Simulation::new` does).
#[cfg(not(feature = "dim3"))]
use talus_kernels::contact::polygon_polygon::disc_polygon;
#[cfg(not(feature = "dim3"))]
use talus_kernels::geometry::overlap::overlap;
use talus_kernels::math::{Vector, DIM};

use crate::Simulation;

/// One overlapping pair: ids, centres, radii (bounding radii of polygons) and the
/// penetration depth (polygon pairs: overlap area over contact-line length).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OverlapPair {
    /// Stable ids of the two particles.
    pub ids: [u64; 2],
    /// Their centres (m).
    pub centres: [Vector; 2],
    /// Their radii (m; bounding radii of polygons).
    pub radii: [f64; 2],
    /// Penetration depth (m; polygon pairs: overlap area over contact-line length).
    pub depth: f64,
}

impl OverlapPair {
    /// Depth over the smaller radius.
    pub fn fraction(&self) -> f64 {
        self.depth / self.radii[0].min(self.radii[1])
    }
}

/// What [`census`] found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OverlapCensus {
    /// Pairs whose centres coincide exactly.
    pub coincident: usize,
    /// The coincident pair with the smallest ids.
    pub coincident_example: Option<OverlapPair>,
    /// Other pairs overlapping by more than the fraction asked for.
    pub deep: usize,
    /// The deepest of them (relative to the smaller radius).
    pub deepest: Option<OverlapPair>,
}

/// Coincident and deeply overlapping pairs: depth above `fraction` of the smaller radius.
/// Pairs of two infinite masses (wall bodies) exert no force and are left out.
pub fn census(sim: &Simulation, fraction: f64) -> OverlapCensus {
    let ps = &sim.particles;
    #[cfg(not(feature = "dim3"))]
    let shapes = sim.shapes.as_ref();
    #[cfg(not(feature = "dim3"))]
    let body = |p: usize| crate::forces::polygon_body(ps, shapes.expect("a polygon has a shape"), p);
    let mut out = OverlapCensus::default();
    #[cfg_attr(feature = "dim3", allow(unused_variables))]
    for (s, i, j) in sim.contacts.iter() {
        let (i, j) = (i as usize, j as usize);
        let inv = ps.inv_mass[i] + ps.inv_mass[j];
        if inv == 0.0 {
            continue;
        }
        let (ri, rj) = (ps.radius[i], ps.radius[j]);
        let rmin = ri.min(rj);
        let sep = sim.separation(i, j);
        let d = if DIM == 2 {
            sep[0].hypot(sep[1])
        } else {
            sep.iter().map(|v| v * v).sum::<f64>().sqrt()
        };
        let circles = ri + rj - d;
        if d > 0.0 && circles <= fraction * rmin {
            // Bounding circles overlap too little for any deep overlap.
            continue;
        }
        #[cfg(not(feature = "dim3"))]
        let (pi, pj) = shapes.map_or((false, false), |sh| (sh.is_polygon(i), sh.is_polygon(j)));
        #[cfg(feature = "dim3")]
        let depth = circles;
        #[cfg(not(feature = "dim3"))]
        let depth = if d == 0.0 {
            circles
        } else {
            match (pi, pj) {
                (false, false) => circles,
                (true, true) => {
                    let sh = shapes.expect("polygons have shapes");
                    // j as its image nearest to i in a periodic cell.
                    let (shift, dvx) = sim.image_shift(i, j);
                    let mut buf = Vec::new();
                    let b = crate::forces::polygon_image(ps, sh, j, shift, dvx, &mut buf);
                    overlap(&sh.world[sh.range(i)], b.vertices).map_or(0.0, |o| {
                        let l = 2.0 * ri * rj / (ri + rj);
                        let w = o
                            .line
                            .map_or(l, |[a, b]| (b[0] - a[0]).hypot(b[1] - a[1]).max(1e-3 * l));
                        o.area / w
                    })
                }
                _ => {
                    let sh = shapes.expect("a polygon has a shape");
                    let (shift, dvx) = sim.image_shift(i, j);
                    let mut buf = Vec::new();
                    let (a, b) = (body(i), crate::forces::polygon_image(ps, sh, j, shift, dvx, &mut buf));
                    let (dsc, pol) = if pj { (&a, &b) } else { (&b, &a) };
                    let prm = sim.contact_params(ps.material[i], ps.material[j]);
                    let mut xi = sim.contacts.xi[s];
                    disc_polygon(&prm, dsc, pol, inv, &mut xi, 0.0, &mut ()).map_or(0.0, |c| c.overlap)
                }
            }
        };
        let (a, b) = if ps.id[i] < ps.id[j] { (i, j) } else { (j, i) };
        let pair = OverlapPair {
            ids: [ps.id[a], ps.id[b]],
            centres: [a, b].map(|p| std::array::from_fn(|k| ps.pos[k][p])),
            radii: [ps.radius[a], ps.radius[b]],
            depth,
        };
        if d == 0.0 {
            out.coincident += 1;
            if out.coincident_example.is_none_or(|e| pair.ids < e.ids) {
                out.coincident_example = Some(pair);
            }
        } else if depth > fraction * rmin {
            out.deep += 1;
            let deeper = |e: OverlapPair| {
                let (f, g) = (pair.fraction(), e.fraction());
                f > g || (f == g && pair.ids < e.ids)
            };
            if out.deepest.is_none_or(deeper) {
                out.deepest = Some(pair);
            }
        }
    }
    out
}

#[cfg(all(test, not(feature = "dim3")))]
mod tests {
    use super::*;
    use crate::{Config, ContactParams, Integrator, Material, NeighborMethod, ParticleInit};

    fn disc(id: u64, x: f64, y: f64, r: f64) -> ParticleInit {
        ParticleInit {
            id,
            pos: [x, y],
            angle: 0.0,
            vel: [0.0, 0.0],
            omega: [0.0],
            radius: r,
            mass: 1.0,
            material: 0,
            ptype: 1,
            flags: 0,
        }
    }

    #[test]
    fn counts_coincident_and_deep_pairs_only() {
        let config = Config {
            dt: 1e-4,
            gravity: [0.0; 2],
            domain_min: [0.0; 2],
            domain_max: [1.0; 2],
            integrator: Integrator::Verlet,
            neighbor: NeighborMethod::Sweep,
            margin: 0.0,
            every_step: false,
            sort_every: 0,
            normal_model: Default::default(),
            rejection: Default::default(),
        };
        let material = Material {
            name: "m".into(),
            density: 1.0,
            contact: ContactParams {
                kn: 1.0,
                kt: 0.0,
                gamma_n: 0.0,
                gamma_t: 0.0,
                mu: 0.0,
            },
        };
        let parts = [
            // Coincident: 7 and 3.
            disc(7, 0.2, 0.2, 0.01),
            disc(3, 0.2, 0.2, 0.02),
            // 30 % of the smaller radius: deep.
            disc(10, 0.5, 0.5, 0.01),
            disc(11, 0.517, 0.5, 0.01),
            // 2 %: a settled contact, not counted.
            disc(20, 0.8, 0.8, 0.01),
            disc(21, 0.8, 0.8196, 0.01),
        ];
        let sim = Simulation::new(config, vec![material], vec![], &parts).unwrap();
        let c = census(&sim, 0.1);
        assert_eq!((c.coincident, c.deep), (1, 1), "{c:?}");
        let e = c.coincident_example.unwrap();
        assert_eq!(e.ids, [3, 7]);
        assert_eq!(e.centres, [[0.2, 0.2]; 2]);
        assert!((e.depth - 0.03).abs() < 1e-15);
        let d = c.deepest.unwrap();
        assert_eq!(d.ids, [10, 11]);
        assert!((d.fraction() - 0.3).abs() < 1e-9, "{d:?}");
        assert_eq!(census(&sim, 0.01).deep, 2);
    }
}
