//! The force phase over the contact table, and each strategy's way of summing it into the
//! loads: the deterministic fix-up, the per-thread and mutex reductions; the wall forces
//! after each particle's pairs.
use super::*;
use talus_kernels::contact::law::NormalModel;

/// Contact-table slots per dynamically claimed chunk.
const SLOT_CHUNK: usize = 2048;

/// Deterministic sum, disc pairs: the smallest guided chunk. Larger chunks defer fewer
/// contributions (a chunk's rim shrinks relative to its area), smaller ones even out the
/// threads' finish; the guided split has both.
const OWNER_MIN_CHUNK: usize = 8192;

/// Deterministic sum: what a wall contact costs in fix-up entries, for balancing the phase
/// that does both, in a simulation of discs only (a disc-wall force against a few
/// additions; both read the particle's loads from memory) and in one with polygons
/// (clipped against the wall; every wall contact of such a simulation is weighed so).
const WALL_WEIGHT: [usize; 2] = [4, 24];

/// Deterministic sum: runs of particles per thread in the fix-up phase.
const FIX_RUNS: usize = 16;

/// Per-thread strategy: particles per block of the touched marks. Small enough that a
/// thread's rim (the particles of its pairs that lie in other threads' regions) marks few
/// blocks of zeros; large enough that the marks cost nothing to scan.
pub(super) const TOUCH_BLOCK: usize = 256;

/// Per-thread: the forces into the thread's own arrays, marking the blocks it writes.
struct PerThreadSink<'a> {
    loads: LoadSink<'a>,
    touched: &'a mut [bool],
}

impl ForceSink for PerThreadSink<'_> {
    #[inline(always)]
    fn fit(&mut self, n: usize) {
        self.loads.fit(n);
        assert!(self.touched.len() >= n.div_ceil(TOUCH_BLOCK));
    }

    #[inline(always)]
    fn add(&mut self, o: usize, i: usize, j: usize, f: &ContactForce) {
        self.loads.add(o, i, j, f);
        // In bounds: i, j < n were checked by the additions above, and `fit` checked the
        // marks against n.
        self.touched[i / TOUCH_BLOCK] = true;
        self.touched[j / TOUCH_BLOCK] = true;
    }

    #[inline(always)]
    fn prefetch(&self, p: usize) {
        self.loads.prefetch(p);
    }
}

/// Mutex: each addition under the particle's lock (Schinner 1999, Fig. 12).
struct LockSink<'a> {
    locks: &'a [Mutex<Load>],
}

impl ForceSink for LockSink<'_> {
    #[inline(always)]
    fn fit(&mut self, n: usize) {
        self.locks = &self.locks[..n];
    }

    #[inline(always)]
    fn add(&mut self, _o: usize, i: usize, j: usize, f: &ContactForce) {
        {
            let mut a = self.locks[i].lock();
            for (a, v) in a.iter_mut().zip(load_i(f)) {
                *a += v;
            }
        }
        let mut b = self.locks[j].lock();
        for (b, v) in b.iter_mut().zip(load_j(f)) {
            *b += v;
        }
    }

    /// The first cache line of the particle's lock and loads (one record, which may
    /// straddle two lines).
    #[inline(always)]
    fn prefetch(&self, p: usize) {
        if let Some(l) = self.locks.get(p) {
            crate::forces::prefetch_line(l as *const Mutex<Load> as *const u8);
        }
    }
}

/// The pairs of one chunk of slots, into `sink`. Returns touching pairs. Not inlined:
/// inlined into the force-phase closure (with its six instances) the disc loop ran
/// 10-25 % slower than the same loop on the serial path. The sink comes by value: a local
/// of this function, its array pointers stay in registers through the loop.
#[cfg(not(feature = "dim3"))]
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn chunk_forces<S: ForceSink>(
    ps: &ParticleStore,
    view: &RoundView,
    shapes: Option<&Shapes>,
    one: Option<&OneMaterial>,
    params: &crate::material::PairTable,
    model: NormalModel,
    ci: &[u32],
    cj: &[u32],
    c: Slots,
    dt: f64,
    narrow: &mut NarrowWork,
    mut sink: S,
) -> u64 {
    sink.fit(view.len());
    let sink = &mut sink;
    let Slots {
        xi,
        area,
        features,
        rolling,
    } = c;
    match (shapes, one) {
        (None, one) if !rolling.is_empty() => {
            disc_slots_with_extras(view, one, params, model, ci, cj, xi, rolling, dt, sink)
        }
        (None, Some(one)) => disc_slots(view, one, model, ci, cj, xi, rolling, dt, sink),
        (None, None) => disc_slots(view, params, model, ci, cj, xi, rolling, dt, sink),
        // With polygons only cohesion is allowed (rolling resistance is refused at set-up);
        // its loop is compiled apart, so that a run without it pays nothing.
        (Some(sh), _) if !rolling.is_empty() => {
            shape_slots::<S, ContactFrame>(ps, view, sh, params, ci, cj, xi, area, features, dt, narrow, sink)
        }
        (Some(sh), _) => shape_slots::<S, ()>(ps, view, sh, params, ci, cj, xi, area, features, dt, narrow, sink),
    }
}

