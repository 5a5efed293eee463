//! Insertion regions: an `[[insert]]` region is where the poured particles' bounding
//! circles go. One reaching behind a line wall, into a wall body or into a drum's ring
//! is refused, as particles placed so are: behind a thin plate it would pour particles on
//! the far side of it (outside a hopper's funnel), and a drum's turning segments sweep
//! their whole ring.
use super::placement::WALL_OVERLAP;
use super::walls::{Reacher, WallShape, Walls};
use crate::scenario as sc;

/// Refuse the `[[insert]]` regions that reach behind or into a wall by more than
/// [`WALL_OVERLAP`] of their stream's smallest radius (what a particle may reach into one
/// at set-up), naming each such stream, its region, the wall and how deep.
pub fn check_insert_regions(inserts: &[sc::Insert], walls: &Walls) -> Result<(), String> {
    let mut problems = Vec::new();
    for (k, i) in inserts.iter().enumerate() {
        let (lo, hi) = (i.region_min, i.region_max);
        let corners = [lo, [hi[0], lo[1]], hi, [lo[0], hi[1]]];
        let region = Reacher::Polygon {
            corners: &corners,
            centre: [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])],
            radius: 0.5 * (hi[0] - lo[0]).hypot(hi[1] - lo[1]),
        };
        let allowed = WALL_OVERLAP * i.radius.min();
        if let Some((w, depth)) = walls.deepest(&region).filter(|&(_, d)| d > allowed) {
            let (label, shape) = &walls.0[w];
            let how = if matches!(shape, WallShape::Surface(_)) {
                "behind"
            } else {
                "into"
            };
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

#[cfg(test)]
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
