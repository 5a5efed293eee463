//! Writing checkpoints while the run goes on.
//!
//! The run stops only for one memory copy: the engine's buffers go into a file mapping
//! (memmap2) that a background thread prepared beforehand (created, sized, every page
//! already faulted in), so the copy runs at memory speed. The background thread then
//! computes the CRCs, flushes the mapping (msync) and the file (fsync), renames the
//! temporary file to its final name, flushes the directory, and deletes all but the newest
//! `keep` checkpoints it wrote itself (never those of another run in the same folder); then
//! it prepares the file for the next checkpoint. The file's space is reserved
//! (posix_fallocate), so a full disk is an error, not a SIGBUS in the copy. At most one
//! checkpoint is in flight: asking for the next before the previous one is on disk waits.
//!
//! Crash safety: a checkpoint gets its final name (`PREFIX-STEP.talus`) only after its
//! bytes and CRCs are on disk, by a rename, which is atomic; the older ones are deleted
//! only after that. Killed at any moment, the run leaves at worst a temporary file (removed
//! by the next run that writes there, once its writer's process is gone) and every
//! complete checkpoint intact.
use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam::channel::{unbounded, Receiver, Sender};
use memmap2::MmapMut;
use talus_engine::{Elem, Section, Simulation};

use crate::checkpoint::{file_name, header_and_table, layout, seal};
use crate::{IoError, Result};

/// A temporary file, sized and mapped, its pages faulted in.
struct Prepared {
    path: PathBuf,
    file: File,
    map: MmapMut,
}

struct Job {
    prepared: Prepared,
    /// Bytes of the checkpoint (the file may be larger: it is cut to this).
    len: usize,
    target: PathBuf,
    /// Size to prepare the next file for.
    next: usize,
}

enum Msg {
    Written(Result<Written>),
    Prepared(Result<Prepared>),
}

/// A checkpoint on disk.
#[derive(Debug, Clone)]
pub struct Written {
    /// Its final path.
    pub path: PathBuf,
    /// Its length, bytes.
    pub bytes: usize,
    /// Background time: CRCs, msync, fsync, rename.
    pub seconds: f64,
}

/// What writing checkpoints has cost the run so far.
#[derive(Debug, Default, Clone)]
pub struct CheckpointStats {
    /// Checkpoints taken (copied and handed to the background thread).
    pub count: u64,
    /// Their bytes in all.
    pub bytes: u64,
    /// Time the run was stopped (copy into the mapping, plus any wait for the previous
    /// checkpoint or for a file to be prepared).
    pub stall: Duration,
    /// Longest single stop.
    pub max_stall: Duration,
    /// Of `stall`, the copies alone.
    pub copy: Duration,
    /// Background time of the checkpoints already on disk.
    pub background: Duration,
    /// The newest checkpoint on disk, if one.
    pub last: Option<PathBuf>,
}

