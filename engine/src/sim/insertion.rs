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
                if self.config.normal_model == NormalModel::Hertz {
                    return Err(setup(format!("polygons to insert: {}", crate::sim::HERTZ_ROUND)));
                }
                if self.params.has_rolling() {
                    return Err(setup(
                        "rolling resistance is for round grains: a polygon's corners resist its rolling already".into(),
                    ));
                }
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
        self.insertion_due_at(self.step)
    }

    /// Whether an insertion event is due before step `step` (counting completed steps).
    pub(super) fn insertion_due_at(&self, step: u64) -> bool {
        self.inserts.iter().any(|i| i.next_step() == Some(step))
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
            // In a periodic cell the grains beyond a face are obstacles too (the new
            // grains, inside a region inside the cell, cannot meet each other across one).
            let shifts = self.periodic_shifts();
            for p in 0..ps.len() {
                for s in &shifts {
                    let (c, r): (Vector, f64) = (std::array::from_fn(|a| ps.pos[a][p] + s[a]), ps.radius[p]);
                    if (0..DIM).all(|a| c[a] + r >= lo[a] && c[a] - r <= hi[a]) {
                        #[cfg(not(feature = "dim3"))]
                        match self.shapes.as_ref().filter(|sh| sh.is_polygon(p)) {
                            Some(sh) => obstacles.polygon(c, r, ps.angle[p], &sh.body[sh.range(p)]),
                            None => obstacles.ball(c, r),
                        }
                        #[cfg(feature = "dim3")]
                        obstacles.ball(c, r);
                    }
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
        let before = self.len();
        self.append(&p.inits, &p.shapes)?;
        // Nothing touches a new particle: its force is zero, so what `prime` would give it
        // (Gear: its acceleration is gravity) is set directly, and the others keep theirs:
        // the axes, then the angular components, as `prime` orders them.
        if let Some(gh) = &mut self.gear {
            let (ps, g) = (&self.particles, self.config.gravity);
            for q in before..ps.len() {
                let gm = if ps.inv_mass[q] > 0.0 { 1.0 } else { 0.0 };
                for (a, ga) in g.iter().enumerate() {
                    gh.a[a][q] = ps.force[a][q] * ps.inv_mass[q] + gm * ga;
                }
                for k in 0..ANG {
                    gh.a[DIM + k][q] = ps.torque[k][q] * ps.inv_inertia[q];
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::RadiusDist;
    use crate::insert::Amount;
    use talus_kernels::math::{norm2, ANG};

    const DENSITY: f64 = 2500.0;

    /// An empty box of 0.1 m a side with gravity along the last axis, Hooke contacts.
    fn config() -> (Config, Vec<Material>) {
        let mut gravity = [0.0; DIM];
        gravity[DIM - 1] = -9.81;
        let config = Config {
            dt: 1e-5,
            gravity,
            domain_min: [0.0; DIM],
            domain_max: [0.1; DIM],
            integrator: Integrator::Verlet,
            neighbor: NeighborMethod::ALL[0],
            margin: 0.2e-3,
            every_step: false,
            sort_every: 0,
            #[cfg(not(feature = "dim3"))]
            rejection: crate::sim::Rejection::Circle,
            normal_model: talus_kernels::contact::law::NormalModel::Hooke,
        };
        let contact = ContactParams {
            kn: 1e5,
            kt: 2e4,
            gamma_n: 0.1,
            gamma_t: 0.05,
            mu: 0.5,
        };
        let material = Material {
            name: "glass".into(),
            density: DENSITY,
            contact,
        };
        (config, vec![material])
    }

    /// A floor at z (2D: y) = 0.01, and sides: a tilted line each in 2D; in 3D a cylinder
    /// of radius 0.03 about the vertical axis through the box's centre and a tilted plane.
    fn walls() -> Vec<Wall> {
        #[cfg(not(feature = "dim3"))]
        return vec![
            Wall::fixed([0.0, 0.01], [0.0, 1.0], 0),
            Wall::fixed([0.03, 0.0], [0.8, 0.6], 0),
            Wall::fixed([0.07, 0.0], [-0.8, 0.6], 0),
        ];
        #[cfg(feature = "dim3")]
        vec![
            Wall::plane([0.0, 0.0, 0.01], [0.0, 0.0, 1.0], 0),
            Wall::cylinder([0.05, 0.05, 0.0], [0.0, 0.0, 1.0], 0.03, 0.0, 0),
            Wall::plane([0.07, 0.0, 0.0], [-0.8, 0.0, 0.6], 0),
        ]
    }

    /// A few still balls in the middle of the region, in the way of the stream.
    fn obstacles() -> Vec<ParticleInit> {
        (0..5)
            .map(|k| ParticleInit {
                id: 100 + k,
                pos: std::array::from_fn(|a| if a == 0 { 0.035 + 0.007 * k as f64 } else { 0.05 }),
                angle: 0.0,
                vel: [0.0; DIM],
                omega: [0.0; ANG],
                radius: 3e-3,
                mass: 1e-3,
                material: 0,
                ptype: 1,
                flags: 0,
            })
            .collect()
    }

    fn stream(amount: Amount, every: u64, total: Option<u64>) -> InsertSpec {
        InsertSpec {
            // Wider than the walls leave: the corners are behind them.
            region_min: [0.012; DIM],
            region_max: [0.088; DIM],
            radius: RadiusDist::Uniform { mean: 2e-3, width: 0.3 },
            #[cfg(not(feature = "dim3"))]
            shape: crate::generate::ShapeSpec::Disc,
            material: 0,
            ptype: 2,
            velocity: [0.1; DIM],
            velocity_jitter: 0.05,
            amount,
            every,
            start_step: 0,
            stop_step: None,
            total,
            seed: 7,
            attempts: 100,
        }
    }

    fn sim(spec: InsertSpec) -> Simulation {
        let (config, materials) = config();
        let mut sim = Simulation::new(config, materials, walls(), &obstacles()).unwrap();
        sim.add_insertion(spec).unwrap();
        sim
    }

    #[test]
    fn nothing_overlaps_at_insertion_no_ball_no_wall() {
        let n = if DIM == 2 { 60 } else { 300 };
        let mut s = sim(stream(Amount::PerInsert(n), 1, Some(n)));
        s.insert_due().unwrap();
        let ps = &s.particles;
        assert_eq!(ps.len() as u64, 5 + n, "all placed");
        let centre = |p: usize| -> Vector { std::array::from_fn(|a| ps.pos[a][p]) };
        for p in 0..ps.len() {
            let (c, r) = (centre(p), ps.radius[p]);
            for q in p + 1..ps.len() {
                let d: Vector = std::array::from_fn(|a| c[a] - ps.pos[a][q]);
                let rs = r + ps.radius[q];
                assert!(norm2(d) >= rs * rs, "{} and {} overlap", ps.id[p], ps.id[q]);
            }
            if ps.id[p] >= 100 && ps.id[p] < 105 {
                continue;
            }
            for (k, w) in s.walls.iter().enumerate() {
                assert!(w.distance(c) >= r, "particle {} reaches wall {k}", ps.id[p]);
            }
            assert!(
                (0..DIM).all(|a| c[a] - r >= 0.012 && c[a] + r <= 0.088),
                "outside the region"
            );
            assert!((0..DIM).all(|a| (ps.vel[a][p] - 0.1).abs() <= 0.05), "velocity");
            let m = 1.0 / ps.inv_mass[p];
            let v = if DIM == 2 {
                std::f64::consts::PI * r * r
            } else {
                4.0 / 3.0 * std::f64::consts::PI * r.powi(3)
            };
            assert!((m / (DENSITY * v) - 1.0).abs() < 1e-12, "mass");
        }
        // The walls were in the way: some of the region's corners are behind them.
        let behind = (0..1000).any(|k| {
            let c: Vector = std::array::from_fn(|a| 0.012 + 0.076 * ((k >> a) & 1) as f64);
            s.walls.iter().any(|w| w.distance(c) < 0.0)
        });
        assert!(behind);
        // New ids follow the largest present.
        assert!(ps.id.iter().any(|&id| id == 105 + n - 1));
        assert!(s.take_shortfalls().is_empty());
    }

    #[test]
    fn a_full_region_gets_fewer_and_says_so() {
        let mut spec = stream(Amount::PerInsert(5000), 10, None);
        spec.region_min = [0.04; DIM];
        spec.region_max = [0.06; DIM];
        spec.attempts = 30;
        let mut s = sim(spec);
        s.run(1).unwrap();
        let c = s.insertions()[0].counts;
        assert!(c.inserted > 5 && c.inserted < 5000, "{c:?}");
        assert_eq!((c.events, c.requested, c.short_events), (1, 5000, 1));
        assert_eq!(s.len() as u64, 5 + c.inserted);
        let short = s.take_shortfalls();
        assert_eq!(short.len(), 1);
        assert_eq!(
            (short[0].step, short[0].requested, short[0].inserted),
            (0, 5000, c.inserted)
        );
        assert!(s.take_shortfalls().is_empty(), "taken");
    }

    #[test]
    fn a_rate_pours_its_total_then_stops() {
        // 2000 /s x 4 steps x 1e-5 s = 0.08 per event: 1 particle every 12.5 events (50
        // steps), 30 in all by step 1500.
        let mut s = sim(stream(Amount::Rate(2000.0), 4, Some(30)));
        s.run(752).unwrap();
        assert_eq!(s.insertions()[0].counts.inserted, 16, "ceil(188 x 0.08) by event 188");
        s.run(2000).unwrap();
        let c = s.insertions()[0].counts;
        assert_eq!((c.inserted, c.requested, c.short_events), (30, 30, 0));
        assert_eq!(s.insertions()[0].next_step(), None);
        assert_eq!(s.len(), 35);
        // A stop ends a stream before its total.
        let mut spec = stream(Amount::PerInsert(2), 10, Some(100));
        spec.stop_step = Some(95);
        let mut s = sim(spec);
        s.run(300).unwrap();
        assert_eq!(s.insertions()[0].counts.events, 10, "events at 0, 10, .., 90");
        assert_eq!(s.len(), 25);
    }
}
