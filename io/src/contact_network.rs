//! The contact network of a logged step as a ParaView grid (`contacts_NNNNNNNN.vtu`, listed
//! in `contacts.pvd`): a VTK_LINE per contact, from a grain's centre to its partner's (a
//! pair) or to the contact point (a wall: [`Simulation::wall_contact_point`]), for
//! force-chain pictures (Tube filter, coloured and scaled by
//! `normal_force`). Cell data: `force` (on the line's first grain), `normal_force` (its
//! compressive part along the line, positive when the grains push apart), `tangential_force`
//! (the magnitude of the rest), `overlap`, `wall` (the wall's index, -1 for a pair).
//! The same raw appended layout as the particle frames (`vtk.rs`).
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use talus_engine::contact_log::ContactLog;
use talus_engine::Simulation;
use talus_kernels::math::{add, dot, norm2, scale, sub, Vector, DIM};

use crate::{IoError, Result};

const VTK_LINE: u8 = 3;

/// One contact's line and values.
struct Line {
    a: Vector,
    b: Vector,
    force: Vector,
    overlap: f64,
    wall: i32,
}

impl Line {
    /// The compressive part along the line (a to b) and the magnitude of the rest.
    fn split(&self) -> (f64, f64) {
        let d = sub(self.b, self.a);
        let len = norm2(d).sqrt();
        if len == 0.0 {
            return (0.0, norm2(self.force).sqrt());
        }
        let n = scale(1.0 / len, d);
        let along = dot(self.force, n);
        (-along, norm2(sub(self.force, scale(along, n))).sqrt())
    }
}

fn lines(sim: &Simulation, log: &ContactLog) -> Vec<Line> {
    let ps = &sim.particles;
    let x = |p: u32| -> Vector { std::array::from_fn(|a| ps.pos[a][p as usize]) };
    // The batched disc loop leaves a pair's overlap out of its force (its law needs none
    // beyond the force): a round pair's is the radii less the distance.
    #[cfg(not(feature = "dim3"))]
    let round = |i: u32, j: u32| {
        sim.shapes
            .as_ref()
            .is_none_or(|s| !s.is_polygon(i as usize) && !s.is_polygon(j as usize))
    };
    #[cfg(feature = "dim3")]
    let round = |_: u32, _: u32| true;
    let pairs = log.pairs().map(move |c| {
        // j's image nearest to i, in a periodic cell.
        let a = x(c.i);
        let b = add(a, sim.separation(c.i as usize, c.j as usize));
        let overlap = if c.overlap == 0.0 && round(c.i, c.j) {
            ps.radius[c.i as usize] + ps.radius[c.j as usize] - norm2(sub(b, a)).sqrt()
        } else {
            c.overlap
        };
        Line {
            a,
            b,
            force: c.f,
            overlap,
            wall: -1,
        }
    });
    let walls = log.walls.iter().map(|c| Line {
        a: x(c.p),
        b: sim.wall_contact_point(c),
        force: c.f,
        overlap: c.overlap,
        wall: c.wall as i32,
    });
    pairs.chain(walls).collect()
}

/// Write the contact network of `log` (the step that led to `sim`'s state) to `path`.
pub fn write_contact_network(path: &Path, sim: &Simulation, log: &ContactLog) -> Result<()> {
    let lines = lines(sim, log);
    let file = File::create(path).map_err(|e| IoError::os(path, e))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    write_to(&mut w, &lines)
        .and_then(|()| w.flush())
        .map_err(|e| IoError::os(path, e))
}

