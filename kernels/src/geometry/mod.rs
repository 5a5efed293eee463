//! Geometry of convex polygons: mass properties, closest features of a separated pair,
//! the overlap of a penetrating pair. Polygons are slices of vertices `[x, y]` in
//! counter-clockwise order (the engine's flat world-vertex array, one range per body).
pub mod closest_features;
pub mod crossings;
pub mod overlap;
pub mod polygon;
pub mod projection;
pub mod separating_line;
