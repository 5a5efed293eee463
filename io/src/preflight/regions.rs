//! Insertion regions: an `[[insert]]` region is where the poured particles' bounding
//! circles go. One reaching behind a line wall, into a wall body or into a drum's ring
//! is refused, as particles placed so are: behind a thin plate it would pour particles on
//! the far side of it (outside a hopper's funnel), and a drum's turning segments sweep
//! their whole ring. In 3D the walls are planes and cylinders: a box reaches deepest behind
//! a plane, or out of a cylinder, at one of its corners (the distance from an axis is
//! convex).
use super::placement::WALL_OVERLAP;
use super::walls::Walls;
#[cfg(not(feature = "dim3"))]
use super::walls::{Reacher, WallShape};
use crate::scenario as sc;

/// Refuse the `[[insert]]` regions that reach behind or into a wall by more than
/// [`WALL_OVERLAP`] of their stream's smallest radius (what a particle may reach into one
/// at set-up), naming each such stream, its region, the wall and how deep.
pub fn check_insert_regions(inserts: &[sc::Insert], walls: &Walls) -> Result<(), String> {
    let mut problems = Vec::new();
    for (k, i) in inserts.iter().enumerate() {
        let (lo, hi) = (i.region_min, i.region_max);
        #[cfg(not(feature = "dim3"))]
        let deepest = {
            let corners = [lo, [hi[0], lo[1]], hi, [lo[0], hi[1]]];
            let region = Reacher::Polygon {
                corners: &corners,
                centre: [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])],
                radius: 0.5 * (hi[0] - lo[0]).hypot(hi[1] - lo[1]),
            };
            walls.deepest(&region)
        };
        #[cfg(feature = "dim3")]
        let deepest = walls
            .0
            .iter()
            .enumerate()
            .map(|(w, (_, shape))| {
                let corner = |k: usize| std::array::from_fn(|a| if k >> a & 1 == 0 { lo[a] } else { hi[a] });
                let depth = (0..8)
                    .map(|k| shape.inside(corner(k)))
                    .fold(f64::NEG_INFINITY, f64::max);
                (w, depth)
            })
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let allowed = WALL_OVERLAP * i.radius.min();
        if let Some((w, depth)) = deepest.filter(|&(_, d)| d > allowed) {
            let (label, shape) = &walls.0[w];
            #[cfg(not(feature = "dim3"))]
            let how = if matches!(shape, WallShape::Surface(_)) {
                "behind"
            } else {
                "into"
            };
            #[cfg(feature = "dim3")]
            let how = shape.behind();
            problems.push(format!(
                "insert[{k}] (region {lo:?}..{hi:?}) reaches {depth:.3e} m {how} {label}"
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}; particles poured there would start on the far side of a wall or be struck by it: keep \
             each [[insert]] region on the particles' side of every wall and clear of wall bodies and drums' \
             rings (to within a tenth of the stream's smallest radius)",
            problems.join("; ")
        ))
    }
}

#[cfg(all(test, not(feature = "dim3")))]
mod tests {
    use super::*;
    use crate::preflight::walls::test_scenario;

    /// The test scenario's stream with its region `lo..hi`.
    fn check(lo: [f64; 2], hi: [f64; 2]) -> Result<(), String> {
        let s = test_scenario();
        let mut i = s.inserts[0].clone();
        (i.region_min, i.region_max) = (lo, hi);
        check_insert_regions(&[i], &Walls::of(&s))
    }