/// Writes the checkpoints of one run into one directory.
pub struct Checkpointer {
    dir: PathBuf,
    prefix: String,
    /// Extra sections written with every checkpoint (the scenario text, the run settings).
    extras: Vec<(&'static str, Vec<u8>)>,
    scenario_hash: u64,
    to_bg: Option<Sender<Job>>,
    from_bg: Receiver<Msg>,
    prepare: Sender<usize>,
    worker: Option<JoinHandle<()>>,
    prepared: Option<Prepared>,
    preparing: bool,
    in_flight: bool,
    /// What the checkpoints have cost so far.
    pub stats: CheckpointStats,
}

impl Checkpointer {
    /// Checkpoints named `PREFIX-STEP.talus` in `dir` (created if needed), the newest
    /// `keep` kept. Leftover temporary files of an earlier, killed run are removed. The file
    /// for the first checkpoint is prepared at once, sized for `sim`.
    pub fn new(
        dir: &Path,
        prefix: &str,
        keep: usize,
        scenario_hash: u64,
        extras: Vec<(&'static str, Vec<u8>)>,
        sim: &Simulation,
    ) -> Result<Checkpointer> {
        if keep == 0 {
            return Err(IoError::Invalid {
                path: dir.to_path_buf(),
                msg: "keep at least one checkpoint".into(),
            });
        }
        std::fs::create_dir_all(dir).map_err(|e| IoError::os(dir, e))?;
        // Temporary files of writers that died (killed mid-checkpoint): their process is
        // gone. Those of a live process (another run writing here) are left alone.
        for entry in std::fs::read_dir(dir).map_err(|e| IoError::os(dir, e))?.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let pid = name
                .strip_prefix(&format!(".{prefix}-"))
                .and_then(|r| r.strip_suffix(".tmp"))
                .and_then(|r| r.split('-').next())
                .and_then(|p| p.parse::<u32>().ok());
            if let Some(pid) = pid {
                if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
        let (to_bg, jobs) = unbounded::<Job>();
        let (prepare, sizes) = unbounded::<usize>();
        let (report, from_bg) = unbounded::<Msg>();
        let (d, p) = (dir.to_path_buf(), prefix.to_string());
        let worker = std::thread::Builder::new()
            .name("talus-checkpoint".into())
            .spawn(move || background(d, p, keep, jobs, sizes, report))
            .map_err(|e| IoError::os(dir, e))?;
        let mut c = Checkpointer {
            dir: dir.to_path_buf(),
            prefix: prefix.to_string(),
            extras,
            scenario_hash,
            to_bg: Some(to_bg),
            from_bg,
            prepare,
            worker: Some(worker),
            prepared: None,
            preparing: false,
            in_flight: false,
            stats: CheckpointStats::default(),
        };
        let size = c.size_for(sim);
        c.ask_prepare(size + size / 8);
        Ok(c)
    }

    /// The folder the checkpoints go to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Write the extra section `name` with these bytes from the next checkpoint on (added,
    /// or replacing the one of that name): what changes during a run, as its stage.
    pub fn set_extra(&mut self, name: &'static str, bytes: Vec<u8>) {
        match self.extras.iter_mut().find(|(n, _)| *n == name) {
            Some(e) => e.1 = bytes,
            None => self.extras.push((name, bytes)),
        }
    }

    fn size_for(&self, sim: &Simulation) -> usize {
        layout(&sections(sim, &self.extras)).1
    }

    fn ask_prepare(&mut self, size: usize) {
        if self.prepare.send(size).is_ok() {
            self.preparing = true;
        }
    }

    /// Take the background's reports; `block`: wait until nothing is in flight or being prepared.
    fn drain(&mut self, block: bool) -> Result<()> {
        loop {
            let msg = if block && (self.in_flight || self.preparing) {
                match self.from_bg.recv() {
                    Ok(m) => m,
                    Err(_) => return Err(self.worker_gone()),
                }
            } else {
                match self.from_bg.try_recv() {
                    Ok(m) => m,
                    Err(_) => return Ok(()),
                }
            };
            match msg {
                Msg::Written(r) => {
                    self.in_flight = false;
                    let w = r?;
                    self.stats.background += Duration::from_secs_f64(w.seconds);
                    self.stats.last = Some(w.path);
                }
                Msg::Prepared(r) => {
                    self.preparing = false;
                    if let Some(old) = self.prepared.replace(r?) {
                        let _ = std::fs::remove_file(&old.path);
                    }
                }
            }
        }
    }

    fn worker_gone(&self) -> IoError {
        IoError::Invalid {
            path: self.dir.clone(),
            msg: "the checkpoint writer thread ended unexpectedly".into(),
        }
    }

    /// Wait until the checkpoint in flight is on disk and the next file is prepared.
    pub fn wait(&mut self) -> Result<()> {
        self.drain(true)
    }

    /// Checkpoint `sim` (between steps). Returns once the state is copied; the file is
    /// completed in the background. An error of an earlier checkpoint's background work
    /// surfaces here (or in [`Checkpointer::finish`]).
    pub fn write(&mut self, sim: &Simulation) -> Result<Duration> {
        let t0 = Instant::now();
        self.drain(false)?;
        if self.in_flight || (self.preparing && self.prepared.is_none()) {
            self.drain(true)?;
        }
        let sections = sections(sim, &self.extras);
        let (places, len) = layout(&sections);
        let target = self.dir.join(file_name(&self.prefix, sim.step));
        let head = header_and_table(
            &sections,
            &places,
            len,
            sim.len() as u64,
            sim.step,
            sim.time,
            self.scenario_hash,
        )
        .map_err(|msg| IoError::Checkpoint {
            path: target.clone(),
            section: None,
            msg,
        })?;
        let mut prepared = match self.prepared.take() {
            Some(p) if p.map.len() >= len => p,
            other => {
                if let Some(p) = other {
                    let _ = std::fs::remove_file(&p.path);
                }
                // Sized on the spot (the state grew): this copy pays the page faults.
                prepare_file(&self.dir, &self.prefix, len, false)?
            }
        };
        let tc = Instant::now();
        let map = &mut prepared.map[..len];
        map[..head.len()].copy_from_slice(&head);
        // The gaps (alignment padding) are left as prepared: zero.
        for (s, &(offset, n)) in sections.iter().zip(&places) {
            map[offset..offset + n].copy_from_slice(&s.bytes);
        }
        let copy = tc.elapsed();
        drop(sections);
        let job = Job {
            prepared,
            len,
            target,
            next: len + len / 8,
        };
        let sent = self.to_bg.as_ref().map(|t| t.send(job).is_ok()).unwrap_or(false);
        if !sent {
            return Err(self.worker_gone());
        }
        self.in_flight = true;
        self.preparing = true;
        let stall = t0.elapsed();
        self.stats.count += 1;
        self.stats.bytes += len as u64;
        self.stats.stall += stall;
        self.stats.copy += copy;
        self.stats.max_stall = self.stats.max_stall.max(stall);
        Ok(stall)
    }

    /// Wait until every checkpoint is on disk; remove the unused prepared file.
    pub fn finish(mut self) -> Result<CheckpointStats> {
        self.shutdown()?;
        Ok(self.stats.clone())
    }

    fn shutdown(&mut self) -> Result<()> {
        let r = self.drain(true);
        self.to_bg = None;
        let (dead, _) = unbounded();
        self.prepare = dead;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
        while let Ok(msg) = self.from_bg.try_recv() {
            if let Msg::Prepared(Ok(p)) = msg {
                let _ = std::fs::remove_file(&p.path);
            }
        }
        if let Some(p) = self.prepared.take() {
            let _ = std::fs::remove_file(&p.path);
        }
        r
    }
}

impl Drop for Checkpointer {
    /// A checkpoint in flight is completed, never abandoned.
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

/// The engine's sections and the extras.
fn sections<'a>(sim: &'a Simulation, extras: &'a [(&'static str, Vec<u8>)]) -> Vec<Section<'a>> {
    let mut s = sim.sections();
    for (name, bytes) in extras {
        s.push(Section {
            name,
            elem: Elem::U8,
            bytes: std::borrow::Cow::Borrowed(bytes),
        });
    }
    s
}

