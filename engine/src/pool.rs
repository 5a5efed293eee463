//! The worker pool: a fixed set of threads, created once and pinned, that run the phases
//! of a step (Schinner 1999; Chen & Matuttis 2013, section 3). The calling thread is
//! thread 0 and works too; `threads - 1` workers wait for the next phase, spinning briefly
//! and then parking, so that the short gaps between the phases of one step cost no
//! wake-up while a paused simulation costs no CPU.
//!
//! `run` is fork-join: it hands every thread the same closure (called with the thread's
//! number), returns when all have finished, and is the barrier between phases. Each
//! thread's busy time is measured; the rest of the phase's wall time, from the hand-out
//! to the last thread's finish, is its time lost at the barrier (including the wake-up),
//! which is what profilers misreport (Chen & Matuttis, section 3.4).
//!
//! A panic in a phase is caught on its thread, the other threads finish the phase, and
//! `run` returns an error naming the phase and the message: never a hang.
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam::utils::{Backoff, CachePadded};
use parking_lot::Mutex;

use crate::error::{EngineError, Result};
use crate::work_split::{chunk, cut_by_work, cuts_by_work};

/// How long a worker spins for the next phase before parking.
const SPIN: Duration = Duration::from_micros(200);

/// The phases of a step, in step order: the one list of where a step's time goes. Most run
/// on the pool ([`Pool::run`]); the serial ones ([`Phase::is_serial`]) run on thread 0
/// alone ([`Pool::serial`]) while the other threads wait, and are timed the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    /// Verlet kicks and drift (or Gear prediction), load reset, position check; where the
    /// force phase runs in waves, the next step's, each wave's after its pairs.
    Predict,
    /// World-frame polygon vertices.
    Vertices,
    /// Neighbour search (the sort-and-sweep update, its axes in pieces; the quadtree's scan).
    Neighbor,
    /// The contact table's additions, removals and compaction, and the wall-contact list
    /// (serial: each changes one shared table); then, on the pool, the deterministic
    /// sum's owner plan of the changed table.
    Contacts,
    /// Narrow phase and pair forces over the contact table.
    Forces,
    /// Summing the per-slot, per-thread or per-particle accumulators into the loads, and
    /// the wall forces.
    Reduce,
    /// Verlet second half kick (or Gear correction).
    Correct,
    /// Renumbering the particles along a Morton curve (serial: a sort and a permutation
    /// of every array), every `sort_every` steps.
    Reorder,
    /// Pouring particles in (serial: the placement, and every array grows).
    Insert,
    /// Copying the hot particle arrays into pages first written by the threads that work
    /// on them (NUMA first touch): when the pool starts (set-up, not in the profile), and
    /// at the step after particles were reordered, removed or added.
    FirstTouch,
    /// The analysis of a logged step (stress, contacts, rattlers: `sim/analysis.rs`),
    /// between steps: not part of the stepping time.
    Analysis,
}

impl Phase {
    /// Every phase of a step, in step order (the analysis, between steps, is not one).
    pub const ALL: [Phase; 10] = [
        Phase::Predict,
        Phase::Vertices,
        Phase::Neighbor,
        Phase::Contacts,
        Phase::Forces,
        Phase::Reduce,
        Phase::Correct,
        Phase::Reorder,
        Phase::Insert,
        Phase::FirstTouch,
    ];

    /// Name of the phase in profiles and messages.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Predict => "predict",
            Phase::Vertices => "vertices",
            Phase::Neighbor => "neighbour",
            Phase::Contacts => "contacts",
            Phase::Forces => "forces",
            Phase::Reduce => "reduce",
            Phase::Correct => "correct",
            Phase::Reorder => "reorder",
            Phase::Insert => "insert",
            Phase::FirstTouch => "first touch",
            Phase::Analysis => "analysis",
        }
    }

    /// Runs on thread 0 alone (the other threads wait at the next phase), but for the
    /// owner plan timed with `Contacts`.
    pub fn is_serial(self) -> bool {
        matches!(self, Phase::Contacts | Phase::Reorder | Phase::Insert)
    }

    /// Part of a step (all but the analysis, which runs between steps).
    pub fn in_step(self) -> bool {
        self != Phase::Analysis
    }
}

/// Accumulated time of one phase: wall time of its `run` calls, and per thread the busy
/// time and the time waiting at the closing barrier.
#[derive(Debug, Clone, Default)]
pub struct PhaseProfile {
    /// Number of `run` (or serial) calls.
    pub calls: u64,
    /// Wall time of the calls (s).
    pub wall: f64,
    /// Busy time per thread (s).
    pub busy: Vec<f64>,
    /// Time each thread waited at the closing barrier (s).
    pub wait: Vec<f64>,
}

