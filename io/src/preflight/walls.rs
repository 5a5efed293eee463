//! The walls of a scenario as the set-up checks see them, each with its name in
//! messages: the engine's walls (lines in 2D, planes and cylinders in 3D; a box is four
//! lines or six planes), wall bodies (fixed or driven `[[body]]` polygons, their real
//! shapes) and drums (the ring their segments sweep as they turn, so that a gap between
//! two segments is no way through). How deep a ball, a polygon or an insertion region
//! reaches into each.
use talus_engine::Wall;
#[cfg(not(feature = "dim3"))]
use talus_kernels::geometry::penetration::penetration_depth;
#[cfg(not(feature = "dim3"))]
use talus_kernels::geometry::point_distance::signed_distance;
use talus_kernels::math::Vector;

use crate::scenario as sc;

/// The scenario's walls as the engine's walls, each with its name in messages (a box is
/// four lines or six planes, one fewer with `open_top`: floor, sides, top).
pub fn surface_walls(walls: &[sc::Wall]) -> Vec<(String, Wall)> {
    let mut out = Vec::new();
    for (k, w) in walls.iter().enumerate() {
        match *w {
            #[cfg(feature = "dim3")]
            sc::Wall::Plane {
                point,
                normal,
                material,
            } => out.push((
                format!("wall[{k}] (plane through {point:?}, normal {normal:?})"),
                Wall::plane(point, normal, material as u16),
            )),
            #[cfg(feature = "dim3")]
            sc::Wall::Cylinder {
                point,
                axis,
                radius,
                omega,
                material,
                ..
            } => out.push((
                format!("wall[{k}] (cylinder of radius {radius} about {point:?} along {axis:?})"),
                Wall::cylinder(point, axis, radius, omega, material as u16),
            )),
            #[cfg(feature = "dim3")]
            sc::Wall::Box {
                min,
                max,
                open_top,
                material,
            } => {
                let m = material as u16;
                let side =
                    |s: &str, axis: usize, at: f64| format!("wall[{k}] (box, {s}: {} = {at})", ["x", "y", "z"][axis]);
                let unit = |a: usize, s: f64| std::array::from_fn(|k| if k == a { s } else { 0.0 });
                out.push((side("floor", 2, min[2]), Wall::plane(min, unit(2, 1.0), m)));
                for (a, name) in [(0, "x"), (1, "y")] {
                    out.push((
                        side(&format!("low {name} side"), a, min[a]),
                        Wall::plane(min, unit(a, 1.0), m),
                    ));
                    out.push((
                        side(&format!("high {name} side"), a, max[a]),
                        Wall::plane(max, unit(a, -1.0), m),
                    ));
                }
                if !open_top {
                    out.push((side("top", 2, max[2]), Wall::plane(max, unit(2, -1.0), m)));
                }
            }
            #[cfg(not(feature = "dim3"))]
            sc::Wall::Line {
                point,
                normal,
                material,
            } => out.push((
                format!("wall[{k}] (line through {point:?}, normal {normal:?})"),
                Wall::fixed(point, normal, material as u16),
            )),
            #[cfg(not(feature = "dim3"))]
            sc::Wall::Box {
                min,
                max,
                open_top,
                material,
            } => {
                let m = material as u16;
                let side = |s: &str, at: String| format!("wall[{k}] (box, {s}: {at})");
                out.push((
                    side("floor", format!("y = {}", min[1])),
                    Wall::fixed(min, [0.0, 1.0], m),
                ));
                out.push((
                    side("left side", format!("x = {}", min[0])),
                    Wall::fixed(min, [1.0, 0.0], m),
                ));
                out.push((
                    side("right side", format!("x = {}", max[0])),
                    Wall::fixed(max, [-1.0, 0.0], m),
                ));
                if !open_top {
                    out.push((side("top", format!("y = {}", max[1])), Wall::fixed(max, [0.0, -1.0], m)));
                }
            }
        }
    }
    out
}

/// What reaches towards a wall: a ball (disc, sphere), or a convex polygon
/// (counter-clockwise corners, world frame) with a circle about `centre` holding it.
#[derive(Debug, Clone, Copy)]
pub enum Reacher<'a> {
    /// A disc or a sphere.
    Ball {
        /// Its centre, m.
        centre: Vector,
        /// Its radius, m.
        radius: f64,
    },
    /// A convex polygon (2D).
    #[cfg(not(feature = "dim3"))]
    Polygon {
        /// Its corners, counter-clockwise, world frame.
        corners: &'a [[f64; 2]],
        /// Centre of a circle holding it, m.
        centre: [f64; 2],
        /// Radius of that circle, m.
        radius: f64,
    },
    #[cfg(feature = "dim3")]
    #[doc(hidden)]
    _Unused(std::marker::PhantomData<&'a ()>),
}

