//! Wall forces: each wall contact of a run, into its particle's loads: in 2D a disc through
//! `kernels::contact::disc_wall`, a polygon through `kernels::contact::polygon_wall`; in 3D
//! a sphere through `kernels::contact::sphere_wall` (planes and cylinders).
#[cfg(not(feature = "dim3"))]
use talus_kernels::contact::disc_wall::disc_wall;
#[cfg(not(feature = "dim3"))]
use talus_kernels::contact::extras::add_cohesion_at;
use talus_kernels::contact::extras::{add_extras, wall_contact_size, Touch};
#[cfg(not(feature = "dim3"))]
use talus_kernels::contact::polygon_polygon::ContactFrame;
#[cfg(not(feature = "dim3"))]
use talus_kernels::contact::polygon_wall::polygon_wall;
#[cfg(feature = "dim3")]
use talus_kernels::contact::sphere_wall::{sphere_cylinder, sphere_plane, SphereBody};
use talus_kernels::contact::{Spring, SPRING_ZERO};
use talus_kernels::math::ANG;

#[cfg(not(feature = "dim3"))]
use super::polygon_body;
use super::WallSink;
use crate::contact_log::WallForce;
use crate::material::PairTable;
#[cfg(not(feature = "dim3"))]
use crate::shapes::Shapes;
use crate::store::ParticleStore;
#[cfg(feature = "dim3")]
use crate::walls::Surface;
use crate::walls::Wall;
use talus_kernels::contact::ContactForce;

/// What the wall contacts need besides the particles and the contacts themselves.
pub(crate) struct WallWork<'a> {
    pub walls: &'a [Wall],
    pub params: &'a PairTable,
    #[cfg(not(feature = "dim3"))]
    pub shapes: Option<&'a Shapes>,
    pub normal_model: talus_kernels::contact::law::NormalModel,
    pub dt: f64,
    /// Whether some pairs of materials have cohesion or rolling resistance (the wall
    /// contacts then keep rolling torques).
    pub extras: bool,
    /// Whether some plane turns (3D: its contacts then see its velocity at each contact
    /// point, in a kernel of its own).
    #[cfg(feature = "dim3")]
    pub turning: bool,
}