/// The pairs of a chunk of slots of a simulation with polygons, whatever their shapes.
#[cfg(not(feature = "dim3"))]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn shape_slots<S: ForceSink, F: FrameOut + Default>(
    ps: &ParticleStore,
    view: &RoundView,
    sh: &Shapes,
    params: &crate::material::PairTable,
    ci: &[u32],
    cj: &[u32],
    xi: &mut [f64],
    area: &mut [f64],
    features: &mut [u32],
    dt: f64,
    narrow: &mut NarrowWork,
    sink: &mut S,
) -> u64 {
    let mut touching = 0;
    // The corners of a polygon's image across a periodic face.
    let mut buf = Vec::new();
    for o in 0..xi.len() {
        let i = ci[o];
        if i == FREE {
            sink.none(o);
            continue;
        }
        let (i, j) = (i as usize, cj[o] as usize);
        let slot = SlotState {
            xi: &mut xi[o],
            area: &mut area[o],
            features: &mut features[o],
        };
        match pair_with_shapes::<F>(ps, sh, params, i, j, slot, dt, narrow, view.image(), &mut buf) {
            Some(f) => {
                touching += 1;
                sink.add(o, i, j, &f);
            }
            None => sink.none(o),
        }
    }
    touching
}

/// The pairs of one chunk of slots (3D: spheres), into `sink`, as the 2D version.
#[cfg(feature = "dim3")]
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn chunk_forces<S: ForceSink>(
    view: &RoundView,
    one: Option<&OneMaterial>,
    w: &PairWork,
    (ci, cj): (&[u32], &[u32]),
    xi: &mut [Spring],
    rolling: &mut [[f64; 3]],
    mut sink: S,
) -> u64 {
    sink.fit(view.len());
    let (model, dt) = (w.normal_model, w.dt);
    match one {
        _ if !rolling.is_empty() => sphere_slots_with_extras(view, one, w, (ci, cj), xi, rolling, &mut sink),
        Some(one) => sphere_slots(view, one, model, (ci, cj), xi, rolling, dt, &mut sink),
        None => sphere_slots(view, w.params, model, (ci, cj), xi, rolling, dt, &mut sink),
    }
}

/// The disc pairs of a simulation with cohesion or rolling resistance. Not inlined: an
/// instance of the disc loop more inside [`chunk_forces`] cost the loops without them
/// instructions.
#[cfg(not(feature = "dim3"))]
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn disc_slots_with_extras<S: ForceSink>(
    view: &RoundView,
    one: Option<&OneMaterial>,
    params: &crate::material::PairTable,
    model: NormalModel,
    ci: &[u32],
    cj: &[u32],
    xi: &mut [f64],
    rolling: &mut [[f64; 1]],
    dt: f64,
    sink: &mut S,
) -> u64 {
    match one {
        Some(one) => disc_slots(
            view,
            &WithExtras {
                params: one,
                table: params,
            },
            model,
            ci,
            cj,
            xi,
            rolling,
            dt,
            sink,
        ),
        None => disc_slots(
            view,
            &WithExtras { params, table: params },
            model,
            ci,
            cj,
            xi,
            rolling,
            dt,
            sink,
        ),
    }
}