#[cfg(not(feature = "dim3"))]
impl Reacher<'_> {
    fn circle(&self) -> ([f64; 2], f64) {
        match *self {
            Reacher::Ball { centre, radius } | Reacher::Polygon { centre, radius, .. } => (centre, radius),
        }
    }
}

/// A polygon of infinite mass at the start: its corners (counter-clockwise, world frame)
/// and a circle holding them (the broad phase).
#[cfg(not(feature = "dim3"))]
#[derive(Debug, Clone)]
pub struct WallBody {
    /// Corners, counter-clockwise, world frame.
    pub corners: Vec<[f64; 2]>,
    centre: [f64; 2],
    radius: f64,
}

#[cfg(not(feature = "dim3"))]
impl WallBody {
    /// The body of these corners, with the circle about their mean that holds them.
    pub fn new(corners: Vec<[f64; 2]>) -> WallBody {
        let n = corners.len() as f64;
        let centre = corners.iter().fold([0.0; 2], |s, v| [s[0] + v[0] / n, s[1] + v[1] / n]);
        let radius = corners
            .iter()
            .map(|v| (v[0] - centre[0]).hypot(v[1] - centre[1]))
            .fold(0.0, f64::max);
        WallBody {
            corners,
            centre,
            radius,
        }
    }
}

/// One wall's shape.
#[derive(Debug, Clone)]
pub enum WallShape {
    /// A line, plane or cylinder: the engine's own wall.
    Surface(Wall),
    /// A fixed or driven polygon (2D `[[body]]`).
    #[cfg(not(feature = "dim3"))]
    Body(WallBody),
    /// The ring `inner..outer` about `centre`.
    #[cfg(not(feature = "dim3"))]
    Ring {
        /// The ring's centre, m.
        centre: [f64; 2],
        /// Inner radius, m.
        inner: f64,
        /// Outer radius, m.
        outer: f64,
    },
}

impl WallShape {
    /// How deep `r` reaches into the wall (positive: overlapping it by that much; behind a
    /// line wall, its deepest point; for polygons, the shortest move that parts them);
    /// negative where it is clear of it (at most its distance).
    pub fn reach(&self, r: &Reacher) -> f64 {
        match self {
            WallShape::Surface(w) => match *r {
                Reacher::Ball { centre, radius } => radius - w.distance(centre),
                #[cfg(not(feature = "dim3"))]
                Reacher::Polygon { corners, .. } => corners
                    .iter()
                    .map(|v| -w.distance(*v))
                    .fold(f64::NEG_INFINITY, f64::max),
                #[cfg(feature = "dim3")]
                Reacher::_Unused(_) => f64::NEG_INFINITY,
            },
            #[cfg(not(feature = "dim3"))]
            WallShape::Body(b) => {
                let (c, rad) = r.circle();
                let gap = (c[0] - b.centre[0]).hypot(c[1] - b.centre[1]) - rad - b.radius;
                if gap > 0.0 {
                    return -gap;
                }
                match *r {
                    Reacher::Ball { centre, radius } => radius - signed_distance(centre, &b.corners),
                    Reacher::Polygon { corners, .. } => penetration_depth(corners, &b.corners),
                }
            }
            #[cfg(not(feature = "dim3"))]
            WallShape::Ring { centre, inner, outer } => {
                // The radial extent of the reacher about the ring's centre against the
                // ring's: their overlap.
                let (near, far) = match *r {
                    Reacher::Ball { centre: p, radius } => {
                        let d = (p[0] - centre[0]).hypot(p[1] - centre[1]);
                        ((d - radius).max(0.0), d + radius)
                    }
                    Reacher::Polygon { corners, .. } => (
                        signed_distance(*centre, corners).max(0.0),
                        corners
                            .iter()
                            .map(|v| (v[0] - centre[0]).hypot(v[1] - centre[1]))
                            .fold(0.0, f64::max),
                    ),
                };
                far.min(*outer) - near.max(*inner)
            }
        }
    }

