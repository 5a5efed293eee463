//! The walls of a run as their own ParaView grid (`walls_NNNNNNNN.vtu`, one per frame, so
//! that moving walls move). The engine's walls are unbounded; what is drawn is their part
//! in the domain: in 2D a line wall as a VTK_LINE clipped to the domain; in 3D a plane as
//! the VTK_POLYGON where it cuts the domain's box, a cylinder (drum) as a tube of
//! `TUBE_SEGMENTS` VTK_QUADs around its axis over the stretch of the axis inside the domain.
//! Wall bodies (particles of infinite mass: fixed or driven, such as the hopper's plates
//! and the drum's segments) are VTK_POLYGON cells through their world-frame corners, or a
//! VTK_VERTEX at the centre of a disc- or sphere-shaped one.
//! Cell data: `kind` (0 wall, 1 wall body), `index` (the wall's number in the scenario's
//! order, or the body's particle id) and `velocity` (a cylinder's quad: its surface's
//! velocity at the quad's middle). Written as ASCII XML: a few dozen cells, read by any VTK
//! version.
use std::fmt::Write as _;
use std::path::Path;

use talus_engine::Simulation;
#[cfg(feature = "dim3")]
use talus_kernels::math::{add, cross, dot, norm2, scale, sub};
use talus_kernels::math::{Vector, DIM};

use crate::{IoError, Result};

const VTK_VERTEX: u8 = 1;
#[cfg(not(feature = "dim3"))]
const VTK_LINE: u8 = 3;
const VTK_POLYGON: u8 = 7;
#[cfg(feature = "dim3")]
const VTK_QUAD: u8 = 9;

/// Quads around a cylinder wall's tube.
#[cfg(feature = "dim3")]
pub const TUBE_SEGMENTS: usize = 48;

/// Does the run have walls to draw: walls or wall bodies?
pub fn has_walls(sim: &Simulation) -> bool {
    !sim.walls.is_empty() || sim.particles.wall_bodies() > 0
}

/// The range `t0 < t1` of `t` for which `point + t d` is inside the box `lo..hi`
/// (Liang-Barsky clipping of the line's parametric form), if the line crosses the box.
fn clip(point: Vector, d: Vector, lo: Vector, hi: Vector) -> Option<(f64, f64)> {
    let (mut t0, mut t1) = (f64::NEG_INFINITY, f64::INFINITY);
    for k in 0..DIM {
        if d[k] == 0.0 {
            if point[k] < lo[k] || point[k] > hi[k] {
                return None;
            }
        } else {
            let (a, b) = ((lo[k] - point[k]) / d[k], (hi[k] - point[k]) / d[k]);
            t0 = t0.max(a.min(b));
            t1 = t1.min(a.max(b));
        }
    }
    (t0 < t1).then_some((t0, t1))
}

/// The part of the line through `point` with unit `normal` inside the box `lo..hi`, if it
/// crosses the box.
#[cfg(not(feature = "dim3"))]
pub fn clip_line(point: [f64; 2], normal: [f64; 2], lo: [f64; 2], hi: [f64; 2]) -> Option<[[f64; 2]; 2]> {
    let d = [-normal[1], normal[0]];
    let (t0, t1) = clip(point, d, lo, hi)?;
    Some([t0, t1].map(|t| [point[0] + t * d[0], point[1] + t * d[1]]))
}

/// Two unit vectors across the unit vector `n`, right-handed with it.
#[cfg(feature = "dim3")]
fn across(n: [f64; 3]) -> [[f64; 3]; 2] {
    // Crossed with the axis least along n: far from parallel.
    let k = (0..3).min_by(|&a, &b| n[a].abs().total_cmp(&n[b].abs())).unwrap_or(0);
    let mut e = [0.0; 3];
    e[k] = 1.0;
    let u = cross(n, e);
    let u = scale(1.0 / norm2(u).sqrt(), u);
    [u, cross(n, u)]
}