/// The sphere pairs of a simulation with cohesion or rolling resistance (not inlined, as
/// the 2D version).
#[cfg(feature = "dim3")]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn sphere_slots_with_extras<S: ForceSink>(
    view: &RoundView,
    one: Option<&OneMaterial>,
    w: &PairWork,
    (ci, cj): (&[u32], &[u32]),
    xi: &mut [Spring],
    rolling: &mut [[f64; 3]],
    sink: &mut S,
) -> u64 {
    let (model, dt, table) = (w.normal_model, w.dt, w.params);
    let slots = (ci, cj);
    match one {
        Some(one) => {
            let p = WithExtras { params: one, table };
            sphere_slots(view, &p, model, slots, xi, rolling, dt, sink)
        }
        None => {
            let p = WithExtras { params: table, table };
            sphere_slots(view, &p, model, slots, xi, rolling, dt, sink)
        }
    }
}

/// The contact state of a run of slots (`rolling`: empty unless some pairs have
/// cohesion or rolling resistance).
#[cfg(not(feature = "dim3"))]
struct Slots<'a> {
    xi: &'a mut [f64],
    area: &'a mut [f64],
    features: &'a mut [u32],
    rolling: &'a mut [[f64; 1]],
}

/// What the force phase needs besides the store and the table.
pub(crate) struct PairWork<'a> {
    #[cfg(not(feature = "dim3"))]
    pub shapes: Option<&'a Shapes>,
    pub params: &'a crate::material::PairTable,
    pub dt: f64,
    #[cfg(not(feature = "dim3"))]
    pub rejection: Rejection,
    #[cfg(not(feature = "dim3"))]
    pub gap_budget: bool,
    pub normal_model: NormalModel,
    /// A periodic cell's minimum-image rule.
    pub image: Option<talus_kernels::neighbor::MinImage>,
}

/// One dynamically claimed piece of the contact table (`area` and `features`: the polygon
/// pairs' state, empty without polygons; `rolling`: empty without cohesion or rolling
/// resistance).
struct SlotChunk<'a> {
    start: usize,
    xi: &'a mut [Spring],
    area: &'a mut [f64],
    features: &'a mut [u32],
    rolling: &'a mut [[f64; ANG]],
    out: &'a mut [SlotRecord],
    defer: &'a [u8],
    /// A logged step's forces of this chunk, in slot order.
    log: LogRun,
}

/// What the force phases of one step share for its contact log: whether it is logged,
/// the last log's runs to reuse, and the last step's touching pairs (to size them).
struct LogBuffers {
    on: bool,
    spare: Vec<LogRun>,
    last_touching: u64,
}

