//! glibc's allocator in transparent huge pages: `talus` starts itself again, once, with
//! `GLIBC_TUNABLES=glibc.malloc.hugetlb=1` (glibc 2.35 and later; older ones ignore it),
//! where the kernel gives huge pages only on request, unless `TALUS_HUGE_PAGES=0` or the
//! user's `GLIBC_TUNABLES` already chooses that tunable.
//!
//! Why: the pair loops read the second particle of each pair from seven arrays and add
//! its forces into three more; in 4 KB pages those accesses miss the TLB once the arrays
//! outgrow its reach (10^6 discs: 8 MB an array). The tunable makes malloc advise its heap
//! and its large blocks for huge pages (`madvise(MADV_HUGEPAGE)`), which a kernel whose
//! `transparent_hugepage/enabled` is `madvise`, a common default, gives only where asked:
//! one core runs 10^4 / 10^5 / 10^6 discs 4 / 7 / 10 % faster, the 10^5 bed in less memory
//! (BENCHMARKS.md, "Issue 18, item 6: huge pages"). Advising each large block from a
//! `#[global_allocator]` was tried first: the 10^5 bed's arrays (800 KB each) hold no whole
//! huge page of their own, and only 10^6 gained. The tunable is read once, when the
//! program is loaded: hence the new start.
//!
//! Not restarted: under a tool that runs talus inside itself (valgrind: the program the
//! kernel loaded is not the file `current_exe` names) or started through the dynamic
//! loader by hand (no interpreter base in the auxiliary vector); those run as they are.

/// The variable that turns this off (`0`), and marks the new start ([`RESTARTED`]).
const SWITCH: &str = "TALUS_HUGE_PAGES";

/// The value of [`SWITCH`] in the new start: it happens once.
const RESTARTED: &str = "restarted";

/// glibc's tunable: malloc's blocks and heap advised for transparent huge pages.
const TUNABLE: &str = "glibc.malloc.hugetlb";

/// Start this program again with the tunable set, where that helps and the user did not
/// say otherwise; returns only where it is not done (or could not be: the program then
/// runs on as it is).
pub fn restart_with_huge_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::os::unix::fs::MetadataExt;
        use std::os::unix::process::CommandExt;
        if std::env::var_os(SWITCH).is_some_and(|v| v == "0" || v == RESTARTED) {
            return;
        }
        // Only the kernel's `madvise` mode gives huge pages on request and not otherwise.
        let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
        if !mode.contains("[madvise]") {
            return;
        }
        // A value that is not UTF-8 is the user's to keep as it is.
        let Some(tunables) = std::env::var_os("GLIBC_TUNABLES").map_or(Some(String::new()), |t| t.into_string().ok())
        else {
            return;
        };
        let Some(new) = with_tunable(&tunables) else {
            return;
        };
        let Ok(exe) = std::env::current_exe() else {
            return;
        };
        let same_file = |a: &std::fs::Metadata, b: &std::fs::Metadata| a.dev() == b.dev() && a.ino() == b.ino();
        match (std::fs::metadata("/proc/self/exe"), std::fs::metadata(&exe)) {
            (Ok(loaded), Ok(named)) if same_file(&loaded, &named) => {}
            _ => return,
        }
        // SAFETY: getauxval reads the process's auxiliary vector; it has no preconditions.
        if unsafe { libc::getauxval(libc::AT_BASE) } == 0 {
            return;
        }
        let mut args = std::env::args_os();
        let arg0 = args.next().unwrap_or_default();
        // exec returns only if it failed: run on without the tunable.
        let _ = std::process::Command::new(exe)
            .arg0(arg0)
            .args(args)
            .env("GLIBC_TUNABLES", new)
            .env(SWITCH, RESTARTED)
            .exec();
    }
}

/// Whether this is the new start, with the tunable set (so the program runs in huge
/// pages: the big blocks are advised too, `big_blocks.rs`).
pub fn in_huge_pages() -> bool {
    std::env::var_os(SWITCH).is_some_and(|v| v == RESTARTED)
}

/// `GLIBC_TUNABLES` with the huge-page tunable added, or `None` if it names it already
/// (the user's choice stands).
fn with_tunable(tunables: &str) -> Option<String> {
    if tunables.split(':').any(|t| t.split('=').next() == Some(TUNABLE)) {
        return None;
    }
    Some(if tunables.is_empty() {
        format!("{TUNABLE}=1")
    } else {
        format!("{tunables}:{TUNABLE}=1")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tunable_is_added_unless_the_user_chose_it() {
        assert_eq!(with_tunable("").as_deref(), Some("glibc.malloc.hugetlb=1"));
        assert_eq!(
            with_tunable("glibc.malloc.arena_max=2").as_deref(),
            Some("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1")
        );
        assert_eq!(with_tunable("glibc.malloc.hugetlb=0"), None);
        assert_eq!(with_tunable("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=2"), None);
    }
}