/// Per phase, per thread timings of a pool, and the wall time of the steps they ran in.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    /// Number of threads of the pool.
    pub threads: usize,
    /// Timings of each phase run so far, in step order.
    pub phases: Vec<(Phase, PhaseProfile)>,
    /// Wall time of the steps (set by the simulation): the phases' sum and the glue
    /// between them.
    pub stepping: f64,
    /// Whether the pool's owner is setting up (a simulation is, outside its `run`): a
    /// step's phases are not counted then. The set-up's reordering and first forces are
    /// not the run's, and counted beside its stepping time they made a short run's phase
    /// shares sum past 100 %.
    pub(crate) setting_up: bool,
}

impl Profile {
    /// Whether a run of `phase` now counts (the analysis, between steps, always does).
    fn counts(&self, phase: Phase) -> bool {
        !self.setting_up || !phase.in_step()
    }

    fn entry(&mut self, phase: Phase) -> &mut PhaseProfile {
        let k = match self.phases.iter().position(|(p, _)| *p == phase) {
            Some(k) => k,
            None => {
                self.phases.push((
                    phase,
                    PhaseProfile {
                        busy: vec![0.0; self.threads],
                        wait: vec![0.0; self.threads],
                        ..Default::default()
                    },
                ));
                self.phases.sort_by_key(|(p, _)| *p);
                self.phases.iter().position(|(p, _)| *p == phase).unwrap()
            }
        };
        &mut self.phases[k].1
    }

    /// Total wall time of the step's phases (the analysis, between steps, left out).
    pub fn wall(&self) -> f64 {
        self.step_phases().map(|p| p.wall).sum()
    }

    /// The step's phases (the analysis left out).
    fn step_phases(&self) -> impl Iterator<Item = &PhaseProfile> {
        self.phases.iter().filter(|(ph, _)| ph.in_step()).map(|(_, p)| p)
    }

    /// Barrier wait of the step's phases, summed over threads (s).
    pub fn step_wait(&self) -> f64 {
        self.step_phases().flat_map(|p| &p.wait).sum()
    }

    /// Wall time of one phase.
    pub fn wall_of(&self, phase: Phase) -> f64 {
        self.phases
            .iter()
            .find(|(p, _)| *p == phase)
            .map_or(0.0, |(_, p)| p.wall)
    }

    /// Wall time of the neighbour updates: the search and the contact-table changes it
    /// drives.
    pub fn neighbor_wall(&self) -> f64 {
        self.wall_of(Phase::Neighbor) + self.wall_of(Phase::Contacts)
    }

    /// Stepping time in no phase: the glue between them (clock reads, bookkeeping).
    pub fn outside(&self) -> f64 {
        (self.stepping - self.wall()).max(0.0)
    }

    /// Start afresh (after a warm-up).
    pub fn clear(&mut self) {
        self.phases.clear();
        self.stepping = 0.0;
    }

    /// Total barrier wait over all phases and threads, as a fraction of threads x wall.
    pub fn wait_fraction(&self) -> f64 {
        self.step_wait() / (self.wall() * self.threads.max(1) as f64).max(f64::MIN_POSITIVE)
    }
}

/// The closure of the current phase, its lifetime erased (see `Pool::run`).
type Job = *const (dyn Fn(usize) + Sync);

struct Shared {
    /// Bumped to hand out a phase. Its address is also the key parked workers wait on.
    generation: CachePadded<AtomicU64>,
    /// Workers still running the current phase.
    remaining: CachePadded<AtomicUsize>,
    job: Mutex<Option<SendJob>>,
    shutdown: AtomicBool,
    /// Busy nanoseconds of each thread in the current phase.
    busy: Vec<CachePadded<AtomicU64>>,
    panic: Mutex<Option<String>>,
}

#[derive(Clone, Copy)]
struct SendJob(Job);
// SAFETY: the pointee is `Sync` (shared calls from several threads are allowed), and the
// pointer is only dereferenced while `Pool::run` keeps the closure alive (see there).
unsafe impl Send for SendJob {}

/// A fixed set of pinned worker threads running phases.
pub struct Pool {
    shared: Arc<Shared>,
    handles: Vec<JoinHandle<()>>,
    threads: usize,
    /// Where thread 0 (the caller) runs: a processing unit, or None for unpinned.
    caller_pin: Option<usize>,
    /// Timings of the phases run so far.
    pub profile: Profile,
}

