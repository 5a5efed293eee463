//! The size of a core's level-2 cache, from Linux's /sys, and the pair loops' rule for
//! asking for the second particles' data ahead of their use.
//!
//! Why a rule of the machine and not of the particle count: the loops go through the
//! pairs in first-particle (Morton) order, and a pair's second particle lies in the cache
//! when the particles' arrays are few times a core's level-2 cache; past that, the
//! prefetches hide its misses. The count at which they start to pay moved with the
//! machine: on a Xeon VM with 2 MiB of L2 a core, 10^5 discs and 58,320 spheres ran 4-7 %
//! and (the loop) 22 % slower with them, 10^6 discs 8-13 % faster; on an EPYC VM with
//! 512 KiB, 10^5 discs ran 27-47 % and 58,320 spheres 4-26 % faster with them
//! (BENCHMARKS.md, "Issues 18 and 19: the prefetches by the level-2 cache"); on an EPYC
//! VM with 1 MiB, where both beds' second-particle arrays are 7.6 level-2 caches, 10^5
//! discs ran 17 % and 58,320 spheres 5 % faster with them (medians of 8 paired rounds;
//! BENCHMARKS.md, "Issue 19: the prefetch rule on a 1 MiB level-2 cache").

use std::sync::OnceLock;

/// The level-2 size assumed where /sys does not tell (that of the Xeon above).
const DEFAULT_L2: usize = 2 << 20;

/// From how many times a core's level-2 cache the arrays the pair loop reads of a
/// second particle it asks for them ahead: the measurements above (1.6, 4 and 3.5 times:
/// slower with the prefetches; 7.6, 14, 16 and 40 times: faster).
pub(crate) const PREFETCH_L2S: usize = 6;

/// The level-2 cache of the first CPU this process may run on, in bytes (a data or
/// unified cache of level 2 in its `cache/index*`), or [`DEFAULT_L2`]; read once.
pub fn level2_bytes() -> usize {
    static L2: OnceLock<usize> = OnceLock::new();
    *L2.get_or_init(|| read_level2(std::path::Path::new(crate::topology::sysfs::SYS_ROOT)).unwrap_or(DEFAULT_L2))
}

/// Whether a loop over `particles` particles, reading `bytes` of each second particle
/// (its data and loads), asks for them ahead: from [`PREFETCH_L2S`] level-2 caches.
pub(crate) fn prefetch_pays(particles: usize, bytes: usize) -> bool {
    particles.saturating_mul(bytes) >= PREFETCH_L2S * level2_bytes()
}

/// From how many times a core's level-2 cache the particles' data the force phase cuts
/// the step into waves (`parallel::waves`), and what share of it a thread's part of a
/// wave fills: measured on 2D beds (BENCHMARKS.md, issue 18), the waves paid from 10^5
/// discs (about 5 caches of 2 MiB) and cost at 10^4 (about half of one).
const WAVE_L2S: usize = 4;
const WAVE_SHARE: usize = 4;

/// Whether the force phase of `particles` particles of `bytes` each runs in waves.
pub(crate) fn waves_pay(particles: usize, bytes: usize) -> bool {
    particles.saturating_mul(bytes) >= WAVE_L2S * level2_bytes()
}

/// Particles of `bytes` each per thread and wave: a quarter of a level-2 cache, and at
/// least 1024.
pub(crate) fn wave_particles(bytes: usize) -> usize {
    (level2_bytes() / (WAVE_SHARE * bytes.max(1))).max(1024)
}

fn read_level2(sys: &std::path::Path) -> Option<usize> {
    let cpu = crate::topology::sysfs::allowed_cpus()
        .and_then(|s| s.first().copied())
        .unwrap_or(0);
    let dir = sys.join(format!("devices/system/cpu/cpu{cpu}/cache"));
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let read = |name: &str| std::fs::read_to_string(entry.path().join(name)).ok();
        let level = read("level").map(|s| s.trim().to_string());
        let kind = read("type").map(|s| s.trim().to_string());
        if level.as_deref() == Some("2") && matches!(kind.as_deref(), Some("Data" | "Unified")) {
            return read("size").and_then(|s| parse_size(&s));
        }
    }
    None
}

/// A cache size as /sys writes it: "512K", "2048K", "1M", or bytes.
fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((k, _)) => (&s[..k], &s[k..]),
        None => (s, ""),
    };
    let v: usize = digits.parse().ok()?;
    let scale = match unit {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return None,
    };
    v.checked_mul(scale).filter(|&b| b > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_as_sys_writes_them() {
        assert_eq!(parse_size("512K\n"), Some(512 << 10));
        assert_eq!(parse_size("2048K"), Some(2 << 20));
        assert_eq!(parse_size("1M"), Some(1 << 20));
        assert_eq!(parse_size("65536"), Some(65536));
        for bad in ["", "K", "12Q", "0K", "-4K"] {
            assert_eq!(parse_size(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_level2_cache_of_a_sys_tree() {
        let dir = std::env::temp_dir().join(format!("talus-cache-size-{}", std::process::id()));
        let cpu = crate::topology::sysfs::allowed_cpus()
            .and_then(|s| s.first().copied())
            .unwrap_or(0);
        let cache = dir.join(format!("devices/system/cpu/cpu{cpu}/cache"));
        for (k, level, kind, size) in [
            (0, "1", "Data", "32K"),
            (1, "1", "Instruction", "32K"),
            (2, "2", "Unified", "512K"),
            (3, "3", "Unified", "32768K"),
        ] {
            let d = cache.join(format!("index{k}"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("level"), format!("{level}\n")).unwrap();
            std::fs::write(d.join("type"), format!("{kind}\n")).unwrap();
            std::fs::write(d.join("size"), format!("{size}\n")).unwrap();
        }
        let (found, none) = (read_level2(&dir), read_level2(&dir.join("none")));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(found, Some(512 << 10));
        assert_eq!(none, None);
    }
}