fn write_to<W: Write>(w: &mut W, lines: &[Line]) -> std::io::Result<()> {
    let n = lines.len();
    // (name, type, components, bytes per value, entries)
    let cell_arrays: [(&str, &str, usize, usize); 5] = [
        ("force", "Float64", 3, 8),
        ("normal_force", "Float64", 1, 8),
        ("tangential_force", "Float64", 1, 8),
        ("overlap", "Float64", 1, 8),
        ("wall", "Int32", 1, 4),
    ];
    writeln!(w, r#"<?xml version="1.0"?>"#)?;
    writeln!(
        w,
        r#"<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
    )?;
    writeln!(w, "  <UnstructuredGrid>")?;
    writeln!(w, r#"    <Piece NumberOfPoints="{}" NumberOfCells="{n}">"#, 2 * n)?;
    let mut offset = 0u64;
    let mut decl = |w: &mut W, name: &str, ty: &str, comps: usize, bytes: usize, count: usize| {
        let r = writeln!(
            w,
            r#"        <DataArray type="{ty}" Name="{name}" NumberOfComponents="{comps}" format="appended" offset="{offset}"/>"#
        );
        offset += 8 + (count * comps * bytes) as u64;
        r
    };
    writeln!(w, r#"      <CellData Scalars="normal_force" Vectors="force">"#)?;
    for (name, ty, comps, bytes) in cell_arrays {
        decl(w, name, ty, comps, bytes, n)?;
    }
    writeln!(w, "      </CellData>")?;
    writeln!(w, "      <Points>")?;
    decl(w, "Points", "Float64", 3, 8, 2 * n)?;
    writeln!(w, "      </Points>")?;
    writeln!(w, "      <Cells>")?;
    decl(w, "connectivity", "Int64", 1, 8, 2 * n)?;
    decl(w, "offsets", "Int64", 1, 8, n)?;
    decl(w, "types", "UInt8", 1, 1, n)?;
    writeln!(w, "      </Cells>")?;
    writeln!(w, "    </Piece>")?;
    writeln!(w, "  </UnstructuredGrid>")?;
    write!(w, "  <AppendedData encoding=\"raw\">\n   _")?;
    let size = |w: &mut W, count: usize, bytes: usize| w.write_all(&((count * bytes) as u64).to_le_bytes());
    let f64s = |w: &mut W, v: f64| w.write_all(&v.to_le_bytes());
    // Vectors with 3 components in both builds (z = 0 in 2D).
    let vec3 = |w: &mut W, v: Vector| (0..3).try_for_each(|a| f64s(w, if a < DIM { v[a] } else { 0.0 }));
    size(w, 3 * n, 8)?;
    lines.iter().try_for_each(|l| vec3(w, l.force))?;
    let split: Vec<(f64, f64)> = lines.iter().map(Line::split).collect();
    size(w, n, 8)?;
    split.iter().try_for_each(|s| f64s(w, s.0))?;
    size(w, n, 8)?;
    split.iter().try_for_each(|s| f64s(w, s.1))?;
    size(w, n, 8)?;
    lines.iter().try_for_each(|l| f64s(w, l.overlap))?;
    size(w, n, 4)?;
    lines.iter().try_for_each(|l| w.write_all(&l.wall.to_le_bytes()))?;
    size(w, 6 * n, 8)?;
    lines
        .iter()
        .try_for_each(|l| vec3(w, l.a).and_then(|()| vec3(w, l.b)))?;
    size(w, 2 * n, 8)?;
    (0..2 * n as i64).try_for_each(|k| w.write_all(&k.to_le_bytes()))?;
    size(w, n, 8)?;
    (1..=n as i64).try_for_each(|k| w.write_all(&(2 * k).to_le_bytes()))?;
    size(w, n, 1)?;
    (0..n).try_for_each(|_| w.write_all(&[VTK_LINE]))?;
    write!(w, "\n  </AppendedData>\n</VTKFile>\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis_series::header;
    use crate::dump::{ANALYSIS_COLUMNS, DUMP_COLUMNS};
    use crate::output::tests::small_sim;
    use crate::output::{AnalysisKinds, OutputKinds, Outputs};
    use crate::vtk::tests::parse_vtu;

    /// Grains pressed into the floor (and, in 3D, the drum) until they touch, stepped with
    /// logging: the series has a row per analysis, the network a line per contact with the
    /// log's forces, the frames and the dump each grain's stress and contacts; a resumed
    /// run keeps the rows before its step.
    #[test]
    fn series_network_frames_and_resume() {
        let mut sim = small_sim();
        while sim.energies().wall_contacts == 0 {
            assert!(sim.step < 100_000, "the grains never reached a wall");
            sim.run(100).unwrap();
        }
        let start = sim.step;
        let dir = tempfile::tempdir().unwrap();
        let kinds = OutputKinds {
            vtk: true,
            dump: true,
            energy: false,
            analysis: Some(AnalysisKinds {
                region: None,
                network: true,
            }),
            outflow: false,
        };
        let mut out = Outputs::create(dir.path(), kinds).unwrap();
        // Not logged: no analysis to write, and a frame without the analysis' arrays.
        assert!(out.write_analysis(&mut sim).is_err());
        out.write_frame(&mut sim).unwrap();
        let mut steps = Vec::new();
        for _ in 0..3 {
            sim.log_next_run();
            sim.run(10).unwrap();
            out.write_frame(&mut sim).unwrap();
            out.write_analysis(&mut sim).unwrap();
            steps.push(sim.step);
        }
        let log = sim.contact_log().unwrap().clone();
        let n_lines = log.pair_count() + log.walls.len();
        assert!(!log.walls.is_empty(), "the grains lie on the floor");
        let csv = std::fs::read_to_string(dir.path().join("analysis.csv")).unwrap();
        let a = sim.analyse(None).unwrap();
        let rows: Vec<&str> = csv.lines().collect();
        assert_eq!(rows[0], header(&a));
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[3].split(',').count(), rows[0].split(',').count());
        assert!(rows[3].starts_with(&format!("{},", sim.step)));

        let net = parse_vtu(&std::fs::read(dir.path().join(format!("contacts_{:08}.vtu", sim.step))).unwrap());
        assert!(net.header.contains(&format!(r#"NumberOfCells="{n_lines}""#)));
        let force = net.f64s("cell:force", 3);
        let want: Vec<f64> = log
            .pairs()
            .map(|c| c.f)
            .chain(log.walls.iter().map(|c| c.f))
            .flat_map(|f| (0..3).map(move |a| if a < DIM { f[a] } else { 0.0 }))
            .collect();
        assert_eq!(force, want);
        // The floor's (wall 0) contacts: the normal force is the force's upward part.
        let normal = net.f64s("cell:normal_force", 1);
        for (k, c) in log.walls.iter().enumerate().filter(|(_, c)| c.wall == 0) {
            let (got, want) = (normal[log.pair_count() + k], c.f[DIM - 1]);
            assert!((got - want).abs() <= 1e-12 * want.abs(), "{got} against {want}");
        }

        let frame = parse_vtu(&std::fs::read(dir.path().join(format!("particles_{:08}.vtu", sim.step))).unwrap());
        let contacts: Vec<i32> = frame
            .raw("contacts", "Int32", 1)
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(contacts, a.contacts.iter().map(|&c| c as i32).collect::<Vec<_>>());
        let stress = frame.f64s("stress", 9);
        assert_eq!(stress[0], a.grain_stress[0][0][0]);
        let first = parse_vtu(&std::fs::read(dir.path().join(format!("particles_{start:08}.vtu"))).unwrap());
        assert!(first.arrays.iter().all(|x| x.0 != "stress"));
        let dump = std::fs::read_to_string(dir.path().join("particles.dump")).unwrap();
        assert_eq!(
            dump.matches(&format!("ITEM: ATOMS {DUMP_COLUMNS} {ANALYSIS_COLUMNS}"))
                .count(),
            3
        );
        drop(out);

        // Resumed at the second analysis' step: the first row kept, the rest dropped.
        let mut again = Outputs::resume(dir.path(), kinds, steps[1], false).unwrap();
        again.write_analysis(&mut sim).unwrap();
        let csv = std::fs::read_to_string(dir.path().join("analysis.csv")).unwrap();
        let kept: Vec<u64> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(kept, [steps[0], sim.step]);
        assert!(!dir.path().join(format!("contacts_{:08}.vtu", steps[1])).exists());
    }
}