/// Give the calling thread back the affinity mask it had before any pool pinned it (for
/// code that runs without a pool after pools were made; a no-op if no pool was made).
pub fn unpin_caller() -> Result<()> {
    if let Some(set) = original_mask() {
        // SAFETY: `set` is a valid cpu_set_t of the size passed.
        let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
        if rc != 0 {
            return Err(EngineError::Setup(
                "restoring the calling thread's affinity failed".into(),
            ));
        }
    }
    Ok(())
}

/// Pin the calling thread to processing unit `pu`.
fn pin_current(pu: usize) -> Result<()> {
    if core_affinity::set_for_current(core_affinity::CoreId { id: pu }) {
        Ok(())
    } else {
        Err(EngineError::Setup(format!("pinning to processing unit {pu} failed")))
    }
}

/// The calling thread's affinity mask as the first pool found it (Linux), or None if it
/// could not be read.
fn original_mask() -> Option<libc::cpu_set_t> {
    static MASK: std::sync::OnceLock<Option<libc::cpu_set_t>> = std::sync::OnceLock::new();
    *MASK.get_or_init(|| {
        // SAFETY: cpu_set_t is a plain bit array, valid when zeroed; sched_getaffinity
        // writes at most `size_of::<cpu_set_t>()` bytes into it.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
        (rc == 0).then_some(set)
    })
}

fn panic_message(p: Box<dyn Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a worker panicked".into()
    }
}

impl Pool {
    /// A pool of `pins.len()` threads (the caller is thread 0). `pins[t]` is the OS index
    /// of the processing unit thread t is pinned to, or None for no pinning.
    pub fn new(pins: &[Option<usize>]) -> Result<Pool> {
        let threads = pins.len();
        if threads == 0 {
            return Err(EngineError::Setup("a pool needs at least one thread".into()));
        }
        let shared = Arc::new(Shared {
            generation: CachePadded::new(AtomicU64::new(0)),
            remaining: CachePadded::new(AtomicUsize::new(0)),
            job: Mutex::new(None),
            shutdown: AtomicBool::new(false),
            busy: (0..threads).map(|_| CachePadded::new(AtomicU64::new(0))).collect(),
            panic: Mutex::new(None),
        });
        // The caller's mask before any pool pinned it (for `pin_caller` of an unpinned
        // pool), and the processing units the process may use, read once: after thread 0
        // is pinned its own mask (which core_affinity reads) holds one unit only.
        original_mask();
        static UNITS: std::sync::OnceLock<Vec<core_affinity::CoreId>> = std::sync::OnceLock::new();
        let cores = UNITS.get_or_init(|| core_affinity::get_core_ids().unwrap_or_default());
        // Thread 0 is the caller: pinned here, as OpenMP pins its master thread.
        if let Some(pu) = pins[0] {
            if !cores.iter().any(|c| c.id == pu) {
                return Err(EngineError::Setup(format!(
                    "cannot pin to processing unit {pu}: not available"
                )));
            }
            pin_current(pu)?;
        }
        let mut handles = Vec::with_capacity(threads - 1);
        for (t, &pu) in pins.iter().enumerate().skip(1) {
            if let Some(pu) = pu {
                if !cores.iter().any(|c| c.id == pu) {
                    return Err(EngineError::Setup(format!(
                        "cannot pin thread {t} to processing unit {pu}: not available"
                    )));
                }
            }
            let sh = Arc::clone(&shared);
            let h = std::thread::Builder::new()
                .name(format!("talus-worker-{t}"))
                .spawn(move || {
                    if let Some(pu) = pu {
                        core_affinity::set_for_current(core_affinity::CoreId { id: pu });
                    }
                    worker(&sh, t)
                })
                .map_err(|e| EngineError::Setup(format!("cannot start worker thread {t}: {e}")))?;
            handles.push(h);
        }
        Ok(Pool {
            shared,
            handles,
            threads,
            caller_pin: pins[0],
            profile: Profile {
                threads,
                ..Profile::default()
            },
        })
    }

    /// Number of threads, the caller (thread 0) included.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Put the calling thread (thread 0) back where this pool placed it: pinned to its
    /// unit, or, for an unpinned pool, on the mask it had before any pool pinned it. The
    /// caller is pinned once, when the pool is made; a program that makes several pools
    /// and runs them in turn (`talus scale`) must call this before running another's
    /// phases, or thread 0 stays where the last-made pool put it.
    pub fn pin_caller(&self) -> Result<()> {
        match self.caller_pin {
            Some(pu) => pin_current(pu)?,
            None => unpin_caller()?,
        }
        Ok(())
    }

