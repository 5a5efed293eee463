//! Wall forces: each wall contact of a run, a disc through `kernels::contact::disc_wall`, a
//! polygon through `kernels::contact::polygon_wall`, into its particle's loads.
use talus_kernels::contact::disc_wall::disc_wall;
use talus_kernels::contact::polygon_wall::polygon_wall;

use super::{polygon_body, WallSink};
use crate::material::PairTable;
use crate::shapes::Shapes;
use crate::store::ParticleStore;
use crate::walls::Wall;

/// What the wall contacts need besides the particles and the contacts themselves.
pub(crate) struct WallWork<'a> {
    pub walls: &'a [Wall],
    pub params: &'a PairTable,
    pub shapes: Option<&'a Shapes>,
    pub dt: f64,
}

impl WallWork<'_> {
    /// The forces of a run of wall contacts (`p`, `w`, `xi`, `area` start at the same
    /// contact), each added into its particle's loads through `sink`, in list order: after
    /// the particle's pair forces. A run of particles' contacts is taken by one thread.
    pub(crate) fn contacts<S: WallSink>(
        &self,
        ps: &ParticleStore,
        p: &[u32],
        w: &[u16],
        xi: &mut [f64],
        area: &mut [f64],
        sink: &mut S,
    ) {
        let n = xi.len();
        let (p, w, area) = (&p[..n], &w[..n], &mut area[..n]);
        for k in 0..n {
            let q = p[k] as usize;
            if ps.inv_mass[q] == 0.0 {
                continue;
            }
            let wall = &self.walls[w[k] as usize];
            let prm = self.params.get(ps.material[q], wall.material);
            let c = match self.shapes {
                Some(sh) if sh.is_polygon(q) => {
                    let b = polygon_body(ps, sh, q);
                    polygon_wall(prm, &wall.line, &b, ps.inv_mass[q], &mut area[k], &mut xi[k], self.dt)
                }
                _ => disc_wall(
                    prm,
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
                Some(c) => sink.wall(q, &c),
                None => xi[k] = 0.0,
            }
        }
    }
}
