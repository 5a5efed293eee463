//! One run per folder: a run holds an exclusive `flock` on `.talus.lock` in each folder it
//! writes (output, checkpoints), so that a second run into the same folder is refused
//! instead of interleaving its dumps and checkpoints with the first's. The kernel releases
//! a `flock` when its process ends, however it ends, so a killed run never leaves a folder
//! locked; a run that ends normally also removes the file.
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::MetadataExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// The lock file's name.
pub const LOCK_FILE: &str = ".talus.lock";

/// A held lock; dropping it removes the file and releases the lock.
pub struct FolderLock {
    path: PathBuf,
    file: File,
}

impl FolderLock {
    /// Lock `dir` (created if needed) for this process, or say which process holds it.
    pub fn take(dir: &Path) -> Result<FolderLock, String> {
        ensure_folder(dir)?;
        let path = dir.join(LOCK_FILE);
        let os = |e: std::io::Error| format!("{}: {e}", path.display());
        // A holder that ends removes the file after others may have opened it: whoever
        // then gets the lock holds it on a file no longer in the folder, so it checks that
        // the file it locked is still the one under that name, and tries again if not.
        for _ in 0..100 {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(os)?;
            // SAFETY: flock only takes the descriptor, open and owned by `file`.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::EWOULDBLOCK) {
                    return Err(os(e));
                }
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                let who = if holder.is_empty() {
                    "another talus run".to_string()
                } else {
                    format!("another talus run (process {holder})")
                };
                return Err(format!(
                    "{}: {who} is writing into this folder; two runs in one folder would mix their \
                     output and checkpoints: wait for it to end, or give this run another folder (--out)",
                    dir.display()
                ));
            }
            let same = match (file.metadata(), std::fs::metadata(&path)) {
                (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
                _ => false,
            };
            if !same {
                continue;
            }
            // Who holds it, for the message a second run gives.
            file.set_len(0).map_err(os)?;
            file.rewind().map_err(os)?;
            write!(file, "{}", std::process::id()).map_err(os)?;
            return Ok(FolderLock { path, file });
        }
        Err(format!("{}: could not lock the folder", dir.display()))
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        // Removed while still locked (see `take`); the lock goes with the descriptor.
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.flush();
    }
}

/// Make `dir` a folder (with its parents), or say clearly why it cannot be one (a file
/// where a folder should be), instead of the bare "File exists (os error 17)".
pub fn ensure_folder(dir: &Path) -> Result<(), String> {
    if dir.is_dir() {
        return Ok(());
    }
    for a in dir.ancestors().filter(|a| !a.as_os_str().is_empty()) {
        if let Ok(m) = std::fs::metadata(a) {
            if m.is_dir() {
                break;
            }
            return Err(if a == dir {
                format!(
                    "{}: is a file, not a folder: name a folder for the output",
                    dir.display()
                )
            } else {
                format!(
                    "{}: cannot be made a folder, because {} is a file",
                    dir.display(),
                    a.display()
                )
            });
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot create the folder: {e}", dir.display()))
}
