//! The machine's topology read from Linux's /sys: the default source, which needs no library.
//!
//! Packages come from each CPU's `topology/physical_package_id`, cores from
//! `topology/core_cpus_list` (the PUs that share a core; `thread_siblings_list` on kernels
//! before 5.7), NUMA nodes from `devices/system/node/node*/cpulist`. Only the online CPUs this
//! process may run on are kept, as hwloc 2 does by default, and objects are numbered in
//! hwloc's logical order (packages and cores by their first PU, NUMA nodes by OS number), so
//! both sources number the same machine the same way.

use super::Topology;
use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::Path;

/// Where the kernel mounts sysfs.
pub const SYS_ROOT: &str = "/sys";

/// Parse a kernel CPU or node list, e.g. "0-3,8,10-11" (an empty list is allowed).
pub fn parse_list(s: &str) -> Result<BTreeSet<usize>, String> {
    let mut out = BTreeSet::new();
    for part in s.trim().split(',').filter(|p| !p.is_empty()) {
        let num = |t: &str| {
            t.trim()
                .parse::<usize>()
                .map_err(|_| format!("'{s}' is not a CPU list (at '{part}')"))
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if b < a || b - a > super::MAX_PUS {
                    return Err(format!("'{s}' is not a CPU list (range '{part}')"));
                }
                out.extend(a..=b);
            }
            None => {
                out.insert(num(part)?);
            }
        }
    }
    Ok(out)
}

fn read_text(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// The CPUs this process may run on (None if the kernel will not say).
pub fn allowed_cpus() -> Option<BTreeSet<usize>> {
    // SAFETY: cpu_set_t is plain bits, zero is a valid value, and sched_getaffinity writes at
    // most size_of::<cpu_set_t>() bytes into it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return None;
        }
        let bits = 8 * std::mem::size_of::<libc::cpu_set_t>();
        Some((0..bits).filter(|&c| libc::CPU_ISSET(c, &set)).collect())
    }
}

/// Read the topology under `root` (normally "/sys"), keeping only the CPUs in `allowed`.
pub fn read(root: &Path, allowed: Option<&BTreeSet<usize>>) -> Result<Topology, String> {
    let cpu_dir = root.join("devices/system/cpu");
    let online = parse_list(&read_text(&cpu_dir.join("online"))?)
        .map_err(|e| format!("{}: {e}", cpu_dir.join("online").display()))?;
    let cpus: Vec<usize> = online
        .into_iter()
        .filter(|c| allowed.is_none_or(|a| a.contains(c)))
        .collect();
    if cpus.is_empty() {
        return Err(format!(
            "{}: no online CPU that this process may use",
            cpu_dir.display()
        ));
    }

    // CPU -> NUMA node; a kernel without NUMA support has no node folder (one node).
    let mut node_of: HashMap<usize, usize> = HashMap::new();
    let node_dir = root.join("devices/system/node");
    if let Ok(entries) = fs::read_dir(&node_dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(id) = name.strip_prefix("node").and_then(|n| n.parse::<usize>().ok()) else {
                continue;
            };
            let path = e.path().join("cpulist");
            let list = parse_list(&read_text(&path)?).map_err(|err| format!("{}: {err}", path.display()))?;
            for c in list {
                node_of.insert(c, id);
            }
        }
    }

    // (package first PU, node, core first PU, os index), keys made below.
    let mut package_id: HashMap<usize, i64> = HashMap::new();
    let mut core_first: HashMap<usize, usize> = HashMap::new();
    for &c in &cpus {
        let topo = cpu_dir.join(format!("cpu{c}/topology"));
        let pkg_path = topo.join("physical_package_id");
        // A missing topology folder (some VMs, CPU 0 on old kernels): its own package and core.
        let pkg = match fs::read_to_string(&pkg_path) {
            Ok(s) => s
                .trim()
                .parse::<i64>()
                .map_err(|_| format!("{}: '{}' is not a number", pkg_path.display(), s.trim()))?,
            Err(_) => -1 - c as i64,
        };
        package_id.insert(c, pkg);
        let siblings = ["core_cpus_list", "thread_siblings_list"]
            .iter()
            .find_map(|f| fs::read_to_string(topo.join(f)).ok());
        let first = match siblings {
            Some(s) => parse_list(&s)
                .map_err(|e| format!("{}: {e}", topo.display()))?
                .into_iter()
                .find(|s| cpus.contains(s))
                .unwrap_or(c),
            None => c,
        };
        core_first.insert(c, first);
    }
    // A package is numbered by its first allowed PU, as hwloc orders objects by cpuset.
    let mut package_first: HashMap<i64, usize> = HashMap::new();
    for &c in &cpus {
        let e = package_first.entry(package_id[&c]).or_insert(c);
        *e = (*e).min(c);
    }
    let mut raw: Vec<(usize, usize, usize, usize)> = cpus
        .iter()
        .map(|&c| {
            (
                package_first[&package_id[&c]],
                node_of.get(&c).copied().unwrap_or(0),
                core_first[&c],
                c,
            )
        })
        .collect();
    raw.sort_unstable();
    Ok(super::numbered(raw))
}

