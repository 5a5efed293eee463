//! Polygon shapes as sparse feature connectivity: the vertices of all polygons in one flat
//! array, particle p owning `start[p]..start[p + 1]` (a disc owns an empty range), in the
//! body frame (centroid at the origin), with the world-frame vertices of the current step
//! kept ready in a parallel array, recomputed once per step, not per contact. Edge k of a
//! polygon runs from its vertex k to vertex k + 1 (counter-clockwise): the ring is implied
//! by the order, so no per-polygon allocation and no edge array.
use talus_kernels::geometry::polygon::{area, centroid, is_convex_ccw, polar_moment, to_world};

use crate::error::{EngineError, Result};

/// Fewest and most vertices of one polygon.
pub const MIN_VERTICES: usize = 3;
/// Most vertices of one polygon (the kernels' overlap bound).
pub const MAX_VERTICES: usize = talus_kernels::geometry::overlap::MAX_VERTICES;

/// The polygon shapes of all particles (module doc): vertex ranges per particle, body and world frames.
#[derive(Debug, Clone, Default)]
pub struct Shapes {
    /// Particle p's vertices are `start[p]..start[p + 1]`: one entry more than particles.
    pub start: Vec<u32>,
    /// Body-frame vertices (m), centroid at the origin.
    pub body: Vec<[f64; 2]>,
    /// World-frame vertices of the current step (m), parallel to `body`.
    pub world: Vec<[f64; 2]>,
}

/// Mass properties of a polygon of unit areal density, and its body-frame vertices.
#[derive(Debug, Clone)]
pub struct PolygonShape {
    /// Body frame: centroid at the origin.
    pub vertices: Vec<[f64; 2]>,
    /// Area (m^2): the mass at unit areal density.
    pub area: f64,
    /// Polar second moment of area about the centroid.
    pub polar_moment: f64,
    /// Largest distance of a vertex from the centroid.
    pub radius: f64,
    /// Where the centroid was in the frame the vertices were given in.
    pub centroid: [f64; 2],
}

impl PolygonShape {
    /// Check and centre a polygon given in any frame (counter-clockwise, convex, 3..=64
    /// vertices).
    pub fn new(vertices: &[[f64; 2]]) -> Result<Self> {
        let n = vertices.len();
        if !(MIN_VERTICES..=MAX_VERTICES).contains(&n) {
            return Err(EngineError::Setup(format!(
                "a polygon needs {MIN_VERTICES} to {MAX_VERTICES} vertices, got {n}"
            )));
        }
        if !vertices.iter().all(|v| v[0].is_finite() && v[1].is_finite()) || !is_convex_ccw(vertices) {
            return Err(EngineError::Setup(
                "polygon vertices must be finite, counter-clockwise and strictly convex".into(),
            ));
        }
        let c = centroid(vertices);
        let body: Vec<[f64; 2]> = vertices.iter().map(|v| [v[0] - c[0], v[1] - c[1]]).collect();
        let radius = body.iter().map(|v| v[0].hypot(v[1])).fold(0.0, f64::max);
        Ok(PolygonShape {
            area: area(&body),
            polar_moment: polar_moment(&body),
            vertices: body,
            radius,
            centroid: c,
        })
    }
}

impl Shapes {
    /// No particles yet.
    pub fn new() -> Self {
        Shapes {
            start: vec![0],
            ..Default::default()
        }
    }

    /// Append the shape of the next particle (`None` for a disc).
    pub fn push(&mut self, shape: Option<&PolygonShape>) {
        if let Some(s) = shape {
            self.body.extend_from_slice(&s.vertices);
            self.world.extend_from_slice(&s.vertices);
        }
        self.start.push(self.body.len() as u32);
    }

    /// Where particle `p`'s vertices sit in `body` and `world` (empty for a disc).
    #[inline(always)]
    pub fn range(&self, p: usize) -> std::ops::Range<usize> {
        self.start[p] as usize..self.start[p + 1] as usize
    }

    /// Whether particle `p` is a polygon (not a disc).
    #[inline(always)]
    pub fn is_polygon(&self, p: usize) -> bool {
        self.start[p + 1] > self.start[p]
    }

    /// World-frame vertices of every polygon from the current positions and angles.
    pub fn update_world(&mut self, x: &[f64], y: &[f64], angle: &[f64]) {
        for p in 0..self.start.len() - 1 {
            let r = self.range(p);
            if !r.is_empty() {
                to_world(&self.body[r.clone()], [x[p], y[p]], angle[p], &mut self.world[r]);
            }
        }
    }

    /// Renumber (`map[old] = new` or `u32::MAX` = removed): the ranges follow their
    /// particles.
    pub fn remap(&mut self, map: &[u32]) {
        let kept = map.iter().filter(|&&m| m != u32::MAX).count();
        let mut order = vec![u32::MAX; kept];
        for (old, &new) in map.iter().enumerate() {
            if new != u32::MAX {
                order[new as usize] = old as u32;
            }
        }
        let mut s = Shapes::new();
        s.body.reserve(self.body.len());
        s.world.reserve(self.world.len());
        for &old in &order {
            let r = self.range(old as usize);
            s.body.extend_from_slice(&self.body[r.clone()]);
            s.world.extend_from_slice(&self.world[r]);
            s.start.push(s.body.len() as u32);
        }
        *self = s;
    }

    /// Bytes the arrays hold (their capacities).
    pub fn memory_bytes(&self) -> usize {
        self.start.capacity() * 4 + (self.body.capacity() + self.world.capacity()) * 16
    }
}