/// The polygon where a plane cuts the box `lo..hi`, its corners in order around it: the
/// box's corners on the plane and the crossings of its edges (none or fewer than three:
/// the plane misses the box, or only touches an edge or corner).
#[cfg(feature = "dim3")]
pub fn plane_in_box(point: [f64; 3], normal: [f64; 3], lo: [f64; 3], hi: [f64; 3]) -> Vec<[f64; 3]> {
    let corner = |k: usize| -> [f64; 3] { std::array::from_fn(|a| if k >> a & 1 == 1 { hi[a] } else { lo[a] }) };
    let dist = |x: [f64; 3]| dot(sub(x, point), normal);
    // A box face on the plane (a wall at the domain's bound) is the usual case, not an
    // accident: corners within rounding of the plane are on it.
    let tol = 1e-12 * norm2(sub(hi, lo)).sqrt();
    let mut pts: Vec<[f64; 3]> = Vec::new();
    for k in 0..8 {
        for a in (0..3).filter(|&a| k >> a & 1 == 0) {
            let (p, q) = (corner(k), corner(k | 1 << a));
            let (dp, dq) = (dist(p), dist(q));
            for (x, d) in [(p, dp), (q, dq)] {
                if d.abs() <= tol {
                    pts.push(x);
                }
            }
            if (dp > tol && dq < -tol) || (dp < -tol && dq > tol) {
                let mut x = p;
                x[a] = p[a] + dp / (dp - dq) * (q[a] - p[a]);
                pts.push(x);
            }
        }
    }
    let mut uniq: Vec<[f64; 3]> = Vec::new();
    for x in pts {
        if uniq.iter().all(|y| norm2(sub(x, *y)).sqrt() > tol) {
            uniq.push(x);
        }
    }
    if uniq.len() < 3 {
        return Vec::new();
    }
    // The cut is convex: its corners in order of their angle about its centroid.
    let c = scale(1.0 / uniq.len() as f64, uniq.iter().fold([0.0; 3], |s, x| add(s, *x)));
    let [u, v] = across(normal);
    let angle = |x: &[f64; 3]| {
        let r = sub(*x, c);
        dot(r, v).atan2(dot(r, u))
    };
    uniq.sort_by(|a, b| angle(a).total_cmp(&angle(b)));
    uniq
}

/// The quads of a tube of `TUBE_SEGMENTS` around a cylinder wall, over the stretch of its
/// axis inside the box `lo..hi`, with the surface's velocity at each quad's middle. None
/// where the axis misses the box.
#[cfg(feature = "dim3")]
pub fn tube_in_box(
    cy: &talus_engine::walls::CylinderWall,
    lo: [f64; 3],
    hi: [f64; 3],
) -> Vec<([[f64; 3]; 4], [f64; 3])> {
    let Some((t0, t1)) = clip(cy.point, cy.axis, lo, hi) else {
        return Vec::new();
    };
    let [u, v] = across(cy.axis);
    let radial = |k: f64| {
        let phi = 2.0 * std::f64::consts::PI * k / TUBE_SEGMENTS as f64;
        add(scale(cy.radius * phi.cos(), u), scale(cy.radius * phi.sin(), v))
    };
    let at = |t: f64, r: [f64; 3]| add(add(cy.point, scale(t, cy.axis)), r);
    (0..TUBE_SEGMENTS)
        .map(|s| {
            let (a, b) = (radial(s as f64), radial(s as f64 + 1.0));
            let quad = [at(t0, a), at(t0, b), at(t1, b), at(t1, a)];
            (quad, scale(cy.spin, cross(cy.axis, radial(s as f64 + 0.5))))
        })
        .collect()
}

/// A cell of the walls.
struct Cell {
    /// 0 wall, 1 wall body.
    kind: u8,
    index: u64,
    velocity: Vector,
    points: Vec<Vector>,
    vtk: u8,
}

fn cells(sim: &Simulation) -> Vec<Cell> {
    let c = &sim.config;
    let mut out = Vec::new();
    // A wall taken away is not drawn; the others keep their numbers.
    for (k, w) in sim.walls.iter().enumerate().filter(|(_, w)| !w.removed) {
        let wall = |velocity, points, vtk| Cell {
            kind: 0,
            index: k as u64,
            velocity,
            points,
            vtk,
        };
        #[cfg(not(feature = "dim3"))]
        if let Some(seg) = clip_line(w.line.point, w.line.normal, c.domain_min, c.domain_max) {
            out.push(wall(w.line.velocity, seg.to_vec(), VTK_LINE));
        }
        #[cfg(feature = "dim3")]
        match &w.surface {
            talus_engine::walls::Surface::Plane(pl) => {
                let poly = plane_in_box(pl.point, pl.normal, c.domain_min, c.domain_max);
                if !poly.is_empty() {
                    out.push(wall(pl.velocity, poly, VTK_POLYGON));
                }
            }
            talus_engine::walls::Surface::Cylinder(cy) => {
                for (quad, v) in tube_in_box(cy, c.domain_min, c.domain_max) {
                    out.push(wall(v, quad.to_vec(), VTK_QUAD));
                }
            }
        }
    }
    let ps = &sim.particles;
    for p in (0..ps.len()).filter(|&p| ps.is_wall_body(p)) {
        let centre = vec![std::array::from_fn(|a| ps.pos[a][p])];
        #[cfg(not(feature = "dim3"))]
        let points = match &sim.shapes {
            Some(sh) if sh.is_polygon(p) => sh.world[sh.range(p)].to_vec(),
            _ => centre,
        };
        #[cfg(feature = "dim3")]
        let points = centre;
        out.push(Cell {
            kind: 1,
            index: ps.id[p],
            velocity: std::array::from_fn(|a| ps.vel[a][p]),
            vtk: if points.len() == 1 { VTK_VERTEX } else { VTK_POLYGON },
            points,
        });
    }
    out
}