/// Give `file` `len` bytes of real disk space, not a sparse hole: a full disk is then an
/// error here, not a SIGBUS when the copy into the mapping touches a page that cannot be
/// allocated. Falls back to a plain resize where the file system cannot reserve space.
fn reserve(file: &File, len: usize) -> std::io::Result<()> {
    use std::os::unix::io::AsRawFd;
    let want = libc::off_t::try_from(len).map_err(|_| std::io::Error::other("checkpoint too large"))?;
    // SAFETY: posix_fallocate only reads its integer arguments; the descriptor is open
    // for writing and owned by `file`, which outlives the call.
    let rc = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, want) };
    match rc {
        0 => Ok(()),
        libc::EOPNOTSUPP | libc::EINVAL => file.set_len(len as u64),
        e => Err(std::io::Error::from_raw_os_error(e)),
    }
}

/// Create a temporary file of `len` bytes in `dir` and map it; `touch`: fault every page
/// in now (the background does this, so that the run's copy does not).
fn prepare_file(dir: &Path, prefix: &str, len: usize, touch: bool) -> Result<Prepared> {
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!(".{prefix}-{}-{seq}.tmp", std::process::id()));
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| IoError::os(&path, e))?;
    reserve(&file, len).map_err(|e| IoError::os(&path, e))?;
    // SAFETY: the file was just created by this process under a name no other talus
    // process uses (pid and sequence number) and is only resized after the map is dropped;
    // the map is only touched through this handle.
    let mut map = unsafe { MmapMut::map_mut(&file) }.map_err(|e| IoError::os(&path, e))?;
    if touch {
        // One write per page: the kernel allocates the page and marks it dirty now.
        for k in (0..len).step_by(4096) {
            map[k] = 0;
        }
    }
    Ok(Prepared { path, file, map })
}