    /// Run `job(t)` on every thread t in 0..threads and wait for all (the barrier).
    pub fn run<F: Fn(usize) + Sync>(&mut self, phase: Phase, job: &F) -> Result<()> {
        let start = Instant::now();
        let sh = &*self.shared;
        if self.threads > 1 {
            let dynjob: &(dyn Fn(usize) + Sync) = job;
            // SAFETY: only the lifetime is erased. Workers dereference the pointer between
            // seeing the new generation and decrementing `remaining`; this function does
            // not return (not even by unwinding: thread 0's share runs under catch_unwind)
            // before `remaining` is zero, so `job` outlives every use.
            let ptr: Job = unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), Job>(dynjob) };
            *sh.job.lock() = Some(SendJob(ptr));
            sh.remaining.store(self.threads - 1, Ordering::Release);
            sh.generation.fetch_add(1, Ordering::Release);
            sh.wake_all();
        }
        let t0 = Instant::now();
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| job(0))) {
            sh.panic.lock().get_or_insert(panic_message(p));
        }
        sh.busy[0].store(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
        if self.threads > 1 {
            let backoff = Backoff::new();
            while sh.remaining.load(Ordering::Acquire) != 0 {
                backoff.snooze();
            }
        }
        let end = Instant::now();
        let wall = (end - start).as_secs_f64();
        if self.profile.counts(phase) {
            let e = self.profile.entry(phase);
            e.calls += 1;
            e.wall += wall;
            for t in 0..self.threads {
                let busy = sh.busy[t].load(Ordering::Relaxed) as f64 * 1e-9;
                e.busy[t] += busy;
                e.wait[t] += (wall - busy).max(0.0);
            }
        }
        if let Some(msg) = sh.panic.lock().take() {
            return Err(EngineError::Worker {
                phase: phase.name(),
                msg,
            });
        }
        Ok(())
    }

    /// Run `f` on thread 0 alone, timed as `phase`: thread 0 busy, the others waiting.
    pub fn serial<R>(&mut self, phase: Phase, f: impl FnOnce() -> R) -> R {
        let start = Instant::now();
        let r = f();
        self.record_serial(phase, start.elapsed().as_secs_f64());
        r
    }

    /// Count `wall` seconds of work on thread 0 alone as `phase` (as [`Pool::serial`], for
    /// work that needs what holds the pool).
    pub fn record_serial(&mut self, phase: Phase, wall: f64) {
        if !self.profile.counts(phase) {
            return;
        }
        let e = self.profile.entry(phase);
        e.calls += 1;
        e.wall += wall;
        e.busy[0] += wall;
        for w in &mut e.wait[1..] {
            *w += wall;
        }
    }
}

