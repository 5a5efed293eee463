//! Ctrl-C (SIGINT) and SIGTERM (a batch system's time limit) end a run cleanly: the
//! handler only raises a flag, which the run loop reads after every batch of steps (a
//! tenth of a second of them at most, see `run::BATCH_SECONDS`); the run then
//! writes a final checkpoint and its summary and removes its temporary files. A second
//! signal while the first is being handled kills the process at once (the default action),
//! for a user who does not want to wait.
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// Raised by the handler; the run loop polls it.
static STOP: AtomicBool = AtomicBool::new(false);
/// The signal that raised [`STOP`] (0: none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    // Only async-signal-safe operations here: atomics, signal(2), raise(3).
    if STOP.load(Ordering::SeqCst) {
        // SAFETY: restoring the default action and re-raising are async-signal-safe; the
        // process then ends as if no handler had been installed.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
        return;
    }
    SIGNAL.store(sig, Ordering::SeqCst);
    STOP.store(true, Ordering::SeqCst);
}

/// Install the handlers for SIGINT and SIGTERM (from now on, they stop the run after the
/// current step instead of killing the process).
pub fn install() -> Result<(), String> {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction is valid (empty mask, no flags); the handler is an
        // `extern "C" fn(c_int)` that only touches atomics and async-signal-safe calls.
        let rc = unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // Interrupted system calls (a write of output) resume instead of failing.
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut())
        };
        if rc != 0 {
            return Err(format!(
                "cannot install the handler of signal {sig}: {}",
                std::io::Error::last_os_error()
            ));
        }
    }
    Ok(())
}

/// Whether a stop was asked for.
pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// The signal that stopped the run, if one did.
pub fn stopped_by() -> Option<i32> {
    stop_requested().then(|| SIGNAL.load(Ordering::SeqCst))
}

/// The signal's name, for messages.
pub fn name(sig: i32) -> &'static str {
    match sig {
        libc::SIGINT => "SIGINT (Ctrl-C)",
        libc::SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

/// Set by a run that a signal ended before its last step.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

pub fn mark_interrupted() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// The exit status of a run a signal ended early, as a shell reports a process the signal
/// killed (128 + the signal's number): the run is not complete, so that a job script can
/// tell (`talus run ... && next-step` does not go on).
pub fn exit_status() -> Option<u8> {
    if !INTERRUPTED.load(Ordering::SeqCst) {
        return None;
    }
    stopped_by().map(|s| 128u8.saturating_add(s as u8))
}
