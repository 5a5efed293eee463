//! glibc's allocator in transparent huge pages: `talus` starts itself again with
//! `GLIBC_TUNABLES=glibc.malloc.hugetlb=1` (glibc 2.35 and later), unless the user set
//! `TALUS_HUGE_PAGES` (`0`: never) or already chose that tunable.
//!
//! Why: the pair loops read the second particle of each pair from ten arrays; in 4 KB
//! pages those reads miss the TLB once the arrays outgrow its reach (10^6 discs: 8 MB an
//! array). The tunable makes malloc advise its heap and its large blocks for huge pages
//! (`madvise(MADV_HUGEPAGE)`), which kernels whose `transparent_hugepage/enabled` is
//! `madvise`, a common default, give only where asked: 10^5 and 10^6 discs run 4-6 %
//! faster on one core, with no more memory (BENCHMARKS.md, issue 18 item 6). Advising
//! each large block from a `#[global_allocator]` was tried first: the 10^5 bed's arrays
//! (800 KB each) hold no whole huge page of their own, and only 10^6 gained (3 %).
//! The tunable is read once, when the program is loaded: hence the new start.

/// The variable that turns this off (`0`) and marks the new start (`1`), so that it
/// happens once.
const SWITCH: &str = "TALUS_HUGE_PAGES";

/// glibc's tunable: malloc's blocks and heap advised for transparent huge pages.
const TUNABLE: &str = "glibc.malloc.hugetlb";

/// Start this program again with the tunable set, if it is not set and the user did not
/// say otherwise; returns only where it is not done (or could not be: the program then
/// runs on as it is).
pub fn restart_with_huge_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::os::unix::process::CommandExt;
        if std::env::var_os(SWITCH).is_some() {
            return;
        }
        let tunables = std::env::var_os("GLIBC_TUNABLES").unwrap_or_default();
        let Some(new) = with_tunable(&tunables.to_string_lossy()) else {
            return;
        };
        let mut args = std::env::args_os();
        let arg0 = args.next().unwrap_or_default();
        // exec returns only if it failed (no /proc, say): run on without the tunable.
        let _ = std::process::Command::new("/proc/self/exe")
            .arg0(arg0)
            .args(args)
            .env("GLIBC_TUNABLES", new)
            .env(SWITCH, "1")
            .exec();
    }
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
