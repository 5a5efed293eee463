//! Overlap of two penetrating convex polygons: the overlap polygon (Sutherland-Hodgman
//! clipping of one by the edge half-planes of the other), its area and centroid, and the
//! contact line through the two points where the boundaries cross (Schinner 1999; the
//! force acts at the centroid, perpendicular to that line). Fixed-size buffers on the
//! stack: no allocation per pair.

/// Largest vertex count of one polygon.
pub const MAX_VERTICES: usize = 64;
const CAP: usize = 2 * MAX_VERTICES + 4;
/// Segment tag: part of the boundary of the first polygon.
const ON_A: u16 = u16::MAX;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overlap {
    pub area: f64,
    pub centroid: [f64; 2],
    /// The points where the two boundaries cross (the ends of the contact line), when there
    /// are exactly two (always, unless the configuration is degenerate).
    pub line: Option<[[f64; 2]; 2]>,
    /// Unit normal of the contact line, pointing from the first polygon into the second.
    pub normal: [f64; 2],
}

#[derive(Clone, Copy)]
pub(crate) struct Vtx {
    p: [f64; 2],
    /// On both boundaries: a crossing point.
    crossing: bool,
    /// What the segment from this vertex to the next lies on: ON_A or an edge of b.
    seg: u16,
}

const EMPTY: Vtx = Vtx {
    p: [0.0; 2],
    crossing: false,
    seg: ON_A,
};

#[inline(always)]
fn cross(p: [f64; 2], q: [f64; 2]) -> f64 {
    p[0] * q[1] - p[1] * q[0]
}

/// Mean of the vertices (a cheap interior point, for orienting the normal).
fn mean(v: &[[f64; 2]]) -> [f64; 2] {
    let n = v.len() as f64;
    let s = v.iter().fold([0.0; 2], |s, p| [s[0] + p[0], s[1] + p[1]]);
    [s[0] / n, s[1] / n]
}

/// Work space of the clipping: two vertex buffers, reused from call to call (making and
/// swapping them per call cost more than the clipping itself).
#[derive(Clone)]
pub struct OverlapScratch {
    buf: [[Vtx; CAP]; 2],
    dist: [f64; CAP],
}

impl Default for OverlapScratch {
    fn default() -> Self {
        OverlapScratch {
            buf: [[EMPTY; CAP]; 2],
            dist: [0.0; CAP],
        }
    }
}

impl std::fmt::Debug for OverlapScratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OverlapScratch")
    }
}

/// The overlap of convex polygons `a` and `b` (counter-clockwise, at most
/// [`MAX_VERTICES`] each), or `None` if their interiors do not overlap.
pub fn overlap(a: &[[f64; 2]], b: &[[f64; 2]]) -> Option<Overlap> {
    overlap_in(a, b, &mut OverlapScratch::default())
}

