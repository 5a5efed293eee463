//! The per-particle phases on the pool: kicks and drift (blocks stolen between threads),
//! the position check, the Gear predictor and corrector, the world-frame polygon corners.
use super::*;

impl Workers {
    /// Verlet kicks, drift, load reset and position check, over blocks of each thread's
    /// static share (stolen by the other threads once they run out of their own).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn kick_drift_check(
        &mut self,
        ps: &mut ParticleStore,
        boxes: &[Aabb],
        dt: f64,
        g: Vector,
        pending: bool,
        domain_min: Vector,
        domain_max: Vector,
    ) -> Result<CheckResult> {
        let n = ps.len();
        let reset = self.in_place();
        let (d, l, m, radius) = ps.verlet_views();
        let next = NextKick {
            boxes,
            dt,
            g,
            domain_min,
            domain_max,
        };
        self.kick_drift_blocks(Phase::Predict, (d, l, m, radius), 0..n, &next, pending, reset)
    }

    /// The next step's kicks, drift, load reset and position check of the particles
    /// `range` (`loads`: every particle's, those of the range complete), in the force
    /// phase's wave that completed them: the previous step's second half kick is pending
    /// (see `Simulation::run`).
    pub(crate) fn next_kick(
        &mut self,
        ps: &mut ParticleStore,
        loads: [&mut [f64]; LOADS],
        range: Range<usize>,
        next: &NextKick,
    ) -> Result<CheckResult> {
        // (The store's own loads are out, in `loads`: `ParticleStore::with_loads_mut`.)
        let (d, _, m, radius) = ps.verlet_views();
        let mut loads = loads.into_iter();
        let l = Loads {
            force: std::array::from_fn(|_| loads.next().expect("LOADS arrays")),
            torque: std::array::from_fn(|_| loads.next().expect("LOADS arrays")),
        };
        self.kick_drift_blocks(Phase::Predict, (d, l, m, radius), range, next, true, true)
    }

    /// [`verlet::kick_drift_check`] over the particles `range` of `views`, in blocks
    /// stolen between the threads.
    #[allow(clippy::too_many_arguments)]
    fn kick_drift_blocks(
        &mut self,
        phase: Phase,
        views: (Kinematics, Loads, Inertia, &[f64]),
        range: Range<usize>,
        next: &NextKick,
        pending: bool,
        reset: bool,
    ) -> Result<CheckResult> {
        let (lens, stealing) = self.blocks(range.len());
        let (parts, radius) = verlet_parts(views, range.clone(), &lens);
        let boxes = split_ref(&next.boxes[range], lens.iter().copied());
        let (left, outside) = (AtomicBool::new(false), AtomicBool::new(false));
        // The largest of the blocks' speed bounds, as bits (they order as the floats do).
        let speed = std::sync::atomic::AtomicU64::new(0);
        let (dt, g, domain_min, domain_max) = (next.dt, next.g, next.domain_min, next.domain_max);
        self.pool.run(phase, &|t| {
            while let Some(b) = stealing.claim(t) {
                let mut part = parts[b].lock();
                let (d, l, m) = &mut *part;
                let c = Check {
                    radius: radius[b],
                    boxes: boxes[b],
                    domain_min,
                    domain_max,
                };
                // A sum in place adds into the loads; the reductions assign them.
                let r = verlet::kick_drift_check(d, l, m, dt, g, pending, reset, &c);
                left.fetch_or(r.left_box, Ordering::Relaxed);
                outside.fetch_or(r.outside, Ordering::Relaxed);
                let s = if r.speed.is_finite() { r.speed } else { f64::INFINITY };
                speed.fetch_max(s.to_bits(), Ordering::Relaxed);
            }
        })?;
        Ok(CheckResult {
            left_box: left.into_inner(),
            outside: outside.into_inner(),
            speed: f64::from_bits(speed.into_inner()),
        })
    }

    /// Verlet second half kick, over blocks as [`Workers::kick_drift_check`].
    pub(crate) fn kick(&mut self, ps: &mut ParticleStore, dt: f64, g: Vector) -> Result<()> {
        let n = ps.len();
        let (lens, stealing) = self.blocks(n);
        let (parts, _) = verlet_parts(ps.verlet_views(), 0..n, &lens);
        self.pool.run(Phase::Correct, &|t| {
            while let Some(b) = stealing.claim(t) {
                let mut part = parts[b].lock();
                let (d, l, m) = &mut *part;
                verlet::kick(d, l, m, dt, g);
            }
        })
    }

    /// The check of the positions (after a Gear prediction, or before the first step), one
    /// chunk of particles per thread.
    pub(crate) fn check_positions(&mut self, ps: &ParticleStore, c: &Check) -> Result<CheckResult> {
        let ranges = self.ranges(ps.len());
        let (left, outside) = (AtomicBool::new(false), AtomicBool::new(false));
        self.pool.run(Phase::Predict, &|t| {
            let r = ranges[t].clone();
            let part = Check {
                radius: &c.radius[r.clone()],
                boxes: &c.boxes[r.clone()],
                ..*c
            };
            let res = check_positions(std::array::from_fn(|a| &ps.pos[a][r.clone()]), &part);
            left.fetch_or(res.left_box, Ordering::Relaxed);
            outside.fetch_or(res.outside, Ordering::Relaxed);
        })?;
        Ok(CheckResult {
            left_box: left.into_inner(),
            outside: outside.into_inner(),
            speed: f64::INFINITY,
        })
    }

    /// Gear prediction of the degrees of freedom (the axes, then the angular components),
    /// and the loads zeroed, one chunk of particles per thread.
    pub(crate) fn gear_predict(
        &mut self,
        dofs: [Derivatives; LOADS],
        loads: [&mut [f64]; LOADS],
        dt: f64,
    ) -> Result<()> {
        let lens: Vec<usize> = self.ranges(loads[0].len()).iter().map(|r| r.len()).collect();
        let parts = gear_parts(dofs, &lens);
        let loads = split_arrays(loads, &lens);
        let parts: Vec<_> = parts.into_iter().zip(loads).map(Mutex::new).collect();
        self.pool.run(Phase::Predict, &|t| {
            let mut part = parts[t].lock();
            let (dofs, loads) = &mut *part;
            for d in dofs.iter_mut() {
                gear::predict(d, dt);
            }
            for l in loads.iter_mut() {
                l.fill(0.0);
            }
        })
    }

    /// Gear correction of the degrees of freedom by their loads (`inv`: inverse mass per
    /// axis, inverse inertia per angular component; `bias`: gravity, none for rotations),
    /// one chunk per thread.
    pub(crate) fn gear_correct(
        &mut self,
        dofs: [Derivatives; LOADS],
        loads: [&[f64]; LOADS],
        inv: [&[f64]; LOADS],
        bias: [f64; LOADS],
        dt: f64,
    ) -> Result<()> {
        let ranges = self.ranges(loads[0].len());
        let lens: Vec<usize> = ranges.iter().map(|r| r.len()).collect();
        let parts: Vec<_> = gear_parts(dofs, &lens).into_iter().map(Mutex::new).collect();
        self.pool.run(Phase::Correct, &|t| {
            let r = ranges[t].clone();
            let mut dofs = parts[t].lock();
            for (k, d) in dofs.iter_mut().enumerate() {
                gear::correct(d, &loads[k][r.clone()], &inv[k][r.clone()], bias[k], dt);
            }
        })
    }

    /// World-frame vertices of the polygons, one run of particles per thread, the runs cut
    /// to equal work (corners plus one per particle: a mixed bed's discs cost a test each,
    /// and a run of large polygons, or a wall body of many corners, is not one thread's
    /// burden).
    #[cfg(not(feature = "dim3"))]
    pub(crate) fn update_world(&mut self, sh: &mut Shapes, x: &[f64], y: &[f64], angle: &[f64]) -> Result<()> {
        let n = sh.start.len() - 1;
        let threads = self.threads();
        // Work before particle p: start[p] corners plus p particles (increasing in p).
        let work = |p: usize| sh.start[p] as usize + p;
        let cuts = cuts_by_work(n, threads, work);
        let ranges: Vec<Range<usize>> = cuts.windows(2).map(|w| w[0]..w[1]).collect();
        let lens = ranges.iter().map(|r| (sh.start[r.end] - sh.start[r.start]) as usize);
        let worlds: Vec<Mutex<&mut [[f64; 2]]>> =
            split_lengths(&mut sh.world, lens).into_iter().map(Mutex::new).collect();
        let (start, body) = (&sh.start, &sh.body);
        self.pool.run(Phase::Vertices, &|t| {
            let mut world = worlds[t].lock();
            let base = start[ranges[t].start] as usize;
            for p in ranges[t].clone() {
                let r = start[p] as usize..start[p + 1] as usize;
                if !r.is_empty() {
                    let w = r.start - base..r.end - base;
                    to_world(&body[r], [x[p], y[p]], angle[p], &mut world[w]);
                }
            }
        })
    }
}