/// The background thread: complete each job, then prepare the next file.
fn background(
    dir: PathBuf,
    prefix: String,
    keep: usize,
    jobs: Receiver<Job>,
    sizes: Receiver<usize>,
    report: Sender<Msg>,
) {
    let mut written = VecDeque::new();
    // The first file, before any job.
    if let Ok(size) = sizes.recv() {
        let _ = report.send(Msg::Prepared(prepare_file(&dir, &prefix, size, true)));
    }
    // Polled, not waited on: a thread blocked in `recv` is woken by the sender, and on a
    // machine with few cores the woken thread can preempt the run in the middle of its
    // checkpoint (measured: stops of 2-6 ms instead of 0.6 ms for a 5 MB state). A poll
    // every millisecond costs nothing and starts the background work soon enough.
    loop {
        let job = match jobs.try_recv() {
            Ok(job) => job,
            Err(crossbeam::channel::TryRecvError::Empty) => {
                std::thread::sleep(Duration::from_millis(1));
                continue;
            }
            Err(crossbeam::channel::TryRecvError::Disconnected) => break,
        };
        let next = job.next;
        let _ = report.send(Msg::Written(complete(job, &dir, keep, &mut written)));
        let _ = report.send(Msg::Prepared(prepare_file(&dir, &prefix, next, true)));
    }
}

fn complete(job: Job, dir: &Path, keep: usize, written: &mut VecDeque<PathBuf>) -> Result<Written> {
    let t = Instant::now();
    let Prepared { path, file, mut map } = job.prepared;
    // Named by the checkpoint it was to become (the temporary name means nothing to a user).
    let os = |e: std::io::Error| IoError::os(&job.target, std::io::Error::new(e.kind(), format!("writing it: {e}")));
    seal(&mut map[..job.len]).map_err(|msg| IoError::Checkpoint {
        path: job.target.clone(),
        section: None,
        msg,
    })?;
    map.flush().map_err(os)?;
    drop(map);
    if file.metadata().map_err(os)?.len() != job.len as u64 {
        file.set_len(job.len as u64).map_err(os)?;
    }
    file.sync_all().map_err(os)?;
    drop(file);
    std::fs::rename(&path, &job.target).map_err(os)?;
    // The rename itself must reach the disk before older checkpoints go.
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| IoError::os(dir, e))?;
    // Only what this writer wrote is pruned: checkpoints of other runs in the folder (an
    // earlier run, a run restarted from an older checkpoint) are never deleted by it.
    written.retain(|p| *p != job.target);
    written.push_back(job.target.clone());
    while written.len() > keep {
        let old = written.pop_front().expect("more than keep >= 1");
        match std::fs::remove_file(&old) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(IoError::os(&old, e)),
        }
    }
    Ok(Written {
        path: job.target,
        bytes: job.len,
        seconds: t.elapsed().as_secs_f64(),
    })
}
