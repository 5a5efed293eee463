//! Mass properties and transforms of convex polygons (vertices counter-clockwise).

/// Signed area (positive for counter-clockwise vertices), by the shoelace formula.
pub fn area(v: &[[f64; 2]]) -> f64 {
    let n = v.len();
    let mut s = 0.0;
    for k in 0..n {
        let (p, q) = (v[k], v[(k + 1) % n]);
        s += p[0] * q[1] - q[0] * p[1];
    }
    0.5 * s
}

/// Centroid of the polygon's area.
pub fn centroid(v: &[[f64; 2]]) -> [f64; 2] {
    let n = v.len();
    let (mut cx, mut cy, mut a2) = (0.0, 0.0, 0.0);
    // Relative to the first vertex, for accuracy far from the origin.
    let o = v[0];
    for k in 1..n.saturating_sub(1) {
        let (p, q) = (
            [v[k][0] - o[0], v[k][1] - o[1]],
            [v[k + 1][0] - o[0], v[k + 1][1] - o[1]],
        );
        let c = p[0] * q[1] - q[0] * p[1];
        a2 += c;
        cx += c * (p[0] + q[0]);
        cy += c * (p[1] + q[1]);
    }
    [o[0] + cx / (3.0 * a2), o[1] + cy / (3.0 * a2)]
}

/// Polar second moment of area about the centroid (J = integral of r^2 dA); the moment
/// of inertia of a body of areal density rho is rho * J.
pub fn polar_moment(v: &[[f64; 2]]) -> f64 {
    let c = centroid(v);
    let n = v.len();
    let mut j = 0.0;
    for k in 0..n {
        let p = [v[k][0] - c[0], v[k][1] - c[1]];
        let q = [v[(k + 1) % n][0] - c[0], v[(k + 1) % n][1] - c[1]];
        let cr = p[0] * q[1] - q[0] * p[1];
        j += cr * (p[0] * p[0] + p[0] * q[0] + q[0] * q[0] + p[1] * p[1] + p[1] * q[1] + q[1] * q[1]);
    }
    j / 12.0
}

/// Strictly convex and counter-clockwise (every turn is a left turn, at least 3 vertices)?
pub fn is_convex_ccw(v: &[[f64; 2]]) -> bool {
    let n = v.len();
    n >= 3
        && (0..n).all(|k| {
            let (a, b, c) = (v[k], v[(k + 1) % n], v[(k + 2) % n]);
            (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]) > 0.0
        })
}

/// World-frame vertices of a body: rotate the body-frame vertices by `angle` and translate
/// them to `pos`.
pub fn to_world(body: &[[f64; 2]], pos: [f64; 2], angle: f64, out: &mut [[f64; 2]]) {
    let (s, c) = super::sin_cos::sin_cos(angle);
    for (w, b) in out.iter_mut().zip(body) {
        *w = [pos[0] + c * b[0] - s * b[1], pos[1] + s * b[0] + c * b[1]];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rectangle_properties() {
        // 4 x 2 rectangle, corner at (1, 1).
        let v = [[1.0, 1.0], [5.0, 1.0], [5.0, 3.0], [1.0, 3.0]];
        assert!((area(&v) - 8.0).abs() < 1e-14);
        let c = centroid(&v);
        assert!((c[0] - 3.0).abs() < 1e-14 && (c[1] - 2.0).abs() < 1e-14);
        // J = A (w^2 + h^2) / 12 = 8 * 20 / 12.
        assert!((polar_moment(&v) - 8.0 * 20.0 / 12.0).abs() < 1e-12);
        assert!(is_convex_ccw(&v));
        let mut cw = v;
        cw.reverse();
        assert!(!is_convex_ccw(&cw));
    }

    #[test]
    fn regular_polygon_tends_to_disc() {
        let n = 2000;
        let v: Vec<[f64; 2]> = (0..n)
            .map(|k| {
                let t = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
                [10.0 + t.cos(), -4.0 + t.sin()]
            })
            .collect();
        assert!((area(&v) - std::f64::consts::PI).abs() < 1e-5);
        assert!((polar_moment(&v) - std::f64::consts::PI / 2.0).abs() < 1e-5);
        let c = centroid(&v);
        assert!((c[0] - 10.0).abs() < 1e-12 && (c[1] + 4.0).abs() < 1e-12);
    }
}