/// [`overlap`] with caller-provided work space (no allocation, no initialisation).
pub fn overlap_in(a: &[[f64; 2]], b: &[[f64; 2]], scratch: &mut OverlapScratch) -> Option<Overlap> {
    assert!(
        a.len() <= MAX_VERTICES && b.len() <= MAX_VERTICES,
        "overlap: at most {MAX_VERTICES} vertices"
    );
    let [b0, b1] = &mut scratch.buf;
    let scratch_dist = &mut scratch.dist;
    // The two buffers alternate as source and destination: references are swapped, not
    // the buffers.
    let (mut cur, mut nxt) = (b0, b1);
    let mut m = a.len();
    for (k, &p) in a.iter().enumerate() {
        cur[k] = Vtx {
            p,
            crossing: false,
            seg: ON_A,
        };
    }
    let nb = b.len();
    // A circle around a: an edge of b whose line has the whole circle on its inner side
    // cuts nothing, and is passed over at the cost of one cross product. In a typical
    // contact only two or three edges of b are left.
    let ca = mean(a);
    let ra = a
        .iter()
        .map(|p| (p[0] - ca[0]).powi(2) + (p[1] - ca[1]).powi(2))
        .fold(0.0, f64::max)
        .sqrt();
    for j in 0..nb {
        let (b0, b1) = (b[j], b[(j + 1) % nb]);
        let e = [b1[0] - b0[0], b1[1] - b0[1]];
        let len = (e[0] * e[0] + e[1] * e[1]).sqrt();
        if cross(e, [ca[0] - b0[0], ca[1] - b0[1]]) > ra * len * (1.0 + 1e-9) {
            continue;
        }
        // Signed distances first: most edges of b cut nothing, and then the pass is skipped
        // without copying the polygon (the copies dominated the cost).
        let dist = &mut scratch_dist[..m];
        let mut any_out = false;
        for (d, u) in dist.iter_mut().zip(&cur[..m]) {
            *d = cross(e, [u.p[0] - b0[0], u.p[1] - b0[1]]);
            any_out |= *d < 0.0;
        }
        if !any_out {
            continue;
        }
        let mut w = 0;
        for k in 0..m {
            let kn = if k + 1 == m { 0 } else { k + 1 };
            let (u, v) = (cur[k], cur[kn]);
            let (du, dv) = (dist[k], dist[kn]);
            let cut = |t: f64| [u.p[0] + t * (v.p[0] - u.p[0]), u.p[1] + t * (v.p[1] - u.p[1])];
            if du >= 0.0 {
                nxt[w] = u;
                w += 1;
                if dv < 0.0 {
                    // Leaving b's half-plane: the new segment runs along b's edge j.
                    nxt[w] = Vtx {
                        p: cut(du / (du - dv)),
                        crossing: u.seg == ON_A,
                        seg: j as u16,
                    };
                    w += 1;
                }
            } else if dv >= 0.0 {
                // Entering: the segment goes on along u's segment.
                nxt[w] = Vtx {
                    p: cut(du / (du - dv)),
                    crossing: u.seg == ON_A,
                    seg: u.seg,
                };
                w += 1;
            }
        }
        if w < 3 {
            return None;
        }
        std::mem::swap(&mut cur, &mut nxt);
        m = w;
    }
    // Area and centroid, relative to the first vertex for accuracy.
    let o = cur[0].p;
    let (mut a2, mut cx, mut cy) = (0.0, 0.0, 0.0);
    for k in 1..m - 1 {
        let (p, q) = (cur[k].p, cur[k + 1].p);
        let (p, q) = ([p[0] - o[0], p[1] - o[1]], [q[0] - o[0], q[1] - o[1]]);
        let c = cross(p, q);
        a2 += c;
        cx += c * (p[0] + q[0]);
        cy += c * (p[1] + q[1]);
    }
    if a2 <= 0.0 {
        return None;
    }
    let centroid = [o[0] + cx / (3.0 * a2), o[1] + cy / (3.0 * a2)];
    let (ca, cb) = (mean(a), mean(b));
    let mut pts = [[0.0; 2]; 2];
    let mut found = 0;
    for v in &cur[..m] {
        if v.crossing {
            if found < 2 {
                pts[found] = v.p;
            }
            found += 1;
        }
    }
    let line = (found == 2).then_some(pts);
    // Normal: perpendicular to the contact line, or along the centres without one.
    let mut nrm = match line {
        Some([p, q]) => [-(q[1] - p[1]), q[0] - p[0]],
        None => [cb[0] - ca[0], cb[1] - ca[1]],
    };
    if nrm[0] * (cb[0] - ca[0]) + nrm[1] * (cb[1] - ca[1]) < 0.0 {
        nrm = [-nrm[0], -nrm[1]];
    }
    let len = (nrm[0] * nrm[0] + nrm[1] * nrm[1]).sqrt();
    let normal = if len > 0.0 {
        [nrm[0] / len, nrm[1] / len]
    } else {
        [1.0, 0.0]
    };
    Some(Overlap {
        area: 0.5 * a2,
        centroid,
        line,
        normal,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_squares() {
        let a = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]];
        let b = [[1.0, 0.5], [3.0, 0.5], [3.0, 2.5], [1.0, 2.5]];
        let o = overlap(&a, &b).unwrap();
        assert!((o.area - 1.5).abs() < 1e-14, "{o:?}");
        assert!((o.centroid[0] - 1.5).abs() < 1e-14 && (o.centroid[1] - 1.25).abs() < 1e-14);
        let [p, q] = o.line.unwrap();
        // The boundaries cross at (2, 0.5) and (1, 2).
        let has = |x: [f64; 2]| (p == x) || (q == x);
        assert!(has([2.0, 0.5]) && has([1.0, 2.0]), "{p:?} {q:?}");
        // Perpendicular to the line (direction (-1, 1.5)), pointing from a towards b.
        let n = o.normal;
        assert!((-n[0] + n[1] * 1.5).abs() < 1e-14 && n[0] + 0.5 * n[1] > 0.0, "{n:?}");
        assert!((n[0].hypot(n[1]) - 1.0).abs() < 1e-15);
        let far = [[5.0, 5.0], [6.0, 5.0], [6.0, 6.0]];
        assert!(overlap(&a, &far).is_none());
    }
}