fn worker(sh: &Shared, t: usize) {
    let mut seen = 0u64;
    loop {
        // Spin for the next phase, then park.
        let spin_start = Instant::now();
        let backoff = Backoff::new();
        while sh.generation.load(Ordering::Acquire) == seen {
            if backoff.is_completed() {
                if spin_start.elapsed() > SPIN {
                    sh.park_while(seen);
                    continue;
                }
                std::hint::spin_loop();
            } else {
                backoff.snooze();
            }
        }
        seen = sh.generation.load(Ordering::Acquire);
        if sh.shutdown.load(Ordering::Acquire) {
            return;
        }
        let job = sh.job.lock().expect("a phase was handed out").0;
        let t0 = Instant::now();
        // SAFETY: see `Pool::run`: the closure lives until `remaining` reaches zero, which
        // happens only after this call and the decrement below.
        let r = catch_unwind(AssertUnwindSafe(|| unsafe { (*job)(t) }));
        sh.busy[t].store(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
        if let Err(p) = r {
            sh.panic.lock().get_or_insert(panic_message(p));
        }
        sh.remaining.fetch_sub(1, Ordering::Release);
    }
}

impl Shared {
    /// The key parked workers wait on: the generation's address.
    fn key(&self) -> usize {
        &*self.generation as *const AtomicU64 as usize
    }

    /// Park the calling worker until the generation is no longer `seen` (or a spurious
    /// wake-up). The test runs under the key's queue lock, which `wake_all` takes after
    /// the bump, so a bump is never missed.
    fn park_while(&self, seen: u64) {
        // SAFETY: parking_lot_core's contract: the key is an address this pool owns, and
        // the callbacks neither panic nor park.
        unsafe {
            parking_lot_core::park(
                self.key(),
                || self.generation.load(Ordering::Acquire) == seen,
                || {},
                |_, _| {},
                parking_lot_core::DEFAULT_PARK_TOKEN,
                None,
            );
        }
    }

    /// Wake every parked worker at once (after bumping the generation). A condition
    /// variable woke them one after another: each reacquired its mutex in turn.
    fn wake_all(&self) {
        // SAFETY: as in `park_while`.
        unsafe {
            parking_lot_core::unpark_all(self.key(), parking_lot_core::DEFAULT_UNPARK_TOKEN);
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::Release);
        self.shared.generation.fetch_add(1, Ordering::Release);
        self.shared.wake_all();
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

impl Pool {
    /// [`cuts_by_work`] with the cuts shared out between the threads, in `phase`: the
    /// deterministic sum's 16 runs per thread cost 256 bisections at 16 threads, each
    /// over two binary searches, about 0.5 ms a step done by one thread.
    pub fn cuts_by_work(
        &mut self,
        phase: Phase,
        n: usize,
        runs: usize,
        cost: impl Fn(usize) -> usize + Sync,
    ) -> Result<Vec<usize>> {
        if self.threads() == 1 {
            return Ok(cuts_by_work(n, runs, cost));
        }
        let total = cost(n);
        let cuts: Vec<AtomicUsize> = (0..=runs).map(|_| AtomicUsize::new(0)).collect();
        let threads = self.threads();
        self.run(phase, &|t| {
            for k in chunk(runs + 1, t, threads) {
                cuts[k].store(cut_by_work(n, runs, total, k, &cost), Ordering::Relaxed);
            }
        })?;
        Ok(cuts.into_iter().map(AtomicUsize::into_inner).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two pools made one after the other, run in turn: each puts thread 0 back on its
    /// own unit (the caller was left where the last-made pool pinned it).
    #[test]
    fn pin_caller_restores_each_pools_placement() {
        let units = core_affinity::get_core_ids().unwrap_or_default();
        if units.len() < 2 {
            return; // one unit: nothing to tell apart
        }
        let (u0, u1) = (units[0].id, units[1].id);
        let a = Pool::new(&[Some(u1)]).unwrap();
        let b = Pool::new(&[Some(u0)]).unwrap();
        let here = || core_affinity::get_core_ids().unwrap_or_default();
        assert_eq!(here(), vec![units[0]], "the last-made pool pinned the caller");
        a.pin_caller().unwrap();
        assert_eq!(here(), vec![units[1]]);
        b.pin_caller().unwrap();
        assert_eq!(here(), vec![units[0]]);
        let c = Pool::new(&[None]).unwrap();
        c.pin_caller().unwrap();
        assert_eq!(here().len(), units.len(), "an unpinned pool frees the caller again");
    }

    #[test]
    fn every_thread_runs_every_phase_once() {
        for threads in 1..=4 {
            let mut pool = Pool::new(&vec![None; threads]).unwrap();
            let hits: Vec<AtomicUsize> = (0..threads).map(|_| AtomicUsize::new(0)).collect();
            for _ in 0..1000 {
                pool.run(Phase::Forces, &|t| {
                    hits[t].fetch_add(1, Ordering::Relaxed);
                })
                .unwrap();
            }
            assert!(
                hits.iter().all(|h| h.load(Ordering::Relaxed) == 1000),
                "{threads} threads"
            );
            let (_, p) = &pool.profile.phases[0];
            assert_eq!(p.calls, 1000);
            assert_eq!(p.busy.len(), threads);
        }
    }

    #[test]
    fn a_panic_in_a_worker_is_an_error_and_the_pool_goes_on() {
        let mut pool = Pool::new(&[None, None]).unwrap();
        let r = pool.run(Phase::Reduce, &|t| {
            if t == 1 {
                panic!("boom in thread {t}");
            }
        });
        match r {
            Err(EngineError::Worker { phase, msg }) => {
                assert_eq!(phase, "reduce");
                assert!(msg.contains("boom in thread 1"), "{msg}");
            }
            other => panic!("expected a worker error, got {other:?}"),
        }
        // Thread 0 panicking too, and the pool still works afterwards.
        assert!(pool.run(Phase::Forces, &|t| assert!(t != 0, "main")).is_err());
        let sum = AtomicUsize::new(0);
        pool.run(Phase::Forces, &|t| {
            sum.fetch_add(t + 1, Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn barrier_wait_is_measured() {
        let mut pool = Pool::new(&[None, None]).unwrap();
        // Thread 1 works 20 ms, thread 0 nothing: thread 0 waits about 20 ms.
        pool.run(Phase::Forces, &|t| {
            if t == 1 {
                std::thread::sleep(Duration::from_millis(20));
            }
        })
        .unwrap();
        let (_, p) = &pool.profile.phases[0];
        assert!(p.wait[0] >= 0.015 && p.busy[1] >= 0.015, "{p:?}");
        assert!(p.busy[0] < 0.005, "{p:?}");
    }
}