#[cfg(test)]
mod tests {
    use super::super::Pu;
    use super::*;

    #[test]
    fn sysfs_cpu_lists() {
        assert_eq!(
            parse_list("0-3,8,10-11\n").unwrap().into_iter().collect::<Vec<_>>(),
            [0, 1, 2, 3, 8, 10, 11]
        );
        assert!(parse_list("").unwrap().is_empty());
        assert!(parse_list("3-1").is_err());
        assert!(parse_list("a").is_err());
    }

    /// Write a fake /sys for `pus`: (os index, package id, core sibling list, node).
    fn fake_sys(dir: &Path, online: &str, pus: &[(usize, usize, &str, usize)]) {
        let cpu = dir.join("devices/system/cpu");
        fs::create_dir_all(&cpu).unwrap();
        fs::write(cpu.join("online"), format!("{online}\n")).unwrap();
        let mut nodes: HashMap<usize, Vec<usize>> = HashMap::new();
        for &(c, pkg, sib, node) in pus {
            let t = cpu.join(format!("cpu{c}/topology"));
            fs::create_dir_all(&t).unwrap();
            fs::write(t.join("physical_package_id"), format!("{pkg}\n")).unwrap();
            fs::write(t.join("thread_siblings_list"), format!("{sib}\n")).unwrap();
            nodes.entry(node).or_default().push(c);
        }
        for (n, cs) in nodes {
            let d = dir.join(format!("devices/system/node/node{n}"));
            fs::create_dir_all(&d).unwrap();
            let list: Vec<String> = cs.iter().map(|c| c.to_string()).collect();
            fs::write(d.join("cpulist"), list.join(",")).unwrap();
        }
    }

    #[test]
    fn sysfs_two_packages_smt_numbered_like_hwloc() {
        // Two packages of two SMT cores each; Linux numbers SMT siblings apart (0 and 4).
        let dir = std::env::temp_dir().join(format!("talus-sysfs-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fake_sys(
            &dir,
            "0-7",
            &[
                (0, 0, "0,4", 0),
                (1, 0, "1,5", 0),
                (2, 1, "2,6", 1),
                (3, 1, "3,7", 1),
                (4, 0, "0,4", 0),
                (5, 0, "1,5", 0),
                (6, 1, "2,6", 1),
                (7, 1, "3,7", 1),
            ],
        );
        let t = read(&dir, None).unwrap();
        assert_eq!(t.summary(), "2 packages, 2 NUMA nodes, 4 cores, 8 PUs (SMT 2)");
        let os: Vec<usize> = t.pus.iter().map(|p| p.os_index).collect();
        assert_eq!(os, [0, 4, 1, 5, 2, 6, 3, 7]);
        assert_eq!(
            t.pus[2],
            Pu {
                os_index: 1,
                core: 1,
                numa: 0,
                package: 0
            }
        );
        assert_eq!(
            t.pus[7],
            Pu {
                os_index: 7,
                core: 3,
                numa: 1,
                package: 1
            }
        );
        // The process may use only CPUs 2, 3 and 6: package 1 alone, renumbered from 0.
        let allowed: BTreeSet<usize> = [2, 3, 6].into();
        let t = read(&dir, Some(&allowed)).unwrap();
        assert_eq!(
            t.summary(),
            "1 package, 1 NUMA node, 2 cores, 3 PUs (SMT, 1 to 2 PUs per core)"
        );
        assert_eq!(
            t.pus[0],
            Pu {
                os_index: 2,
                core: 0,
                numa: 0,
                package: 0
            }
        );
        fs::remove_dir_all(&dir).unwrap();
        // A root with no CPU folder is an error naming the file.
        let e = read(Path::new("/nonexistent-talus"), None).unwrap_err();
        assert!(e.contains("/nonexistent-talus/devices/system/cpu/online"), "{e}");
    }
}
