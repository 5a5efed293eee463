//! Insertion streams on a simulation (both builds): particles poured into a region over time, each
//! event placed clear of everything present ([`crate::insert`]), the shortfalls kept for
//! the caller.
use super::*;

impl Simulation {
    /// Pour particles in over time (see [`crate::insert`]): from the next step on, the
    /// stream inserts at its scheduled steps (events before the current step are skipped).
    /// Returns the stream's index.
    pub fn add_insertion(&mut self, spec: InsertSpec) -> Result<usize> {
        let c = &self.config;
        let setup = |m: String| EngineError::Setup(format!("insertion: {m}"));
        spec.check(c.domain_min, c.domain_max, self.materials.len())
            .map_err(setup)?;
        for r in [spec.radius.min(), spec.radius.max()] {
            check_radius(r, c).map_err(setup)?;
        }
        // A shape specification that cannot make polygons is a setup error, not one of
        // the run: draw a few.
        #[cfg(not(feature = "dim3"))]
        let mut rng = crate::generate::rng(spec.seed);
        #[cfg(not(feature = "dim3"))]
        for _ in 0..16 {
            let r = spec.radius.max();
            if let Some(v) = crate::generate::polygon_vertices(&spec.shape, r, &mut rng) {
                PolygonShape::new(&v).map_err(|e| setup(e.to_string()))?;
            }
        }
        let mut ins = Inserter::new(spec);
        ins.skip_to(self.step);
        self.inserts.push(ins);
        Ok(self.inserts.len() - 1)
    }

    /// The insertion streams and their counts.
    pub fn insertions(&self) -> &[Inserter] {
        &self.inserts
    }

    /// The insertion events that fell short since the last call (the region was too full
    /// for all the particles asked for), oldest first.
    pub fn take_shortfalls(&mut self) -> Vec<Shortfall> {
        std::mem::take(&mut self.shortfalls)
    }

    /// Is some insertion stream due before the next step?
    pub(super) fn insertion_due(&self) -> bool {
        self.inserts.iter().any(|i| i.next_step() == Some(self.step))
    }

    /// Do the insertion events due before the next step now, stream by stream (each sees
    /// the particles of the ones before); `run` does them itself, so calling this first
    /// changes nothing but lets the caller see the particles as they were inserted. The
    /// state must be synchronised (it is between calls of `run`).
    pub fn insert_due(&mut self) -> Result<()> {
        let t = Instant::now();
        for s in 0..self.inserts.len() {
            if self.inserts[s].next_step() == Some(self.step) {
                self.insert_event(s)?;
            }
        }
        self.workers
            .pool
            .record_serial(Phase::Insert, t.elapsed().as_secs_f64());
        Ok(())
    }

    /// One event of stream `s`.
    fn insert_event(&mut self, s: usize) -> Result<()> {
        let ins = &self.inserts[s];
        let want = ins
            .spec
            .scheduled(ins.counts.events, self.config.dt)
            .min(ins.remaining());
        let mut placed = None;
        if want > 0 {
            // Everything whose bounding box meets the region, polygons (grains and wall
            // bodies alike) with their corners placed anew (the world frame kept for the
            // forces may lag the corrected poses), and ids above all present (particles
            // may have been added by hand).
            let (lo, hi) = (ins.spec.region_min, ins.spec.region_max);
            let ps = &self.particles;
            let mut obstacles = crate::insert::Obstacles::default();
            let mut next_id = self.next_id;
            for p in 0..ps.len() {
                let (c, r): (Vector, f64) = (std::array::from_fn(|a| ps.pos[a][p]), ps.radius[p]);
                if (0..DIM).all(|a| c[a] + r >= lo[a] && c[a] - r <= hi[a]) {
                    #[cfg(not(feature = "dim3"))]
                    match self.shapes.as_ref().filter(|sh| sh.is_polygon(p)) {
                        Some(sh) => obstacles.polygon(c, r, ps.angle[p], &sh.body[sh.range(p)]),
                        None => obstacles.ball(c, r),
                    }
                    #[cfg(feature = "dim3")]
                    obstacles.ball(c, r);
                }
                next_id = next_id.max(ps.id[p].saturating_add(1));
            }
            let density = self.materials[ins.spec.material as usize].density;
            let p = crate::insert::place(ins, want, &mut obstacles, &self.walls, density, next_id)
                .map_err(|e| EngineError::Setup(format!("insertion stream {s} at step {}: {e}", self.step)))?;
            self.next_id = next_id;
            placed = Some(p);
        }
        let got = placed.as_ref().map_or(0, |p| p.inits.len() as u64);
        let c = &mut self.inserts[s].counts;
        c.events += 1;
        c.requested += want;
        c.inserted += got;
        if got < want {
            c.short_events += 1;
            self.shortfalls.push(Shortfall {
                stream: s,
                step: self.step,
                requested: want,
                inserted: got,
            });
        }
        let Some(p) = placed.filter(|p| !p.inits.is_empty()) else {
            return Ok(());
        };
        #[cfg(not(feature = "dim3"))]
        let before = self.len();
        self.append(&p.inits, &p.shapes)?;
        // Nothing touches a new particle: its force is zero, so what `prime` would give it
        // (Gear: its acceleration is gravity) is set directly, and the others keep theirs.
        #[cfg(not(feature = "dim3"))]
        if let Some(gh) = &mut self.gear {
            let (ps, g) = (&self.particles, self.config.gravity);
            for q in before..ps.len() {
                let gm = if ps.inv_mass[q] > 0.0 { 1.0 } else { 0.0 };
                gh.a[0][q] = ps.force[0][q] * ps.inv_mass[q] + gm * g[0];
                gh.a[1][q] = ps.force[1][q] * ps.inv_mass[q] + gm * g[1];
                gh.a[2][q] = ps.torque[0][q] * ps.inv_inertia[q];
            }
        }
        Ok(())
    }
}