type VerletPart<'a> = Mutex<(Kinematics<'a>, Loads<'a>, Inertia<'a>)>;

/// The Verlet views of the particles `range` cut into blocks of `lens`, and the radii
/// likewise.
fn verlet_parts<'a>(
    (d, l, m, radius): (Kinematics<'a>, Loads<'a>, Inertia<'a>, &'a [f64]),
    range: Range<usize>,
    lens: &[usize],
) -> (Vec<VerletPart<'a>>, Vec<&'a [f64]>) {
    let sp = |s: &'a mut [f64]| split_lengths(&mut s[range.clone()], lens.iter().copied()).into_iter();
    let sr = |s: &'a [f64]| split_ref(&s[range.clone()], lens.iter().copied()).into_iter();
    let mut pos = d.pos.map(sp);
    #[cfg(not(feature = "dim3"))]
    let mut angle = sp(d.angle);
    let mut vel = d.vel.map(sp);
    let mut omega = d.omega.map(sp);
    let mut force = l.force.map(sp);
    let mut torque = l.torque.map(sp);
    let (mut im, mut ii) = (sr(m.inv_mass), sr(m.inv_inertia));
    fn next<'a, const N: usize>(parts: &mut [std::vec::IntoIter<&'a mut [f64]>; N]) -> [&'a mut [f64]; N] {
        parts.each_mut().map(|p| p.next().unwrap())
    }
    let parts = (0..lens.len())
        .map(|_| {
            Mutex::new((
                Kinematics {
                    pos: next(&mut pos),
                    #[cfg(not(feature = "dim3"))]
                    angle: angle.next().unwrap(),
                    vel: next(&mut vel),
                    omega: next(&mut omega),
                },
                Loads {
                    force: next(&mut force),
                    torque: next(&mut torque),
                },
                Inertia {
                    inv_mass: im.next().unwrap(),
                    inv_inertia: ii.next().unwrap(),
                },
            ))
        })
        .collect();
    (parts, sr(radius).collect())
}

/// The Gear degrees of freedom cut into per-thread chunks of `lens`.
fn gear_parts<'a>(dofs: [Derivatives<'a>; LOADS], lens: &[usize]) -> Vec<[Derivatives<'a>; LOADS]> {
    let mut chunks = dofs.map(|d| {
        let sp = |s: &'a mut [f64]| split_lengths(s, lens.iter().copied()).into_iter();
        let (mut x, mut v, mut a) = (d.x.map(sp), sp(d.v), sp(d.a));
        let (mut b, mut c, mut dd) = (sp(d.b), sp(d.c), sp(d.d));
        (0..lens.len())
            .map(|_| Derivatives {
                x: x.as_mut().map(|x| x.next().unwrap()),
                v: v.next().unwrap(),
                a: a.next().unwrap(),
                b: b.next().unwrap(),
                c: c.next().unwrap(),
                d: dd.next().unwrap(),
            })
            .collect::<Vec<_>>()
            .into_iter()
    });
    (0..lens.len())
        .map(|_| chunks.each_mut().map(|c| c.next().expect("one chunk per length")))
        .collect()
}