impl Workers {
    /// Pair forces over the contact table, summed into the particles' loads by the chosen
    /// strategy, then the wall forces (`wc`, `ww`) added after them, each particle's by the
    /// thread that completes its pair sum: the loads are summed in the serial step's order
    /// (pairs, then walls), and the walls are shared by the threads. Returns the touching
    /// pairs; narrow-phase counts (2D) are added to `stats`.
    ///
    /// The deterministic sum runs in waves where [`waves`] cuts them (`wave_particles`:
    /// its size, or its own rule): each wave's pairs, then its fix-up and its particles'
    /// walls, whose loads are then complete. With `next` (the next step may kick early,
    /// `Simulation::next_step_kicks_early`) and several waves, each wave's particles then
    /// get the next step's kicks, drift, load reset and position check at once, their data
    /// still in cache from the pairs (on one core 3 % faster at 10^5 and 10^6 discs:
    /// BENCHMARKS.md, issue 18); the second value returned is that check (`None`: not
    /// done, the next step's pass does it).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn pair_forces(
        &mut self,
        ps: &mut ParticleStore,
        ct: &mut ContactTable,
        work: &PairWork,
        #[cfg(not(feature = "dim3"))] stats: &mut NarrowStats,
        wc: &mut WallContacts,
        ww: &WallWork,
        log: Option<&mut ContactLog>,
        next: Option<&NextKick>,
        wave_particles: Option<usize>,
    ) -> Result<(u64, Option<CheckResult>)> {
        let logging = log.is_some();
        // A logged step reuses the buffers of the last log.
        let mut log = log;
        let spare = log.as_mut().map(|l| std::mem::take(&mut l.runs)).unwrap_or_default();
        let n = ps.len();
        let last_touching: u64 = self
            .threads
            .iter()
            .map(|t| std::mem::take(&mut t.lock().touching))
            .sum();
        let mut logs = LogBuffers {
            on: logging,
            spare,
            last_touching,
        };
        let in_place = self.in_place();
        let (slot_waves, particle_waves) = if in_place {
            waves(ct, n, self.threads(), wave_particles)
        } else {
            (vec![0, ct.i.len()], vec![0, n])
        };
        if in_place {
            #[cfg(not(feature = "dim3"))]
            let polygons = work.shapes.is_some();
            #[cfg(feature = "dim3")]
            let polygons = false;
            let min = if polygons { SLOT_CHUNK } else { OWNER_MIN_CHUNK };
            let threads = self.threads();
            self.owners.prepare(
                &mut self.pool,
                (ct.generation(), ct.stable_generation()),
                (&ct.i, &ct.j),
                n,
                threads,
                min,
                (&slot_waves, &particle_waves),
            )?;
        }
        let tail = if in_place { self.owners.tail() } else { 0..0 };
        self.tails += u64::from(!tail.is_empty());
        // The next step's kicks and drift, wave after wave (see `waves`): only where there
        // are several, so that each wave's particles are still in cache from its pairs.
        let next = next.filter(|_| particle_waves.len() > 2);
        let mut kicked: Option<CheckResult> = next.map(|_| CheckResult::default());
        let mut runs = Vec::new();
        let mut wall_log = Vec::new();
        // The phases read the store while they add into the loads; the kicks write both.
        ps.with_loads_mut(|ps, mut loads| -> Result<()> {
            // The tail first (see `waves`): into slot records only, while no particle has
            // been kicked.
            let tail_runs = if tail.is_empty() {
                Vec::new()
            } else {
                let shared = SharedLoads::new(loads.each_mut().map(|l| &mut **l));
                self.force_phase(ps, ct, work, Some(shared), &mut logs, tail, true)?
            };
            for w in 0..particle_waves.len() - 1 {
                let particles = particle_waves[w]..particle_waves[w + 1];
                let shared = SharedLoads::new(loads.each_mut().map(|l| &mut **l));
                let chunks = if in_place {
                    self.owners.waves[w]..self.owners.waves[w + 1]
                } else {
                    0..0
                };
                let (wave_runs, wave_walls) = if in_place {
                    let r = self.force_phase(ps, ct, work, Some(shared), &mut logs, chunks, false)?;
                    (
                        r,
                        self.fix_up_phase(ps, &shared, wc, ww, logging, w, particles.clone())?,
                    )
                } else {
                    let r = self.force_phase(ps, ct, work, None, &mut logs, chunks, false)?;
                    (
                        r,
                        self.reduce_phase(ps, loads.each_mut().map(|l| &mut **l), wc, ww, logging)?,
                    )
                };
                runs.extend(wave_runs);
                wall_log.extend(wave_walls);
                if let (Some(next), Some(k)) = (next, kicked.as_mut()) {
                    let r = self.next_kick(ps, loads.each_mut().map(|l| &mut **l), particles, next)?;
                    k.left_box |= r.left_box;
                    k.outside |= r.outside;
                    k.speed = k.speed.max(r.speed);
                }
            }
            runs.extend(tail_runs);
            Ok(())
        })?;
        if let Some(log) = log {
            log.runs = runs;
            log.walls = wall_log;
        }
        let mut touching = 0;
        for t in &self.threads {
            #[cfg_attr(feature = "dim3", allow(unused_mut))]
            let mut ts = t.lock();
            touching += ts.touching;
            #[cfg(not(feature = "dim3"))]
            stats.add(&std::mem::take(&mut ts.stats));
        }
        Ok((touching, kicked))
    }

    /// The pairs of the contact table in dynamically claimed chunks, into each strategy's
    /// sink (`loads`: the deterministic sum's). `logs`: whether the step is logged, and
    /// buffers to reuse; returns each chunk's touching pairs, in slot order. `tail`: the
    /// chunks `wave` are the owner plan's tail, whose shares are all deferred.
    #[allow(clippy::too_many_arguments)]
    fn force_phase(
        &mut self,
        ps: &ParticleStore,
        ct: &mut ContactTable,
        w: &PairWork,
        loads: Option<SharedLoads>,
        logs: &mut LogBuffers,
        wave: Range<usize>,
        tail: bool,
    ) -> Result<Vec<LogRun>> {
        let (logging, last_touching) = (logs.on, logs.last_touching);
        let n = ps.len();
        let slots = ct.i.len();
        let strategy = self.strategy;
        let in_place = self.in_place();
        // The chunks. In place (deterministic, or per-thread on one thread): guided,
        // claimed dynamically, one chunk on one thread (nothing deferred); polygon pairs
        // cost ten times a disc pair, so their chunks go down to the finer SLOT_CHUNK.
        // Per-thread: each thread's share, stolen from when it is done. Mutex: fixed
        // chunks of SLOT_CHUNK, claimed dynamically.
        let fixed: Vec<usize>;
        let mut stealing = None;
        let from = if in_place { self.owners.records_from() } else { 0 };
        let bounds: &[usize] = if in_place {
            // The wave's chunks (the plan is made by `pair_forces`).
            if (wave.len() > 1 || tail) && self.slot_force.len() < slots - from {
                // Only deferred slots are written and read: the contents do not matter.
                self.slot_force.resize(slots - from, SlotRecord::default());
            }
            &self.owners.bounds[wave.start..=wave.end]
        } else if strategy == ForceStrategy::PerThread {
            // Contiguous shares of the table, one per thread, cut into blocks that idle
            // threads steal from the back: each thread writes its region of the particles
            // and a rim, which keeps its touched blocks few.
            let (lens, claims) = self.blocks(slots);
            stealing = Some(claims);
            fixed = std::iter::once(0)
                .chain(lens.iter().scan(0, |acc, &l| {
                    *acc += l;
                    Some(*acc)
                }))
                .collect();
            &fixed
        } else {
            fixed = (0..slots.div_ceil(SLOT_CHUNK))
                .map(|k| k * SLOT_CHUNK)
                .chain([slots])
                .collect();
            &fixed
        };
        if strategy == ForceStrategy::Mutex && self.locks.len() != n {
            self.locks = (0..n).map(|_| Mutex::new([0.0; LOADS])).collect();
        }
        let chunks = bounds.len() - 1;
        let lens: Vec<usize> = bounds.windows(2).map(|w| w[1] - w[0]).collect();
        // The wave's slots.
        let (s0, s1) = (bounds[0], bounds[chunks]);
        let (out, defer) = if in_place && (chunks > 1 || tail) {
            (
                split_lengths(&mut self.slot_force[s0 - from..s1 - from], lens.iter().copied()),
                split_ref(&self.owners.defer[s0..s1], lens.iter().copied()),
            )
        } else {
            (
                (0..chunks).map(|_| Default::default()).collect(),
                (0..chunks).map(|_| Default::default()).collect(),
            )
        };
        let (ci, cj) = (&ct.i[..], &ct.j[..]);
        // Room for each chunk's touching pairs, at the last step's share of touching slots
        // and a margin: little growth while the loop runs.
        let touching_share = if logging {
            (last_touching as f64 / slots.max(1) as f64).min(1.0)
        } else {
            0.0
        };
        // The polygon and rolling state: empty where the run has none.
        let part = |empty: bool| if empty { 0..0 } else { s0..s1 };
        let (ar, fr, rr) = (
            part(ct.area.is_empty()),
            part(ct.features.is_empty()),
            part(ct.rolling.is_empty()),
        );
        let work: Vec<Mutex<SlotChunk>> = split_lengths(&mut ct.xi[s0..s1], lens.iter().copied())
            .into_iter()
            .zip(split_or_empty(&mut ct.area[ar], &lens))
            .zip(split_or_empty(&mut ct.features[fr], &lens))
            .zip(split_or_empty(&mut ct.rolling[rr], &lens))
            .zip(out.into_iter().zip(defer))
            .enumerate()
            .map(|(k, ((((xi, area), features), rolling), (out, defer)))| {
                Mutex::new(SlotChunk {
                    start: bounds[k],
                    xi,
                    area,
                    features,
                    rolling,
                    out,
                    defer,
                    log: if logging {
                        let mut v = logs.spare.pop().unwrap_or_default();
                        v.clear_for((lens[k] as f64 * touching_share * 1.2) as usize + 16);
                        v
                    } else {
                        LogRun::default()
                    },
                })
            })
            .collect();
        let dynamic = Dynamic::new(chunks, 1);
        let view = RoundView::of(ps, w.image);
        let one = (w.params.n == 1).then(|| OneMaterial(w.params.params[0]));
        let locks = &self.locks;
        let threads = &self.threads;
        self.pool.run(Phase::Forces, &|t| {
            let mut guard = threads[t].lock();
            let ts = &mut *guard;
            if strategy == ForceStrategy::PerThread && !in_place && ts.acc[0].len() != n {
                // Zeroed here once; afterwards the reduction zeroes what it has read.
                for a in &mut ts.acc {
                    a.clear();
                    a.resize(n, 0.0);
                }
                ts.touched.clear();
                ts.touched.resize(n.div_ceil(TOUCH_BLOCK), false);
            }
            let mut touching = 0;
            #[cfg(not(feature = "dim3"))]
            let mut narrow = NarrowWork {
                stats: &mut ts.stats,
                scratch: &mut ts.scratch,
                rejection: w.rejection,
                gap_budget: w.gap_budget,
            };
            let acc = &mut ts.acc;
            let touched = &mut ts.touched;
            while let Some(k) = match &stealing {
                Some(s) => s.claim(t),
                None => dynamic.claim(),
            } {
                let mut guard = work[k].lock();
                let SlotChunk {
                    start,
                    xi,
                    area,
                    features,
                    rolling,
                    out,
                    defer,
                    log,
                } = &mut *guard;
                let r = *start..*start + xi.len();
                let (ci, cj) = (&ci[r.clone()], &cj[r]);
                // One monomorphised loop per (shape case, strategy): no per-slot branch
                // on either.
                #[cfg(not(feature = "dim3"))]
                macro_rules! pairs_into_sink {
                    ($sink:expr) => {
                        chunk_forces(
                            ps,
                            &view,
                            w.shapes,
                            one.as_ref(),
                            w.params,
                            w.normal_model,
                            ci,
                            cj,
                            Slots {
                                xi,
                                area,
                                features,
                                rolling,
                            },
                            w.dt,
                            &mut narrow,
                            $sink,
                        )
                    };
                }
                #[cfg(feature = "dim3")]
                macro_rules! pairs_into_sink {
                    ($sink:expr) => {{
                        let _ = (&area, &features);
                        chunk_forces(&view, one.as_ref(), w, (ci, cj), xi, rolling, $sink)
                    }};
                }
                // A logged step: the same loop with the log's sink around the strategy's.
                macro_rules! pairs_into {
                    ($sink:expr) => {
                        if logging {
                            pairs_into_sink!(Logged { inner: $sink, log })
                        } else {
                            pairs_into_sink!($sink)
                        }
                    };
                }
                touching += match (strategy, loads) {
                    (_, Some(loads)) if chunks == 1 && !tail => pairs_into!(SharedLoadsSink { loads }),
                    (ForceStrategy::Deterministic, Some(loads)) => pairs_into!(OwnerSink { defer, out, loads }),
                    (ForceStrategy::Deterministic, None) => unreachable!("the deterministic sum needs its loads"),
                    (ForceStrategy::PerThread, _) => pairs_into!(PerThreadSink {
                        loads: LoadSink {
                            loads: acc.each_mut().map(|a| &mut a[..]),
                        },
                        touched: &mut touched[..],
                    }),
                    (ForceStrategy::Mutex, _) => pairs_into!(LockSink { locks }),
                };
            }
            ts.touching += touching;
        })?;
        // Chunks in table order, each in slot order: the table's order.
        Ok(if logging {
            work.into_iter().map(|c| c.into_inner().log).collect()
        } else {
            Vec::new()
        })
    }

    /// Deterministic: the deferred contributions, then the wall forces, of runs of
    /// particles claimed dynamically: each particle's by one thread, in the serial order.
    /// The runs are many (a deferred contribution in a region of large chunks costs more
    /// than one among the last, small chunks, so equal shares of entries are not equal
    /// shares of time).
    ///
    /// With waves, wave `wave`'s deferred contributions (of its chunks' particles, some
    /// beyond its own), then the walls of its own particles `particles`, whose pair sums
    /// it completes.
    #[allow(clippy::too_many_arguments)]
    fn fix_up_phase(
        &mut self,
        ps: &ParticleStore,
        loads: &SharedLoads,
        wc: &mut WallContacts,
        ww: &WallWork,
        logging: bool,
        wave: usize,
        particles: Range<usize>,
    ) -> Result<Vec<WallForce>> {
        let fix = self.owners.wave_fix(wave);
        let wall_range = {
            let at = |q: usize| wc.p.partition_point(|&p| (p as usize) < q);
            at(particles.start)..at(particles.end)
        };
        if fix.is_empty() && wall_range.is_empty() {
            return Ok(Vec::new());
        }
        // The entries' particles lie at or after the wave's first (a slot's particles are
        // at or after its first).
        let last = fix.last().map_or(0, |&e| (e >> 32) as usize + 1);
        let span = particles.start..particles.end.max(last);
        let threads = self.threads();
        let owners = &self.owners;
        let weight = WALL_WEIGHT[usize::from(ww.polygons())];
        let runs = if threads > 1 { threads * FIX_RUNS } else { 1 };
        let cuts = owners.particle_cuts(&mut self.pool, runs, wave, span, &wc.p[wall_range], weight)?;
        // The walls of the wave's own particles only: the others' come in their own waves.
        let wall_cuts: Vec<usize> = cuts.iter().map(|&c| c.min(particles.end)).collect();
        let walls = wall_pieces(wc, &wall_cuts);
        let slot_force = (&self.slot_force[..], owners.records_from());
        let dynamic = Dynamic::new(runs, 1);
        self.pool.run(Phase::Reduce, &|_| {
            while let Some(k) = dynamic.claim() {
                fix_up(owners.fix_piece(wave, cuts[k]..cuts[k + 1]), slot_force, loads);
                let mut piece = walls[k].lock();
                let WallPiece {
                    p,
                    w,
                    xi,
                    area,
                    rolling,
                    log,
                } = &mut *piece;
                let log = logging.then_some(log);
                ww.contacts(ps, p, w, xi, area, rolling, &mut SharedLoadsSink { loads: *loads }, log);
            }
        })?;
        Ok(wall_logs(walls))
    }

    /// Per-thread and mutex: every particle's loads from the accumulators (the loads are
    /// not reset by the predict phase: this assigns them), then the wall forces of the same
    /// particles on the same thread.
    fn reduce_phase(
        &mut self,
        ps: &ParticleStore,
        out: [&mut [f64]; LOADS],
        wc: &mut WallContacts,
        ww: &WallWork,
        logging: bool,
    ) -> Result<Vec<WallForce>> {
        let n = ps.len();
        let strategy = self.strategy;
        // Ranges of whole blocks of touched marks, so that each mark has one reader.
        let threads = self.threads();
        let blocks = n.div_ceil(TOUCH_BLOCK);
        let block_ranges: Vec<Range<usize>> = (0..threads).map(|t| chunk(blocks, t, threads)).collect();
        let ranges: Vec<Range<usize>> = block_ranges
            .iter()
            .map(|b| (b.start * TOUCH_BLOCK).min(n)..(b.end * TOUCH_BLOCK).min(n))
            .collect();
        let lens: Vec<usize> = ranges.iter().map(|r| r.len()).collect();
        let block_lens: Vec<usize> = block_ranges.iter().map(|r| r.len()).collect();
        let cuts: Vec<usize> = ranges.iter().map(|r| r.start).chain([n]).collect();
        let walls = wall_pieces(wc, &cuts);
        let loads: Vec<Mutex<[&mut [f64]; LOADS]>> = split_arrays(out, &lens).into_iter().map(Mutex::new).collect();
        let locks = &self.locks;
        let mut guards: Vec<_> = if strategy == ForceStrategy::PerThread {
            self.threads.iter().map(|t| t.lock()).collect()
        } else {
            Vec::new()
        };
        // Per-thread: thread t reads (and zeroes for the next step) every thread's
        // touched blocks over its own particle range: pieces[t][k] = thread k's arrays and
        // marks there.
        type Piece<'a> = ([&'a mut [f64]; LOADS], &'a mut [bool]);
        let mut pieces: Vec<Vec<Piece>> = (0..threads).map(|_| Vec::new()).collect();
        for g in guards.iter_mut() {
            let ThreadState { acc, touched, .. } = &mut **g;
            let parts = split_arrays(acc.each_mut().map(|a| &mut a[..n]), &lens)
                .into_iter()
                .zip(split_lengths(&mut touched[..blocks], block_lens.iter().copied()));
            for (t, part) in parts.enumerate() {
                pieces[t].push(part);
            }
        }
        let pieces: Vec<Mutex<Vec<Piece>>> = pieces.into_iter().map(Mutex::new).collect();
        self.pool.run(Phase::Reduce, &|t| {
            let mut l = loads[t].lock();
            let out = &mut *l;
            let base = ranges[t].start;
            match strategy {
                ForceStrategy::Deterministic => unreachable!("the deterministic sum has no reduction"),
                ForceStrategy::PerThread => {
                    // Each load the sum over the threads in order, as before the marks:
                    // the arrays skipped hold zeros there, and x + 0 = x.
                    let mut mine = pieces[t].lock();
                    for k in 0..block_ranges[t].len() {
                        let r = k * TOUCH_BLOCK..((k + 1) * TOUCH_BLOCK).min(out[0].len());
                        let mut first = true;
                        for (acc, touched) in mine.iter_mut() {
                            if !std::mem::take(&mut touched[k]) {
                                continue;
                            }
                            for (o, a) in out.iter_mut().zip(acc.iter_mut()) {
                                let (o, a) = (&mut o[r.clone()], &mut a[r.clone()]);
                                if first {
                                    o.copy_from_slice(a);
                                } else {
                                    o.iter_mut().zip(a.iter()).for_each(|(o, a)| *o += a);
                                }
                                a.fill(0.0);
                            }
                            first = false;
                        }
                        if first {
                            out.iter_mut().for_each(|o| o[r.clone()].fill(0.0));
                        }
                    }
                }
                ForceStrategy::Mutex => {
                    for p in ranges[t].clone() {
                        let a = std::mem::take(&mut *locks[p].lock());
                        for (o, a) in out.iter_mut().zip(a) {
                            o[p - base] = a;
                        }
                    }
                }
            }
            let mut piece = walls[t].lock();
            let WallPiece {
                p,
                w,
                xi,
                area,
                rolling,
                log,
            } = &mut *piece;
            let mut sink = OffsetSink {
                base,
                loads: LoadSink {
                    loads: out.each_mut().map(|o| &mut **o),
                },
            };
            ww.contacts(ps, p, w, xi, area, rolling, &mut sink, logging.then_some(log));
        })?;
        drop(guards);
        Ok(wall_logs(walls))
    }
}