    #[test]
    fn a_region_reaching_through_a_wall_is_refused() {
        // Between the plates (11 mm from them), inside the drum, on the floor: fine.
        check([0.11, 0.20], [0.19, 0.235]).unwrap();
        check([0.12, 0.04], [0.18, 0.1]).unwrap();
        check([0.0, 0.0], [0.3, 0.01]).unwrap();
        // Wider, the plates cut through its lower corners: grains would be poured under
        // them, outside the funnel.
        let e = check([0.07, 0.20], [0.23, 0.235]).unwrap_err();
        assert!(
            e.starts_with("insert[0] (region [0.07, 0.2]..[0.23, 0.235]) reaches ")
                && e.contains(" m into body[")
                && e.contains("keep each [[insert]] region on the particles' side of every wall"),
            "{e}"
        );
        // Through the floor: 5 mm behind it, where 0.1 mm (a tenth of the radius) is let by.
        let e = check([0.0, -0.005], [0.3, 0.01]).unwrap_err();
        assert!(
            e.contains("reaches 5.000e-3 m behind wall[0] (box, floor: y = 0)"),
            "{e}"
        );
        check([0.0, -0.00009], [0.3, 0.01]).unwrap();
        // Across the drum's ring, here where two segments leave a gap or not.
        let e = check([0.12, 0.04], [0.21, 0.1]).unwrap_err();
        assert!(
            e.contains(" m into drum[0] (its ring 0.05..0.055 m about [0.15, 0.07])"),
            "{e}"
        );
    }

    /// The build refuses such a scenario, naming its file.
    #[test]
    fn the_build_refuses_it_naming_the_file() {
        let mut s = test_scenario();
        s.inserts[0].region_min = [0.07, 0.20];
        s.inserts[0].region_max = [0.23, 0.235];
        let e = crate::build::build(&s, std::path::Path::new("walls.toml"))
            .err()
            .expect("refused")
            .to_string();
        assert!(
            e.starts_with("walls.toml: insert[0] (region [0.07, 0.2]..[0.23, 0.235]) reaches "),
            "{e}"
        );
    }
}

#[cfg(all(test, feature = "dim3"))]
mod tests3d {
    use std::path::Path;

    use crate::scenario::parse_scenario;

    /// A drum of radius 0.05 about the y axis through (0.1, _, 0.1), closed by end planes
    /// at y = 0.01 and 0.09, with a stream poured into `region`.
    fn drum(region: &str) -> String {
        format!(
            r#"dimension = 3
[domain]
min = [0.0, 0.0, 0.0]
max = [0.2, 0.1, 0.2]
[[material]]
name = "m"
density = 2500.0
kn = 1.0e5
restitution = 0.5
friction = 0.5
[[wall]]
kind = "cylinder"
point = [0.1, 0.0, 0.1]
axis = [0.0, 1.0, 0.0]
radius = 0.05
material = "m"
[[wall]]
kind = "plane"
point = [0.0, 0.01, 0.0]
normal = [0.0, 1.0, 0.0]
material = "m"
[[wall]]
kind = "plane"
point = [0.0, 0.09, 0.0]
normal = [0.0, -1.0, 0.0]
material = "m"
[[insert]]
material = "m"
region = {region}
radius = {{ kind = "fixed", value = 0.002 }}
rate = 1000.0
total = 10
[run]
steps = 10
"#
        )
    }

    fn built(region: &str) -> Result<(), String> {
        let s = parse_scenario(&drum(region), Path::new("d.toml")).map_err(|e| e.to_string())?;
        crate::build::build(&s, Path::new("d.toml"))
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_region_reaching_out_of_a_cylinder_or_behind_a_plane_is_refused() {
        // Inside the drum (its corners 0.042 from the axis), between the end planes.
        built("{ min = [0.07, 0.02, 0.1], max = [0.13, 0.08, 0.13] }").unwrap();
        // Its upper corners 0.0583 from the axis: 8.3 mm out of the cylinder.
        let e = built("{ min = [0.07, 0.02, 0.1], max = [0.13, 0.08, 0.15] }").unwrap_err();
        assert!(
            e.contains("insert[0] (region [0.07, 0.02, 0.1]..[0.13, 0.08, 0.15]) reaches 8.310e-3 m outside wall[0]"),
            "{e}"
        );
        // 5 mm behind the near end plane.
        let e = built("{ min = [0.07, 0.005, 0.1], max = [0.13, 0.08, 0.13] }").unwrap_err();
        assert!(e.contains("reaches 5.000e-3 m behind wall[1]"), "{e}");
        assert!(
            e.contains("keep each [[insert]] region on the particles' side of every wall"),
            "{e}"
        );
    }
}
