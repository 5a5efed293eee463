//! The walls of a run as their own ParaView grid (`walls_NNNNNNNN.vtu`, one per frame, so
//! that moving walls move): line walls as VTK_LINE cells, clipped to the domain (they are
//! infinite lines in the engine), and wall bodies (particles of infinite mass: fixed or
//! driven, such as the hopper's plates and the drum's segments) as VTK_POLYGON cells
//! through their world-frame corners, or a VTK_VERTEX at the centre of a disc-shaped one.
//! Cell data: `kind` (0 line wall, 1 wall body), `index` (the wall's number in the
//! scenario's order, or the body's particle id) and `velocity`. Written as ASCII XML: a
//! few dozen cells, read by any VTK version.
use std::fmt::Write as _;
use std::path::Path;

use talus_engine::Simulation;

use crate::{IoError, Result};

const VTK_VERTEX: u8 = 1;
const VTK_LINE: u8 = 3;
const VTK_POLYGON: u8 = 7;

/// Does the run have walls to draw: line walls or wall bodies?
pub fn has_walls(sim: &Simulation) -> bool {
    !sim.walls.is_empty() || sim.particles.wall_bodies() > 0
}

/// The part of the line through `point` with unit `normal` inside the box `lo..hi`
/// (Liang-Barsky clipping of the line's parametric form), if it crosses the box.
pub fn clip_line(point: [f64; 2], normal: [f64; 2], lo: [f64; 2], hi: [f64; 2]) -> Option<[[f64; 2]; 2]> {
    let d = [-normal[1], normal[0]];
    let (mut t0, mut t1) = (f64::NEG_INFINITY, f64::INFINITY);
    for k in 0..2 {
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
    (t0 < t1).then(|| [t0, t1].map(|t| [point[0] + t * d[0], point[1] + t * d[1]]))
}

/// Cells of the walls: (kind, index, velocity, points).
type Cell = (u8, u64, [f64; 2], Vec<[f64; 2]>);

fn cells(sim: &Simulation) -> Vec<Cell> {
    let c = &sim.config;
    let mut out = Vec::new();
    for (k, w) in sim.walls.iter().enumerate() {
        if let Some(seg) = clip_line(w.line.point, w.line.normal, c.domain_min, c.domain_max) {
            out.push((0, k as u64, w.line.velocity, seg.to_vec()));
        }
    }
    let ps = &sim.particles;
    for p in (0..ps.len()).filter(|&p| ps.is_wall_body(p)) {
        let corners = match &sim.shapes {
            Some(sh) if sh.is_polygon(p) => sh.world[sh.range(p)].to_vec(),
            _ => vec![[ps.pos[0][p], ps.pos[1][p]]],
        };
        out.push((1, ps.id[p], [ps.vel[0][p], ps.vel[1][p]], corners));
    }
    out
}

/// Write the walls of `sim` as it is now to `path`.
pub fn write_walls_vtu(path: &Path, sim: &Simulation) -> Result<()> {
    let cells = cells(sim);
    let np: usize = cells.iter().map(|c| c.3.len()).sum();
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
    list(&mut s, "kind", "UInt8", 1, &mut cells.iter().map(|c| c.0.to_string()));
    list(&mut s, "index", "Int64", 1, &mut cells.iter().map(|c| c.1.to_string()));
    list(
        &mut s,
        "velocity",
        "Float64",
        3,
        &mut cells.iter().map(|c| format!("{:?} {:?} 0", c.2[0], c.2[1])),
    );
    s.push_str("      </CellData>\n      <Points>\n");
    list(
        &mut s,
        "Points",
        "Float64",
        3,
        &mut cells
            .iter()
            .flat_map(|c| c.3.iter())
            .map(|p| format!("{:?} {:?} 0", p[0], p[1])),
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
            end += c.3.len();
            end.to_string()
        }),
    );
    let ty = |c: &Cell| match (c.0, c.3.len()) {
        (0, _) => VTK_LINE,
        (_, 1) => VTK_VERTEX,
        _ => VTK_POLYGON,
    };
    list(
        &mut s,
        "types",
        "UInt8",
        1,
        &mut cells.iter().map(|c| ty(c).to_string()),
    );
    s.push_str("      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
    std::fs::write(path, s).map_err(|e| IoError::os(path, e))
}
