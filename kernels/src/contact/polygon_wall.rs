//! Polygon against a straight wall: the part of the polygon beyond the wall's line is the
//! overlap; the normal force is (E A + m gamma_n dA/dt) / l along the wall normal, at the
//! centroid of that part (l = the polygon's bounding radius), with the Cundall-Strack
//! tangential force along the wall.
use super::disc_disc::ContactForce;
use super::disc_wall::LineWall;
use super::law::{coulomb_spring, ContactParams};
use super::polygon_polygon::{ContactBody, ContactFrame, FrameOut};

/// Contact of polygon `b` with `wall`, or `None` (then `prev_area` and `xi` are reset).
/// The frame's size is the length of the wall's line inside the polygon (the polygon's
/// diameter where it is wholly past the wall).
#[allow(clippy::too_many_arguments)]
pub fn polygon_wall(
    p: &ContactParams,
    wall: &LineWall,
    b: &ContactBody,
    inv_mass: f64,
    prev_area: &mut f64,
    xi: &mut f64,
    dt: f64,
    frame: &mut impl FrameOut,
) -> Option<ContactForce> {
    let v = b.vertices;
    let n = v.len();
    // Area and centroid of the part with negative signed distance (beyond the wall), by
    // clipping each edge against the line.
    let o = wall.point;
    let (mut a2, mut cx, mut cy) = (0.0, 0.0, 0.0);
    let mut first: Option<[f64; 2]> = None;
    let mut last = [0.0; 2];
    let mut add = |q: [f64; 2]| {
        let q = [q[0] - o[0], q[1] - o[1]];
        match first {
            None => first = Some(q),
            Some(_) => {
                let c = last[0] * q[1] - q[0] * last[1];
                a2 += c;
                cx += c * (last[0] + q[0]);
                cy += c * (last[1] + q[1]);
            }
        }
        last = q;
    };
    // Where the boundary crosses the wall's line (two, for a convex polygon across it).
    let (mut cuts, mut ncut) = ([[0.0; 2]; 2], 0);
    for k in 0..n {
        let (u, w) = (v[k], v[(k + 1) % n]);
        let (du, dw) = (wall.distance(u[0], u[1]), wall.distance(w[0], w[1]));
        if du <= 0.0 {
            add(u);
        }
        if (du <= 0.0) != (dw <= 0.0) {
            let t = du / (du - dw);
            let q = [u[0] + t * (w[0] - u[0]), u[1] + t * (w[1] - u[1])];
            add(q);
            cuts[ncut & 1] = q;
            ncut += 1;
        }
    }
    if let Some(f) = first {
        let c = last[0] * f[1] - f[0] * last[1];
        a2 += c;
        cx += c * (last[0] + f[0]);
        cy += c * (last[1] + f[1]);
    }
    if a2 <= 0.0 {
        *prev_area = 0.0;
        *xi = 0.0;
        return None;
    }
    let area = 0.5 * a2;
    let c = [o[0] + cx / (3.0 * a2), o[1] + cy / (3.0 * a2)];
    let rate = if dt > 0.0 { (area - *prev_area) / dt } else { 0.0 };
    *prev_area = area;
    let meff = 1.0 / inv_mass;
    let normal = (p.kn * area + meff * p.gamma_n * rate) / b.radius;
    // Normal from the polygon into the wall: -wall.normal; tangent t = (-n_y, n_x).
    let nrm = [-wall.normal[0], -wall.normal[1]];
    let tdir = [-nrm[1], nrm[0]];
    let vc = [
        b.vel[0] - b.omega * (c[1] - b.pos[1]),
        b.vel[1] + b.omega * (c[0] - b.pos[0]),
    ];
    let vw = if wall.spin != 0.0 {
        wall.velocity_at(c)
    } else {
        wall.velocity
    };
    let v_t = (vc[0] - vw[0]) * tdir[0] + (vc[1] - vw[1]) * tdir[1];
    // Polygons take Hooke only (Hertz needs a radius of curvature at the contact).
    let ft = coulomb_spring(p, 1.0, normal, v_t, meff, xi, dt);
    let f = [-normal * nrm[0] + ft * tdir[0], -normal * nrm[1] + ft * tdir[1]];
    frame.put(|| ContactFrame {
        normal: nrm,
        point: c,
        size: if ncut == 2 {
            (cuts[1][0] - cuts[0][0]).hypot(cuts[1][1] - cuts[0][1])
        } else {
            2.0 * b.radius
        },
    });
    Some(ContactForce {
        f: [f[0], f[1]],
        ti: [(c[0] - b.pos[0]) * f[1] - (c[1] - b.pos[1]) * f[0]],
        tj: [0.0],
        overlap: area,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2 x 2 square at rest, 0.1 below the floor y = 0.
    fn sunk_square() -> ContactBody<'static> {
        const V: [[f64; 2]; 4] = [[-1.0, -0.1], [1.0, -0.1], [1.0, 1.9], [-1.0, 1.9]];
        ContactBody {
            vertices: &V,
            pos: [0.0, 0.9],
            angle: 0.0,
            vel: [0.0; 2],
            omega: 0.0,
            radius: 2.0,
        }
    }

    #[test]
    fn square_sunk_into_floor() {
        let p = ContactParams {
            kn: 100.0,
            kt: 0.0,
            gamma_n: 0.0,
            gamma_t: 0.0,
            mu: 0.0,
        };
        let floor = LineWall {
            point: [0.0, 0.0],
            normal: [0.0, 1.0],
            velocity: [0.0; 2],
            spin: 0.0,
        };
        let b = sunk_square();
        let (mut a, mut xi) = (0.0, 0.0);
        let mut frame = ContactFrame::default();
        let c = polygon_wall(&p, &floor, &b, 1.0, &mut a, &mut xi, 1e-3, &mut frame).unwrap();
        assert!((a - 0.2).abs() < 1e-12, "{a}");
        assert!(
            (c.f[1] - 100.0 * 0.2 / 2.0).abs() < 1e-9 && c.f[0].abs() < 1e-12 && c.ti[0].abs() < 1e-12,
            "{c:?}"
        );
        // The floor's line inside the square: its whole width, 2; at the centroid of the
        // sunk part, pushing down into the floor.
        assert!(
            (frame.size - 2.0).abs() < 1e-12 && frame.normal == [0.0, -1.0],
            "{frame:?}"
        );
        assert!(
            frame.point[0].abs() < 1e-12 && (frame.point[1] + 0.05).abs() < 1e-12,
            "{frame:?}"
        );
    }

    /// A floor turning about its point pulls the sunk part's centroid along as a floor
    /// sliding at the speed the spin gives there does.
    #[test]
    fn a_turning_floor_drags_at_the_centroid() {
        let p = ContactParams {
            kn: 100.0,
            kt: 50.0,
            gamma_n: 0.0,
            gamma_t: 4.0,
            mu: 10.0,
        };
        let b = sunk_square();
        let force = |floor: LineWall| {
            let (mut a, mut xi) = (0.2, 0.0);
            let mut frame = ContactFrame::default();
            polygon_wall(&p, &floor, &b, 1.0, &mut a, &mut xi, 1e-3, &mut frame).unwrap()
        };
        // The centroid is at (0, -0.05): spin 2 about the origin moves it at (0.1, 0).
        let turning = force(LineWall {
            point: [0.0, 0.0],
            normal: [0.0, 1.0],
            velocity: [0.0; 2],
            spin: 2.0,
        });
        let sliding = force(LineWall {
            point: [0.0, 0.0],
            normal: [0.0, 1.0],
            velocity: [0.1, 0.0],
            spin: 0.0,
        });
        assert!(turning.f[0] > 0.0, "{turning:?}");
        assert_eq!(turning, sliding);
    }
}