/// `v` as three numbers (VTK's points and vectors), 0 past its axes (z in 2D).
fn triple(v: &Vector) -> String {
    let mut s = String::new();
    for a in 0..3 {
        if a > 0 {
            s.push(' ');
        }
        match v.get(a) {
            Some(x) => write!(s, "{x:?}").unwrap(),
            None => s.push('0'),
        }
    }
    s
}

/// Write the walls of `sim` as it is now to `path`.
pub fn write_walls_vtu(path: &Path, sim: &Simulation) -> Result<()> {
    let cells = cells(sim);
    let np: usize = cells.iter().map(|c| c.points.len()).sum();
    let mut s = String::new();
    let list = |s: &mut String, name: &str, ty: &str, comps: usize, values: &mut dyn Iterator<Item = String>| {
        let _ = write!(
            s,
            "        <DataArray type=\"{ty}\" Name=\"{name}\" NumberOfComponents=\"{comps}\" format=\"ascii\">"
        );
        for v in values {
            s.push(' ');
            s.push_str(&v);
        }
        s.push_str(" </DataArray>\n");
    };
    s.push_str(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\">\n",
    );
    let _ = writeln!(
        s,
        "  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"{np}\" NumberOfCells=\"{}\">",
        cells.len()
    );
    s.push_str("      <CellData Scalars=\"kind\" Vectors=\"velocity\">\n");
    list(
        &mut s,
        "kind",
        "UInt8",
        1,
        &mut cells.iter().map(|c| c.kind.to_string()),
    );
    list(
        &mut s,
        "index",
        "Int64",
        1,
        &mut cells.iter().map(|c| c.index.to_string()),
    );
    list(
        &mut s,
        "velocity",
        "Float64",
        3,
        &mut cells.iter().map(|c| triple(&c.velocity)),
    );
    s.push_str("      </CellData>\n      <Points>\n");
    list(
        &mut s,
        "Points",
        "Float64",
        3,
        &mut cells.iter().flat_map(|c| c.points.iter()).map(triple),
    );
    s.push_str("      </Points>\n      <Cells>\n");
    list(&mut s, "connectivity", "Int64", 1, &mut (0..np).map(|k| k.to_string()));
    let mut end = 0;
    list(
        &mut s,
        "offsets",
        "Int64",
        1,
        &mut cells.iter().map(|c| {
            end += c.points.len();
            end.to_string()
        }),
    );
    list(
        &mut s,
        "types",
        "UInt8",
        1,
        &mut cells.iter().map(|c| c.vtk.to_string()),
    );
    s.push_str("      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
    std::fs::write(path, s).map_err(|e| IoError::os(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::tests::small_sim;

    /// The values of the ASCII DataArray named `name`.
    fn ascii(text: &str, name: &str) -> Vec<f64> {
        let at = text
            .find(&format!("Name=\"{name}\""))
            .unwrap_or_else(|| panic!("no {name}"));
        let body = &text[at..];
        let body = &body[body.find('>').unwrap() + 1..body.find("</DataArray>").unwrap()];
        body.split_whitespace().map(|v| v.parse().unwrap()).collect()
    }

    /// The walls of the small run: every point in the domain (the walls are clipped to
    /// it), the cells' point counts and types as drawn. In 3D, the floor is the square of
    /// the box at its height and the drum a tube of quads at its radius, spanning the box.
    #[test]
    fn walls_are_drawn_inside_the_domain() {
        let sim = small_sim();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("walls.vtu");
        write_walls_vtu(&path, &sim).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let pts: Vec<[f64; 3]> = ascii(&text, "Points")
            .chunks_exact(3)
            .map(|p| [p[0], p[1], p[2]])
            .collect();
        let types = ascii(&text, "types");
        let offsets = ascii(&text, "offsets");
        assert_eq!(offsets.last().copied(), Some(pts.len() as f64));
        let tol = 1e-12;
        for p in &pts {
            assert!((0..3).all(|a| (-tol..=1.0 + tol).contains(&p[a])), "{p:?}");
        }
        #[cfg(not(feature = "dim3"))]
        {
            assert_eq!(types, [VTK_LINE as f64]);
            let mut xs: Vec<[f64; 2]> = pts.iter().map(|p| [p[0], p[1]]).collect();
            xs.sort_by(|a, b| a[0].total_cmp(&b[0]));
            assert_eq!(xs, [[0.0, 0.1], [1.0, 0.1]]);
        }
        #[cfg(feature = "dim3")]
        {
            assert_eq!(types.len(), 1 + TUBE_SEGMENTS);
            assert_eq!(types[0], VTK_POLYGON as f64);
            assert!(types[1..].iter().all(|&t| t == VTK_QUAD as f64));
            assert_eq!(offsets[0], 4.0);
            let mut floor: Vec<[f64; 3]> = pts[..4].to_vec();
            floor.sort_by(|a, b| (a[0], a[1]).partial_cmp(&(b[0], b[1])).unwrap());
            let want = [[0.0, 0.0, 0.1], [0.0, 1.0, 0.1], [1.0, 0.0, 0.1], [1.0, 1.0, 0.1]];
            assert_eq!(floor, want);
            let tube = &pts[4..];
            assert_eq!(tube.len(), 4 * TUBE_SEGMENTS);
            for p in tube {
                let r = ((p[1] - 0.5).powi(2) + (p[2] - 0.5).powi(2)).sqrt();
                assert!((r - 0.45).abs() < 1e-12, "{p:?} at {r} from the axis");
                assert!(p[0] == 0.0 || p[0] == 1.0, "{p:?}: the tube spans the box along x");
            }
            // The quads go once around: their middles' angles cover the circle evenly.
            let mut angles: Vec<f64> = tube
                .chunks_exact(4)
                .map(|q| {
                    let m = q.iter().fold([0.0; 3], |s, p| add(s, *p));
                    (m[2] / 4.0 - 0.5).atan2(m[1] / 4.0 - 0.5)
                })
                .collect();
            angles.sort_by(f64::total_cmp);
            let step = 2.0 * std::f64::consts::PI / TUBE_SEGMENTS as f64;
            assert!(angles.windows(2).all(|w| (w[1] - w[0] - step).abs() < 1e-9));
            // A quad's velocity: the drum's surface turning at 2 rad/s, 0.45 from the axis.
            let vel = ascii(&text, "velocity");
            for (k, q) in tube.chunks_exact(4).enumerate() {
                let v = [vel[3 * (k + 1)], vel[3 * (k + 1) + 1], vel[3 * (k + 1) + 2]];
                assert!((norm2(v).sqrt() - 0.9).abs() < 1e-12, "{v:?}");
                assert_eq!(v[0], 0.0);
                let radial = sub(q[0], [q[0][0], 0.5, 0.5]);
                // Across the radius (to the quad's half angle) and counter-clockwise about x.
                assert!(dot(v, radial).abs() < 0.9 * 0.45 * (step / 2.0).sin() + 1e-12);
                assert!(cross(radial, v)[0] > 0.0);
            }
        }
    }

    #[cfg(feature = "dim3")]
    #[test]
    fn plane_cuts_of_a_box() {
        let (lo, hi) = ([0.0, -1.0, 2.0], [2.0, 1.0, 4.0]);
        // Through the centre, across the diagonal: a regular hexagon.
        let n = scale(1.0 / 3f64.sqrt(), [1.0, 1.0, 1.0]);
        let c = [1.0, 0.0, 3.0];
        let hex = plane_in_box(c, n, lo, hi);
        assert_eq!(hex.len(), 6);
        for (k, p) in hex.iter().enumerate() {
            assert!(dot(sub(*p, c), n).abs() < 1e-12, "{p:?} on the plane");
            assert!((0..3).all(|a| p[a] >= lo[a] && p[a] <= hi[a]), "{p:?} in the box");
            // In order around the normal, each side as long as the next.
            let (q, r) = (hex[(k + 1) % 6], hex[(k + 2) % 6]);
            assert!(dot(cross(sub(q, *p), sub(r, q)), n) > 0.0);
            assert!((norm2(sub(q, *p)) - norm2(sub(r, q))).abs() < 1e-12);
        }
        // Across an axis: the box's section, a rectangle.
        let rect = plane_in_box([0.5, 0.0, 0.0], [1.0, 0.0, 0.0], lo, hi);
        assert_eq!(rect.len(), 4);
        assert!(rect.iter().all(|p| p[0] == 0.5));
        // Missing the box, or touching only its edge: nothing to draw.
        assert!(plane_in_box([0.0, 0.0, 5.0], [0.0, 0.0, 1.0], lo, hi).is_empty());
        let edge = scale(1.0 / 2f64.sqrt(), [1.0, 1.0, 0.0]);
        assert!(plane_in_box([2.0, 1.0, 3.0], edge, lo, hi).is_empty());
    }
}