    /// How far the point `p` is behind or inside the wall (positive), or in front of it or
    /// out of it (negative).
    pub fn inside(&self, p: Vector) -> f64 {
        match self {
            WallShape::Surface(w) => -w.distance(p),
            #[cfg(not(feature = "dim3"))]
            WallShape::Body(b) => -signed_distance(p, &b.corners),
            #[cfg(not(feature = "dim3"))]
            WallShape::Ring { centre, inner, outer } => {
                let d = (p[0] - centre[0]).hypot(p[1] - centre[1]);
                (d - inner).min(outer - d)
            }
        }
    }

    /// "behind" a line or a plane, "inside" the others (outside a cylinder).
    pub fn behind(&self) -> &'static str {
        match self {
            #[cfg(feature = "dim3")]
            WallShape::Surface(w) if matches!(w.surface, talus_engine::walls::Surface::Cylinder(_)) => "outside",
            WallShape::Surface(_) => "behind",
            #[cfg(not(feature = "dim3"))]
            _ => "inside",
        }
    }
}

/// Every wall of a scenario with its name in messages.
#[derive(Debug, Clone, Default)]
pub struct Walls(pub Vec<(String, WallShape)>);

impl Walls {
    /// The walls of `scenario`: its lines, planes and cylinders (see [`surface_walls`]),
    /// its fixed and driven bodies (free ones are grains), its drums' rings. Bodies'
    /// corners as given: the build has checked them (convex, counter-clockwise).
    pub fn of(scenario: &sc::Scenario) -> Walls {
        #[allow(unused_mut)]
        let mut out: Vec<(String, WallShape)> = surface_walls(&scenario.walls)
            .into_iter()
            .map(|(l, w)| (l, WallShape::Surface(w)))
            .collect();
        #[cfg(not(feature = "dim3"))]
        for (k, b) in scenario.bodies.iter().enumerate() {
            let how = match b.motion {
                sc::Motion::Free => continue,
                sc::Motion::Fixed => "fixed",
                sc::Motion::Driven(_) => "driven",
            };
            out.push((
                format!("body[{k}] ({how} polygon)"),
                WallShape::Body(WallBody::new(b.vertices.clone())),
            ));
        }
        #[cfg(not(feature = "dim3"))]
        for (k, d) in scenario.drums.iter().enumerate() {
            let (inner, outer) = (d.radius, d.radius + d.thickness);
            out.push((
                format!("drum[{k}] (its ring {inner}..{outer} m about {:?})", d.centre),
                WallShape::Ring {
                    centre: d.centre,
                    inner,
                    outer,
                },
            ));
        }
        Walls(out)
    }

    /// The engine's walls (lines, planes, cylinders).
    // In 3D every wall is one: the filter keeps them all.
    #[cfg_attr(feature = "dim3", allow(clippy::unnecessary_filter_map))]
    pub fn surfaces(&self) -> impl Iterator<Item = Wall> + '_ {
        self.0.iter().filter_map(|(_, w)| match w {
            WallShape::Surface(l) => Some(l.clone()),
            #[cfg(not(feature = "dim3"))]
            _ => None,
        })
    }

    /// The wall `r` reaches deepest into: its index and the depth (None: no walls).
    pub fn deepest(&self, r: &Reacher) -> Option<(usize, f64)> {
        self.0
            .iter()
            .enumerate()
            .map(|(k, (_, w))| (k, w.reach(r)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// scenarios/hopper.toml (its plates in a box open at the top, 600 polygons above them)
/// with a drum of inner radius 0.05 below the plates and a stream poured between them:
/// for the placement and region checks' tests.
#[cfg(all(test, not(feature = "dim3")))]
pub(crate) fn test_scenario() -> sc::Scenario {
    let text = format!(
        "{}{}",
        include_str!("../../../scenarios/hopper.toml"),
        r#"
[[drum]]
material = "grain"
centre = [0.15, 0.07]
radius = 0.05
thickness = 0.005
segments = 16
omega = 1.0
[[insert]]
material = "grain"
region = { min = [0.11, 0.20], max = [0.19, 0.235] }
radius = { kind = "fixed", value = 1.0e-3 }
per_insert = 10
every = 100
total = 100
"#
    );
    sc::parse_scenario(&text, std::path::Path::new("walls.toml")).unwrap_or_else(|e| panic!("{e}"))
}