/// The wall contacts of one run of particles.
struct WallPiece<'a> {
    p: &'a [u32],
    w: &'a [u16],
    xi: &'a mut [Spring],
    area: &'a mut [f64],
    rolling: &'a mut [[f64; ANG]],
    /// A logged step's wall forces of this piece, in list order.
    log: Vec<WallForce>,
}

/// The pieces' logged wall forces, in list order.
fn wall_logs(walls: Vec<Mutex<WallPiece>>) -> Vec<WallForce> {
    walls.into_iter().flat_map(|w| w.into_inner().log).collect()
}

/// The wall contacts (sorted by particle: checked on restore, kept by the rebuild) cut at
/// the particles `cuts` (`cuts[k]` is run k's first particle, the last entry the particle
/// count): one piece per run.
fn wall_pieces<'a>(wc: &'a mut WallContacts, cuts: &[usize]) -> Vec<Mutex<WallPiece<'a>>> {
    debug_assert!(wc.p.windows(2).all(|w| w[0] <= w[1]), "wall contacts not sorted");
    let at: Vec<usize> = cuts
        .iter()
        .map(|&f| wc.p.partition_point(|&q| (q as usize) < f))
        .collect();
    let lens = at.windows(2).map(|w| w[1] - w[0]);
    // The rolling torques: empty without cohesion and rolling resistance.
    let rolled = at[0].min(wc.rolling.len());
    split_ref(&wc.p[at[0]..], lens.clone())
        .into_iter()
        .zip(split_ref(&wc.w[at[0]..], lens.clone()))
        .zip(split_lengths(&mut wc.xi[at[0]..], lens.clone()))
        .zip(split_lengths(&mut wc.area[at[0]..], lens.clone()))
        .zip(split_or_empty(&mut wc.rolling[rolled..], &lens.collect::<Vec<_>>()))
        .map(|((((p, w), xi), area), rolling)| {
            Mutex::new(WallPiece {
                p,
                w,
                xi,
                area,
                rolling,
                log: Vec::new(),
            })
        })
        .collect()
}

/// Wall forces into one thread's piece of the loads, which starts at particle `base`
/// (the per-thread and mutex reductions assign loads by static ranges).
struct OffsetSink<'a> {
    base: usize,
    loads: LoadSink<'a>,
}

impl WallSink for OffsetSink<'_> {
    #[inline(always)]
    fn wall(&mut self, p: usize, c: &ContactForce) {
        self.loads.wall(p - self.base, c);
    }
}
