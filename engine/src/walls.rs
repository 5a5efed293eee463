//! Straight walls and their contacts with particles.
//!
//! Walls are few, so the wall contact list is rebuilt from scratch whenever the broad
//! phase updates: a (particle, wall) pair is a candidate when the particle's stored
//! enlarged box reaches the wall's line. Between updates every particle stays inside its
//! stored box, so no touching pair is missed. The tangential springs of pairs that stay
//! candidates are carried over by a merge of the two sorted lists.
use talus_kernels::contact::disc_wall::LineWall;

#[derive(Debug, Clone, PartialEq)]
pub struct Wall {
    pub line: LineWall,
    pub material: u16,
}

impl Wall {
    /// A fixed straight wall through `point` with unit `normal` towards the particles.
    pub fn fixed(point: [f64; 2], normal: [f64; 2], material: u16) -> Wall {
        Wall {
            line: LineWall {
                point,
                normal,
                velocity: [0.0; 2],
            },
            material,
        }
    }
}

/// Candidate (particle, wall) pairs, sorted by (particle, wall), with their springs.
#[derive(Debug, Default, Clone)]
pub struct WallContacts {
    pub p: Vec<u32>,
    pub w: Vec<u16>,
    pub xi: Vec<f64>,
    /// Overlap area of the last step (polygons; zero for discs).
    pub area: Vec<f64>,
    np: Vec<u32>,
    nw: Vec<u16>,
    nxi: Vec<f64>,
    narea: Vec<f64>,
}

impl WallContacts {
    pub fn len(&self) -> usize {
        self.p.len()
    }

    pub fn is_empty(&self) -> bool {
        self.p.is_empty()
    }

    /// Rebuild from the stored boxes `[lo_x, hi_x, lo_y, hi_y]`.
    pub fn rebuild(&mut self, walls: &[Wall], boxes: &[[f32; 4]]) {
        self.np.clear();
        self.nw.clear();
        self.nxi.clear();
        self.narea.clear();
        let mut k = 0;
        for (p, b) in boxes.iter().enumerate() {
            for (w, wall) in walls.iter().enumerate() {
                let n = wall.line.normal;
                // The box corner deepest towards the wall.
                let cx = if n[0] > 0.0 { b[0] } else { b[1] } as f64;
                let cy = if n[1] > 0.0 { b[2] } else { b[3] } as f64;
                if wall.line.distance(cx, cy) <= 0.0 {
                    let (p, w) = (p as u32, w as u16);
                    while k < self.p.len() && (self.p[k], self.w[k]) < (p, w) {
                        k += 1;
                    }
                    let (xi, area) = if k < self.p.len() && (self.p[k], self.w[k]) == (p, w) {
                        (self.xi[k], self.area[k])
                    } else {
                        (0.0, 0.0)
                    };
                    self.np.push(p);
                    self.nw.push(w);
                    self.nxi.push(xi);
                    self.narea.push(area);
                }
            }
        }
        std::mem::swap(&mut self.p, &mut self.np);
        std::mem::swap(&mut self.w, &mut self.nw);
        std::mem::swap(&mut self.xi, &mut self.nxi);
        std::mem::swap(&mut self.area, &mut self.narea);
    }

    /// Renumber particles (`map[old] = new` or `u32::MAX`): the list is rebuilt at the next
    /// broad-phase update anyway, but springs must follow their particles until then.
    pub fn remap(&mut self, map: &[u32]) {
        let mut v: Vec<(u32, u16, f64, f64)> = (0..self.p.len())
            .filter(|&k| map[self.p[k] as usize] != u32::MAX)
            .map(|k| (map[self.p[k] as usize], self.w[k], self.xi[k], self.area[k]))
            .collect();
        v.sort_by_key(|a| (a.0, a.1));
        self.p = v.iter().map(|a| a.0).collect();
        self.w = v.iter().map(|a| a.1).collect();
        self.xi = v.iter().map(|a| a.2).collect();
        self.area = v.iter().map(|a| a.3).collect();
    }

    pub fn memory_bytes(&self) -> usize {
        (self.p.capacity() + self.np.capacity()) * 4
            + (self.w.capacity() + self.nw.capacity()) * 2
            + (self.xi.capacity() + self.nxi.capacity() + self.area.capacity() + self.narea.capacity()) * 8
    }
}