impl WallWork<'_> {
    /// Whether the contacts are those of polygons (costlier: clipped against the wall).
    pub(crate) fn polygons(&self) -> bool {
        #[cfg(not(feature = "dim3"))]
        return self.shapes.is_some();
        #[cfg(feature = "dim3")]
        return false;
    }

    /// The forces of a run of wall contacts (`p`, `w`, `xi`, `area`, `rolling` start at
    /// the same contact), each added into its particle's loads through `sink`, in list order: after
    /// the particle's pair forces; on a logged step also into `log`. A run of particles' contacts is taken by one thread.
    // (`area` is the polygons' state: unused by spheres.)
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn contacts<S: WallSink>(
        &self,
        ps: &ParticleStore,
        p: &[u32],
        w: &[u16],
        xi: &mut [Spring],
        area: &mut [f64],
        rolling: &mut [[f64; ANG]],
        sink: &mut S,
        log: Option<&mut Vec<WallForce>>,
    ) {
        // A loop of its own where a plane turns: the test in the one loop, and what it did
        // to its code, cost +0.15 % of the 3D bench's instructions with none turning.
        #[cfg(feature = "dim3")]
        if self.turning {
            return self.contacts_in::<S, true>(ps, p, w, xi, area, rolling, sink, log);
        }
        self.contacts_in::<S, false>(ps, p, w, xi, area, rolling, sink, log)
    }

    #[cfg_attr(feature = "dim3", allow(unused_variables))]
    #[allow(clippy::too_many_arguments)]
    fn contacts_in<S: WallSink, const TURNING: bool>(
        &self,
        ps: &ParticleStore,
        p: &[u32],
        w: &[u16],
        xi: &mut [Spring],
        area: &mut [f64],
        rolling: &mut [[f64; ANG]],
        sink: &mut S,
        mut log: Option<&mut Vec<WallForce>>,
    ) {
        let n = xi.len();
        let (p, w, area) = (&p[..n], &w[..n], &mut area[..n]);
        // (Empty without cohesion and rolling resistance.)
        let rolling = if self.extras { &mut rolling[..n] } else { rolling };
        // The particle arrays cut to one length (in 3D all that the loop reads): a
        // contact's particle checked once against it, not once an array (in 3D the checks
        // were a quarter of this loop's instructions).
        let np = ps.len();
        let (inv_mass, material) = (&ps.inv_mass[..np], &ps.material[..np]);
        #[cfg(feature = "dim3")]
        let (pos, vel, omega, radius) = (
            ps.pos.each_ref().map(|v| &v[..np]),
            ps.vel.each_ref().map(|v| &v[..np]),
            ps.omega.each_ref().map(|v| &v[..np]),
            &ps.radius[..np],
        );
        for k in 0..n {
            let q = p[k] as usize;
            if inv_mass[q] == 0.0 {
                continue;
            }
            let wall = &self.walls[w[k] as usize];
            let prm = self.params.get(material[q], wall.material);
            #[cfg(feature = "dim3")]
            let c = {
                let s = SphereBody {
                    x: std::array::from_fn(|a| pos[a][q]),
                    r: radius[q],
                    v: std::array::from_fn(|a| vel[a][q]),
                    omega: std::array::from_fn(|a| omega[a][q]),
                    inv_mass: inv_mass[q],
                };
                match &wall.surface {
                    Surface::Plane(pl) => sphere_plane::<TURNING>(prm, self.normal_model, pl, &s, &mut xi[k], self.dt),
                    Surface::Cylinder(cy) => sphere_cylinder(prm, self.normal_model, cy, &s, &mut xi[k], self.dt),
                }
            };
            // A polygon's contact frame, kept for its cohesion.
            #[cfg(not(feature = "dim3"))]
            let mut frame = None;
            #[cfg(not(feature = "dim3"))]
            let c = match self.shapes {
                Some(sh) if sh.is_polygon(q) => {
                    let (b, m, line, dt) = (polygon_body(ps, sh, q), ps.inv_mass[q], &wall.line, self.dt);
                    let (area, xi) = (&mut area[k], &mut xi[k]);
                    if self.extras {
                        polygon_wall(prm, line, &b, m, area, xi, dt, frame.insert(ContactFrame::default()))
                    } else {
                        polygon_wall(prm, line, &b, m, area, xi, dt, &mut ())
                    }
                }
                _ => disc_wall(
                    prm,
                    self.normal_model,
                    &wall.line,
                    ps.pos[0][q],
                    ps.pos[1][q],
                    ps.radius[q],
                    ps.vel[0][q],
                    ps.vel[1][q],
                    ps.omega[0][q],
                    ps.inv_mass[q],
                    &mut xi[k],
                    self.dt,
                ),
            };
            match c {
                Some(mut c) => {
                    if self.extras {
                        #[cfg(not(feature = "dim3"))]
                        self.add_extras(ps, q, wall, &mut c, &mut rolling[k], frame.as_ref());
                        #[cfg(feature = "dim3")]
                        self.add_extras(ps, q, wall, &mut c, &mut rolling[k]);
                    }
                    sink.wall(q, &c);
                    if let Some(log) = log.as_deref_mut() {
                        log.push(WallForce {
                            p: q as u32,
                            wall: w[k],
                            f: c.f,
                            overlap: c.overlap,
                        });
                    }
                }
                None => {
                    xi[k] = SPRING_ZERO;
                    if self.extras {
                        rolling[k] = [0.0; ANG];
                    }
                }
            }
        }
    }

    /// Cohesion and rolling resistance of particle `q`'s touching contact `c` with `wall`,
    /// `m` its rolling torque. A polygon (2D: its contact `frame`) takes cohesion alone,
    /// along the wall's line inside it. For a round particle the wall is flat at the
    /// contact (a cylinder's curvature is left out of the contact's size) and takes the
    /// place of body j: R_eff is the particle's radius, the relative rotation the
    /// particle's spin less the wall's.
    #[cold]
    fn add_extras(
        &self,
        ps: &ParticleStore,
        q: usize,
        wall: &Wall,
        c: &mut ContactForce,
        m: &mut [f64; ANG],
        #[cfg(not(feature = "dim3"))] frame: Option<&ContactFrame>,
    ) {
        let e = self.params.extras(ps.material[q], wall.material);
        if !e.any() {
            return;
        }
        #[cfg(not(feature = "dim3"))]
        if let Some(frame) = frame {
            // (The wall's torque is not kept: its arm is taken from the contact point.)
            add_cohesion_at(e.cohesion, frame, [ps.pos[0][q], ps.pos[1][q]], frame.point, c);
            return;
        }
        let prm = self.params.get(ps.material[q], wall.material);
        let r = ps.radius[q];
        // The grain's spin relative to the wall's (a turning line, plane or drum).
        let mut w: [f64; ANG] = std::array::from_fn(|a| ps.omega[a][q]);
        #[cfg(not(feature = "dim3"))]
        let (n, h) = {
            w[0] -= wall.line.spin;
            (
                [-wall.line.normal[0], -wall.line.normal[1]],
                self.normal_model.factor(c.overlap, r),
            )
        };
        #[cfg(feature = "dim3")]
        let (n, h) = {
            let x = std::array::from_fn(|a| ps.pos[a][q]);
            let n = match &wall.surface {
                Surface::Plane(pl) => {
                    for (w, s) in w.iter_mut().zip(pl.spin) {
                        *w -= s;
                    }
                    pl.normal.map(|v| -v)
                }
                Surface::Cylinder(cy) => {
                    for (w, a) in w.iter_mut().zip(cy.axis) {
                        *w -= cy.spin * a;
                    }
                    cy.outward(x)
                }
            };
            (n, self.normal_model.factor(c.overlap, r))
        };
        let t = Touch {
            n,
            size: wall_contact_size(self.params.cohesion, r, c.overlap),
            overlap: c.overlap,
            r_eff: r,
            kn: h * prm.kn,
            kt: h * prm.kt,
            w,
        };
        add_extras(e, self.params.rolling, &t, c, m, self.dt);
    }
}
