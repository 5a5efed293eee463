//! Machine topology (packages, NUMA nodes, cores, processing units) and thread placement.
//!
//! The placement logic is a pure function of a plain description ([`Topology`]), which comes
//! either from hwloc ([`Topology::detect`]) or from hwloc's synthetic syntax
//! ([`Topology::parse_synthetic`]), so that large machines can be tested on this small one.

#[cfg(feature = "hwloc")]
mod hwloc;
pub mod sysfs;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::str::FromStr;

/// One processing unit (hardware thread) and where it sits.
///
/// `core`, `numa` and `package` are indices counted over the whole machine (0, 1, ...), not
/// per parent; `os_index` is the number the OS uses for binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pu {
    /// The number the OS uses for binding.
    pub os_index: usize,
    /// Core index over the whole machine.
    pub core: usize,
    /// NUMA node index over the whole machine.
    pub numa: usize,
    /// Package (socket) index over the whole machine.
    pub package: usize,
}

/// A machine: its PUs in hwloc's logical order (package, then NUMA node, then core, then PU).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    /// The processing units, in hwloc's logical order.
    pub pus: Vec<Pu>,
}

/// Where [`Topology::detect`] got the machine's description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TopologySource {
    /// hwloc (built with the `hwloc` feature).
    Hwloc,
    /// Linux's /sys (the default build).
    Sysfs,
    /// Linux's /sys, because hwloc failed with this message.
    SysfsAfterHwlocFailed(String),
}

impl fmt::Display for TopologySource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TopologySource::Hwloc => write!(f, "hwloc"),
            TopologySource::Sysfs => write!(f, "Linux /sys (built without the hwloc feature)"),
            TopologySource::SysfsAfterHwlocFailed(e) => write!(f, "Linux /sys (hwloc failed: {e})"),
        }
    }
}

/// Number sorted raw PUs (package key, NUMA key, core key, OS index): packages and cores
/// densely in order of appearance, NUMA nodes densely in key order, as both sources need.
fn numbered(raw: Vec<(usize, usize, usize, usize)>) -> Topology {
    fn dense<K: Eq + std::hash::Hash>(keys: impl Iterator<Item = K>) -> Vec<usize> {
        let mut seen: HashMap<K, usize> = HashMap::new();
        keys.map(|k| {
            let next = seen.len();
            *seen.entry(k).or_insert(next)
        })
        .collect()
    }
    let packages = dense(raw.iter().map(|r| r.0));
    let mut numa_ids: Vec<usize> = raw.iter().map(|r| r.1).collect();
    numa_ids.sort_unstable();
    numa_ids.dedup();
    let cores = dense(raw.iter().map(|r| (r.0, r.2)));
    let pus = raw
        .iter()
        .enumerate()
        .map(|(i, r)| Pu {
            os_index: r.3,
            core: cores[i],
            numa: numa_ids.binary_search(&r.1).unwrap_or(0),
            package: packages[i],
        })
        .collect();
    Topology { pus }
}

/// More PUs than any real machine: guards against allocating billions for a typo.
const MAX_PUS: usize = 1 << 16;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Package,
    Numa,
    Core,
    Pu,
}

/// A synthetic level: one of ours, or one (cache, group) that only multiplies the levels below it.
#[derive(Clone, PartialEq, Eq)]
enum Word {
    Level(Level),
    Other(String),
}

fn parse_word(name: &str) -> Option<Word> {
    let n = name.to_ascii_lowercase();
    let level = match n.as_str() {
        "pack" | "package" | "socket" => Some(Level::Package),
        "numa" | "node" | "numanode" => Some(Level::Numa),
        "core" => Some(Level::Core),
        "pu" => Some(Level::Pu),
        _ => None,
    };
    if let Some(l) = level {
        return Some(Word::Level(l));
    }
    if n == "group" {
        return Some(Word::Other(n));
    }
    // Caches: l1..l5, optionally with d/u/i or "cache" (l2, l2d, l3cache, l1i, ...).
    let b = n.as_bytes();
    if b.len() >= 2 && b[0] == b'l' && (b'1'..=b'5').contains(&b[1]) {
        let kind = match &n[2..] {
            "" | "d" | "u" | "cache" | "dcache" | "ucache" => Some(""),
            "i" | "icache" => Some("i"),
            _ => None,
        };
        if let Some(kind) = kind {
            return Some(Word::Other(format!("l{}{kind}", b[1] as char)));
        }
    }
    None
}

impl Topology {
    /// Parse hwloc's synthetic syntax, e.g. "pack:2 numa:2 core:8 pu:2".
    ///
    /// Each count is per object of the level above, as in hwloc; a missing level counts as 1.
    /// Caches (l1..l5) and groups are not recorded but multiply the levels below them, as in
    /// hwloc ("pack:1 l3:2 core:4 pu:1" has 8 cores). Unlike hwloc, the PU level may be left
    /// out, and NUMA nodes must sit inside packages.
    pub fn parse_synthetic(s: &str) -> Result<Topology, String> {
        // Objects per machine at each of our levels, filled in as the words come.
        let mut total: [Option<usize>; 4] = [None; 4];
        let mut seen: Vec<(Word, &str)> = Vec::new();
        let mut last_level: Option<(Level, &str)> = None;
        let mut product: usize = 1;
        for tok in s.split_whitespace() {
            let (name, count) = tok
                .split_once(':')
                .ok_or_else(|| format!("synthetic topology: '{tok}' is not of the form name:count"))?;
            let word = parse_word(name).ok_or_else(|| {
                format!(
                    "synthetic topology: unknown level '{name}' in '{tok}' \
                     (expected pack/package, numa/node/numanode, core, pu, group or a cache l1..l5)"
                )
            })?;
            let n: usize = count
                .parse()
                .map_err(|_| format!("synthetic topology: the count in '{tok}' is not a positive whole number"))?;
            if n == 0 {
                return Err(format!("synthetic topology: the count in '{tok}' is zero"));
            }
            if let Some((_, prev)) = seen.iter().find(|(w, _)| *w == word) {
                return Err(format!("synthetic topology: '{tok}' repeats the level of '{prev}'"));
            }
            if let Some((l, prev)) = last_level {
                let out_of_order = match &word {
                    Word::Level(w) => *w <= l,
                    // Nothing sits below a PU.
                    Word::Other(_) => l == Level::Pu,
                };
                if out_of_order {
                    return Err(format!(
                        "synthetic topology: '{tok}' must come before '{prev}' \
                         (levels go package, numa, core, pu from the top)"
                    ));
                }
            }
            product = product
                .checked_mul(n)
                .filter(|&p| p <= MAX_PUS)
                .ok_or_else(|| format!("synthetic topology: more than {MAX_PUS} objects at '{tok}'"))?;
            if let Word::Level(l) = word {
                total[l as usize] = Some(product);
                last_level = Some((l, tok));
            }
            seen.push((word, tok));
        }
        if seen.is_empty() {
            return Err("synthetic topology: empty description (expected e.g. \"pack:2 numa:2 core:8 pu:2\")".into());
        }
        // A missing level has one object per parent, placed right under the level above (so it
        // takes that level's count); a missing PU level is the bottom of the tree.
        let packs = total[Level::Package as usize].unwrap_or(1);
        let numas = total[Level::Numa as usize].unwrap_or(packs);
        let cores = total[Level::Core as usize].unwrap_or(numas);
        let pus = total[Level::Pu as usize].unwrap_or(product);
        let pus_per = |c: usize| pus / c;
        let topo = Topology {
            pus: (0..pus)
                .map(|i| Pu {
                    os_index: i,
                    core: i / pus_per(cores),
                    numa: i / pus_per(numas),
                    package: i / pus_per(packs),
                })
                .collect(),
        };
        Ok(topo)
    }

    /// This machine, and where its description came from: hwloc when talus is built with the
    /// `hwloc` feature and the library loads it, Linux's /sys otherwise.
    pub fn detect() -> Result<(Topology, TopologySource), String> {
        let from_sys = || sysfs::read(std::path::Path::new(sysfs::SYS_ROOT), sysfs::allowed_cpus().as_ref());
        #[cfg(feature = "hwloc")]
        let found = match hwloc::read() {
            Ok(t) => (t, TopologySource::Hwloc),
            Err(e) => {
                let t = from_sys().map_err(|s| format!("{e}; and /sys: {s}"))?;
                (t, TopologySource::SysfsAfterHwlocFailed(e))
            }
        };
        #[cfg(not(feature = "hwloc"))]
        let found = (from_sys()?, TopologySource::Sysfs);
        Ok(found)
    }

    fn distinct(&self, f: impl Fn(&Pu) -> usize) -> usize {
        self.pus.iter().map(f).collect::<HashSet<_>>().len()
    }

    /// Number of packages (sockets).
    pub fn packages(&self) -> usize {
        self.distinct(|p| p.package)
    }

    /// Number of NUMA nodes.
    pub fn numa_nodes(&self) -> usize {
        self.distinct(|p| p.numa)
    }

    /// Number of cores.
    pub fn cores(&self) -> usize {
        self.distinct(|p| p.core)
    }

    /// Number of processing units (hardware threads).
    pub fn pu_count(&self) -> usize {
        self.pus.len()
    }

    /// One line, e.g. "1 package, 1 NUMA node, 2 cores, 2 PUs (no SMT)".
    pub fn summary(&self) -> String {
        let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut per_core: Vec<usize> = self.core_groups().iter().map(|g| g.len()).collect();
        per_core.sort_unstable();
        per_core.dedup();
        let smt = match per_core.as_slice() {
            [] | [1] => "no SMT".to_string(),
            [k] => format!("SMT {k}"),
            [lo, .., hi] => format!("SMT, {lo} to {hi} PUs per core"),
        };
        format!(
            "{}, {}, {}, {} ({smt})",
            plural(self.packages(), "package", "packages"),
            plural(self.numa_nodes(), "NUMA node", "NUMA nodes"),
            plural(self.cores(), "core", "cores"),
            plural(self.pu_count(), "PU", "PUs"),
        )
    }

    /// The PUs by package, NUMA node and core, one core a line (PU numbers are OS indices).
    pub fn tree(&self) -> String {
        let mut out = String::new();
        for pack in groups(&(0..self.pus.len()).collect::<Vec<_>>(), |i| self.pus[i].package) {
            out += &format!("package {}\n", self.pus[pack[0]].package);
            for node in groups(&pack, |i| self.pus[i].numa) {
                out += &format!("  NUMA node {}\n", self.pus[node[0]].numa);
                for core in groups(&node, |i| self.pus[i].core) {
                    let list: Vec<String> = core.iter().map(|&i| self.pus[i].os_index.to_string()).collect();
                    let word = if core.len() == 1 { "PU" } else { "PUs" };
                    out += &format!("    core {}: {word} {}\n", self.pus[core[0]].core, list.join(", "));
                }
            }
        }
        out
    }

    /// Positions in `pus` of each core's PUs, cores in order of appearance.
    fn core_groups(&self) -> Vec<Vec<usize>> {
        groups(&(0..self.pus.len()).collect::<Vec<_>>(), |i| self.pus[i].core)
    }
}

/// Split `items` by `key`, groups in order of first appearance, items in their order.
fn groups(items: &[usize], key: impl Fn(usize) -> usize) -> Vec<Vec<usize>> {
    let mut index: HashMap<usize, usize> = HashMap::new();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for &i in items {
        let g = *index.entry(key(i)).or_insert_with(|| {
            out.push(Vec::new());
            out.len() - 1
        });
        out[g].push(i);
    }
    out
}

/// Round robin over the lists: the first of each, then the second of each, ...
fn interleave(lists: Vec<Vec<usize>>) -> Vec<usize> {
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    (0..longest)
        .flat_map(|k| lists.iter().filter_map(move |l| l.get(k).copied()))
        .collect()
}

/// Positions in `pus` in scatter order: consecutive entries in different packages, then
/// different NUMA nodes, then different cores (the tree is walked round robin at each level).
fn scatter_order(topo: &Topology) -> Vec<usize> {
    let pus = &topo.pus;
    let all: Vec<usize> = (0..pus.len()).collect();
    let per_package = groups(&all, |i| pus[i].package)
        .into_iter()
        .map(|pack| {
            let per_node = groups(&pack, |i| pus[i].numa)
                .into_iter()
                .map(|node| interleave(groups(&node, |i| pus[i].core)))
                .collect();
            interleave(per_node)
        })
        .collect();
    interleave(per_package)
}

/// Thread placement policies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Fill a core's PUs, then the next core, in logical order.
    Compact,
    /// Spread over packages, then NUMA nodes, then cores, then PUs.
    Scatter,
    /// One thread per physical core (its first PU), cores in logical order.
    Cores,
    /// No pinning.
    None,
    /// These PUs (OS indices), thread i on the i-th.
    List(Vec<usize>),
}

impl FromStr for Placement {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        match t.to_ascii_lowercase().as_str() {
            "compact" => return Ok(Placement::Compact),
            "scatter" => return Ok(Placement::Scatter),
            "cores" => return Ok(Placement::Cores),
            "none" => return Ok(Placement::None),
            _ => {}
        }
        let bad = || {
            format!("placement '{s}': expected compact, scatter, cores, none or a comma list of PU numbers like 0,2,4")
        };
        let (prefix, list) = match t.get(..5) {
            Some(p) if p.eq_ignore_ascii_case("list:") => (true, &t[5..]),
            _ => (false, t),
        };
        // "list:" alone is the empty list, so that Display round-trips for it.
        if list.trim().is_empty() {
            return if prefix {
                Ok(Placement::List(Vec::new()))
            } else {
                Err(bad())
            };
        }
        list.split(',')
            .map(|x| x.trim().parse::<usize>().map_err(|_| bad()))
            .collect::<Result<_, _>>()
            .map(Placement::List)
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Placement::Compact => f.write_str("compact"),
            Placement::Scatter => f.write_str("scatter"),
            Placement::Cores => f.write_str("cores"),
            Placement::None => f.write_str("none"),
            Placement::List(l) if l.is_empty() => f.write_str("list:"),
            Placement::List(l) => {
                let s: Vec<String> = l.iter().map(usize::to_string).collect();
                f.write_str(&s.join(","))
            }
        }
    }
}

/// The PU (OS index) each of `threads` threads is pinned to, or None for every thread with
/// Placement::None. A pure function of the topology description.
pub fn plan(topo: &Topology, policy: &Placement, threads: usize) -> Result<Vec<Option<usize>>, String> {
    if threads == 0 {
        return Err(format!("{policy} placement: 0 threads requested (need at least 1)"));
    }
    let n_pus = topo.pu_count();
    let too_many = |unit: &str, have: usize| {
        format!("{policy} placement: {threads} threads, but only {have} {unit}s (at most one thread per {unit})")
    };
    let by_position = |pos: &[usize]| pos.iter().take(threads).map(|&i| Some(topo.pus[i].os_index)).collect();
    match policy {
        Placement::None => Ok(vec![None; threads]),
        Placement::Compact => {
            if threads > n_pus {
                return Err(too_many("PU", n_pus));
            }
            Ok(by_position(&(0..n_pus).collect::<Vec<_>>()))
        }
        Placement::Scatter => {
            if threads > n_pus {
                return Err(too_many("PU", n_pus));
            }
            Ok(by_position(&scatter_order(topo)))
        }
        Placement::Cores => {
            let firsts: Vec<usize> = topo.core_groups().iter().map(|g| g[0]).collect();
            if threads > firsts.len() {
                return Err(too_many("core", firsts.len()));
            }
            Ok(by_position(&firsts))
        }
        Placement::List(list) => {
            if list.len() < threads {
                return Err(format!(
                    "PU list {policy}: {threads} threads need {threads} PUs but the list has {}",
                    list.len()
                ));
            }
            let mut seen = HashSet::new();
            for &p in list {
                if !seen.insert(p) {
                    return Err(format!("PU list {policy}: PU {p} appears more than once"));
                }
                if !topo.pus.iter().any(|q| q.os_index == p) {
                    return Err(format!("PU list {policy}: this machine has no PU {p}"));
                }
            }
            Ok(list[..threads].iter().map(|&p| Some(p)).collect())
        }
    }
}

/// A text table of the thread -> PU (and core/numa/package) map of each policy for each thread
/// count, for `talus scale --dry-run`; entries that are errors are shown as the error text.
pub fn placement_table(topo: &Topology, policies: &[Placement], threads: &[usize]) -> String {
    let mut out = String::new();
    for policy in policies {
        for &n in threads {
            out += &format!("{policy}, {n} thread{}:\n", if n == 1 { "" } else { "s" });
            match plan(topo, policy, n) {
                Err(e) => out += &format!("  error: {e}\n"),
                Ok(map) => {
                    out += &format!(
                        "  {:>6} {:>5} {:>5} {:>5} {:>7}\n",
                        "thread", "PU", "core", "NUMA", "package"
                    );
                    for (t, pu) in map.iter().enumerate() {
                        match pu.and_then(|os| topo.pus.iter().find(|p| p.os_index == os)) {
                            Some(p) => {
                                out += &format!(
                                    "  {t:>6} {:>5} {:>5} {:>5} {:>7}\n",
                                    p.os_index, p.core, p.numa, p.package
                                )
                            }
                            None => out += &format!("  {t:>6} {:>5}\n", "-"),
                        }
                    }
                }
            }
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn syn(s: &str) -> Topology {
        Topology::parse_synthetic(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn counts(t: &Topology) -> [usize; 4] {
        [t.packages(), t.numa_nodes(), t.cores(), t.pu_count()]
    }

    fn pinned(v: &[usize]) -> Vec<Option<usize>> {
        v.iter().map(|&x| Some(x)).collect()
    }

    fn plan_ok(t: &Topology, p: Placement, n: usize) -> Vec<Option<usize>> {
        plan(t, &p, n).unwrap_or_else(|e| panic!("{p} {n}: {e}"))
    }

    fn plan_err(t: &Topology, p: Placement, n: usize) -> String {
        match plan(t, &p, n) {
            Ok(v) => panic!("{p} with {n} threads should fail, gave {v:?}"),
            Err(e) => e,
        }
    }

    fn parse_err(s: &str) -> String {
        match Topology::parse_synthetic(s) {
            Ok(t) => panic!("'{s}' should not parse, gave {t:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn topology_parse_counts() {
        assert_eq!(counts(&syn("pack:2 numa:2 core:8 pu:2")), [2, 4, 32, 64]);
        assert_eq!(counts(&syn("Package:2 NUMANode:2 CORE:8 Pu:2")), [2, 4, 32, 64]);
        assert_eq!(counts(&syn("  socket:2   node:1 core:3 pu:1 ")), [2, 2, 6, 6]);
        assert_eq!(counts(&syn("pack:1 core:2 pu:1")), [1, 1, 2, 2]);
        assert_eq!(counts(&syn("core:4")), [1, 1, 4, 4]);
        assert_eq!(counts(&syn("pu:4")), [1, 1, 1, 4]);
        assert_eq!(counts(&syn("numa:2 pu:3")), [1, 2, 2, 6]);
        // Caches and groups multiply the levels below them, as in hwloc (checked with hwloc 2.9).
        assert_eq!(counts(&syn("pack:1 l3:1 l2:4 core:1 pu:2")), [1, 1, 4, 8]);
        assert_eq!(counts(&syn("pack:1 L3:2 core:4 pu:1")), [1, 1, 8, 8]);
        assert_eq!(counts(&syn("l3:2 pack:2 core:1 pu:1")), [4, 4, 4, 4]);
        assert_eq!(
            counts(&syn("pack:1 group:2 l2cache:2 l1d:1 l1i:1 core:1 pu:1")),
            [1, 1, 4, 4]
        );
    }

    #[test]
    fn topology_parse_labels() {
        let t = syn("pack:2 numa:2 core:2 pu:2");
        let expect: Vec<(usize, usize, usize, usize)> = vec![
            (0, 0, 0, 0),
            (1, 0, 0, 0),
            (2, 1, 0, 0),
            (3, 1, 0, 0),
            (4, 2, 1, 0),
            (5, 2, 1, 0),
            (6, 3, 1, 0),
            (7, 3, 1, 0),
            (8, 4, 2, 1),
            (9, 4, 2, 1),
            (10, 5, 2, 1),
            (11, 5, 2, 1),
            (12, 6, 3, 1),
            (13, 6, 3, 1),
            (14, 7, 3, 1),
            (15, 7, 3, 1),
        ];
        let got: Vec<_> = t.pus.iter().map(|p| (p.os_index, p.core, p.numa, p.package)).collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn topology_parse_errors() {
        let cases: &[(&str, &str)] = &[
            ("", "empty"),
            ("   ", "empty"),
            ("pack:2 foo:3", "foo"),
            ("machine:1 core:2", "machine"),
            ("core", "'core'"),
            ("2 4", "'2'"),
            ("core:0", "core:0"),
            ("core:x", "core:x"),
            ("core:-1", "core:-1"),
            ("core:", "'core:'"),
            ("core:2.5", "core:2.5"),
            ("pack:2(indexes=0,1) core:1", "pack:2(indexes=0,1)"),
            ("pack:1 pack:2", "pack:2"),
            ("pack:1 package:2", "package:2"),
            ("l2:1 core:2 l2:2", "l2:2"),
            ("core:2 pack:1", "pack:1"),
            ("numa:2 pack:2 core:2", "pack:2"),
            ("pu:2 l2:1", "l2:1"),
            ("pu:2 core:1", "core:1"),
            ("core:99999999999999999999", "core:99999999999999999999"),
            ("pack:1024 core:1024 pu:1024", "core:1024"),
        ];
        for (s, needle) in cases {
            let e = parse_err(s);
            assert!(e.contains(needle), "error for '{s}' should name '{needle}': {e}");
        }
    }

    #[test]
    fn topology_summary_and_tree() {
        let t = syn("pack:1 core:2 pu:1");
        assert_eq!(t.summary(), "1 package, 1 NUMA node, 2 cores, 2 PUs (no SMT)");
        assert_eq!(
            t.tree(),
            "package 0\n  NUMA node 0\n    core 0: PU 0\n    core 1: PU 1\n"
        );
        let t = syn("pack:2 numa:2 core:1 pu:2");
        assert_eq!(t.summary(), "2 packages, 4 NUMA nodes, 4 cores, 8 PUs (SMT 2)");
        assert_eq!(
            t.tree(),
            "package 0\n  NUMA node 0\n    core 0: PUs 0, 1\n  NUMA node 1\n    core 1: PUs 2, 3\n\
             package 1\n  NUMA node 2\n    core 2: PUs 4, 5\n  NUMA node 3\n    core 3: PUs 6, 7\n"
        );
    }

    #[test]
    fn topology_plan_this_machine_shape() {
        let t = syn("pack:1 core:2 pu:1");
        assert_eq!(plan_ok(&t, Placement::Compact, 1), pinned(&[0]));
        assert_eq!(plan_ok(&t, Placement::Compact, 2), pinned(&[0, 1]));
        assert_eq!(plan_ok(&t, Placement::Scatter, 2), pinned(&[0, 1]));
        assert_eq!(plan_ok(&t, Placement::Cores, 2), pinned(&[0, 1]));
        assert_eq!(plan_ok(&t, Placement::None, 3), vec![None, None, None]);
        assert_eq!(plan_ok(&t, Placement::List(vec![1, 0]), 2), pinned(&[1, 0]));
        assert_eq!(plan_ok(&t, Placement::List(vec![1, 0]), 1), pinned(&[1]));
        for p in [Placement::Compact, Placement::Scatter] {
            let e = plan_err(&t, p, 3);
            assert!(e.contains("3 threads") && e.contains("only 2 PUs"), "{e}");
        }
        let e = plan_err(&t, Placement::Cores, 3);
        assert!(e.contains("3 threads") && e.contains("only 2 cores"), "{e}");
        for p in [
            Placement::Compact,
            Placement::Scatter,
            Placement::Cores,
            Placement::None,
            Placement::List(vec![0]),
        ] {
            assert!(plan_err(&t, p, 0).contains("0 threads"));
        }
        assert!(plan_err(&t, Placement::List(vec![1]), 2).contains("list has 1"));
        assert!(plan_err(&t, Placement::List(vec![0, 0]), 1).contains("PU 0 appears more than once"));
        assert!(plan_err(&t, Placement::List(vec![0, 2]), 1).contains("no PU 2"));
    }

    #[test]
    fn topology_plan_two_packages_two_numa() {
        let t = syn("pack:2 numa:2 core:8 pu:2");
        assert_eq!(plan_ok(&t, Placement::Compact, 5), pinned(&[0, 1, 2, 3, 4]));
        assert_eq!(
            plan_ok(&t, Placement::Compact, 64),
            pinned(&(0..64).collect::<Vec<_>>())
        );
        // One per package, then one per NUMA node.
        assert_eq!(plan_ok(&t, Placement::Scatter, 2), pinned(&[0, 32]));
        assert_eq!(plan_ok(&t, Placement::Scatter, 4), pinned(&[0, 32, 16, 48]));
        #[rustfmt::skip]
        let scatter64 = [
            0, 32, 16, 48, 2, 34, 18, 50, 4, 36, 20, 52, 6, 38, 22, 54,
            8, 40, 24, 56, 10, 42, 26, 58, 12, 44, 28, 60, 14, 46, 30, 62,
            1, 33, 17, 49, 3, 35, 19, 51, 5, 37, 21, 53, 7, 39, 23, 55,
            9, 41, 25, 57, 11, 43, 27, 59, 13, 45, 29, 61, 15, 47, 31, 63,
        ];
        assert_eq!(plan_ok(&t, Placement::Scatter, 64), pinned(&scatter64));
        assert_eq!(plan_ok(&t, Placement::Scatter, 9), pinned(&scatter64[..9]));
        assert_eq!(plan_ok(&t, Placement::Cores, 3), pinned(&[0, 2, 4]));
        #[rustfmt::skip]
        let cores32 = [
            0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30,
            32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62,
        ];
        assert_eq!(plan_ok(&t, Placement::Cores, 32), pinned(&cores32));
        assert_eq!(plan_ok(&t, Placement::None, 2), vec![None, None]);
        assert_eq!(plan_ok(&t, Placement::List(vec![63, 0, 17]), 3), pinned(&[63, 0, 17]));
        let e = plan_err(&t, Placement::Cores, 33);
        assert!(e.contains("33 threads") && e.contains("only 32 cores"), "{e}");
        let e = plan_err(&t, Placement::Compact, 65);
        assert!(e.contains("65 threads") && e.contains("only 64 PUs"), "{e}");
        let e = plan_err(&t, Placement::Scatter, 65);
        assert!(e.contains("65 threads") && e.contains("only 64 PUs"), "{e}");
        assert!(plan_err(&t, Placement::List(vec![0, 64]), 2).contains("no PU 64"));
    }

    #[test]
    fn topology_plan_one_package_smt() {
        let t = syn("pack:1 numa:1 core:4 pu:2");
        assert_eq!(plan_ok(&t, Placement::Compact, 3), pinned(&[0, 1, 2]));
        assert_eq!(plan_ok(&t, Placement::Compact, 8), pinned(&[0, 1, 2, 3, 4, 5, 6, 7]));
        assert_eq!(plan_ok(&t, Placement::Scatter, 3), pinned(&[0, 2, 4]));
        assert_eq!(plan_ok(&t, Placement::Scatter, 8), pinned(&[0, 2, 4, 6, 1, 3, 5, 7]));
        assert_eq!(plan_ok(&t, Placement::Cores, 4), pinned(&[0, 2, 4, 6]));
        assert_eq!(plan_ok(&t, Placement::None, 1), vec![None]);
        assert_eq!(
            plan_ok(&t, Placement::List(vec![7, 5, 3, 1, 0]), 4),
            pinned(&[7, 5, 3, 1])
        );
        assert!(plan_err(&t, Placement::Cores, 5).contains("only 4 cores"));
        assert!(plan_err(&t, Placement::Compact, 9).contains("only 8 PUs"));
        assert!(plan_err(&t, Placement::Scatter, 9).contains("only 8 PUs"));
        assert!(plan_err(&t, Placement::List(vec![1, 2, 3]), 4).contains("list has 3"));
        assert!(plan_err(&t, Placement::List(vec![1, 2, 1]), 2).contains("PU 1 appears more than once"));
        assert!(plan_err(&t, Placement::List(vec![8]), 1).contains("no PU 8"));
    }

    /// As detect() may give: OS indices not in logical order (SMT siblings 0 and 2), and an
    /// uneven machine (one package with 2 cores, one with 1).
    #[test]
    fn topology_plan_os_indices_and_uneven() {
        let pu = |os_index, core, numa, package| Pu {
            os_index,
            core,
            numa,
            package,
        };
        let t = Topology {
            pus: vec![pu(0, 0, 0, 0), pu(2, 0, 0, 0), pu(1, 1, 0, 0), pu(3, 1, 0, 0)],
        };
        assert_eq!(plan_ok(&t, Placement::Compact, 4), pinned(&[0, 2, 1, 3]));
        assert_eq!(plan_ok(&t, Placement::Scatter, 4), pinned(&[0, 1, 2, 3]));
        assert_eq!(plan_ok(&t, Placement::Cores, 2), pinned(&[0, 1]));
        assert_eq!(t.summary(), "1 package, 1 NUMA node, 2 cores, 4 PUs (SMT 2)");

        let t = Topology {
            pus: vec![
                pu(0, 0, 0, 0),
                pu(1, 0, 0, 0),
                pu(2, 1, 0, 0),
                pu(3, 1, 0, 0),
                pu(4, 2, 1, 1),
            ],
        };
        assert_eq!(plan_ok(&t, Placement::Scatter, 5), pinned(&[0, 4, 2, 1, 3]));
        assert_eq!(plan_ok(&t, Placement::Cores, 3), pinned(&[0, 2, 4]));
        assert_eq!(
            t.summary(),
            "2 packages, 2 NUMA nodes, 3 cores, 5 PUs (SMT, 1 to 2 PUs per core)"
        );
    }

    #[test]
    fn topology_placement_parse_and_display() {
        let cases: Vec<(&str, Placement)> = vec![
            ("compact", Placement::Compact),
            ("Scatter", Placement::Scatter),
            (" cores ", Placement::Cores),
            ("NONE", Placement::None),
            ("0,2,4", Placement::List(vec![0, 2, 4])),
            ("list:0,2,4", Placement::List(vec![0, 2, 4])),
            ("LIST: 3, 1", Placement::List(vec![3, 1])),
            ("7", Placement::List(vec![7])),
            ("list:", Placement::List(vec![])),
        ];
        for (s, p) in &cases {
            assert_eq!(s.parse::<Placement>().as_ref(), Ok(p), "{s}");
        }
        let shown: Vec<String> = cases.iter().map(|(_, p)| p.to_string()).collect();
        assert_eq!(
            shown,
            ["compact", "scatter", "cores", "none", "0,2,4", "0,2,4", "3,1", "7", "list:"]
        );
        for (_, p) in &cases {
            assert_eq!(p.to_string().parse::<Placement>().as_ref(), Ok(p));
        }
        for bad in ["", "spread", "0,,2", "0,2,", "-1", "1.5", "list:x", "list", "compact,0"] {
            let e = bad.parse::<Placement>().expect_err(bad);
            assert!(e.contains(&format!("'{bad}'")), "{e}");
        }
    }

    #[test]
    fn topology_table() {
        let t = syn("pack:1 core:2 pu:1");
        let s = placement_table(&t, &[Placement::Scatter, Placement::None, Placement::Cores], &[2, 3]);
        let expect = "\
scatter, 2 threads:
  thread    PU  core  NUMA package
       0     0     0     0       0
       1     1     1     0       0

scatter, 3 threads:
  error: scatter placement: 3 threads, but only 2 PUs (at most one thread per PU)

none, 2 threads:
  thread    PU  core  NUMA package
       0     -
       1     -

none, 3 threads:
  thread    PU  core  NUMA package
       0     -
       1     -
       2     -

cores, 2 threads:
  thread    PU  core  NUMA package
       0     0     0     0       0
       1     1     1     0       0

cores, 3 threads:
  error: cores placement: 3 threads, but only 2 cores (at most one thread per core)

";
        assert_eq!(s, expect);
    }

    #[test]
    fn topology_detect_this_machine() {
        let (t, source) = Topology::detect().expect("detect");
        println!("source: {source}");
        let [packs, numas, cores, pus] = counts(&t);
        assert!(pus >= 1);
        assert!(pus >= cores && cores >= numas && numas >= 1, "{}", t.summary());
        assert!((1..=cores).contains(&packs));
        let os: HashSet<usize> = t.pus.iter().map(|p| p.os_index).collect();
        assert_eq!(os.len(), pus, "OS indices must be distinct");
        // Each core lies in one NUMA node and one package; indices are dense.
        for p in &t.pus {
            for q in &t.pus {
                if p.core == q.core {
                    assert_eq!((p.numa, p.package), (q.numa, q.package));
                }
            }
            assert!(p.core < cores && p.numa < numas && p.package < packs);
        }
        assert_eq!(plan(&t, &Placement::Compact, pus).map(|v| v.len()), Ok(pus));
        assert_eq!(plan(&t, &Placement::Cores, cores).map(|v| v.len()), Ok(cores));
        println!("{}\n{}", t.summary(), t.tree());
    }

    /// Built with hwloc: the library and /sys describe this machine alike, numbering included.
    #[cfg(feature = "hwloc")]
    #[test]
    fn topology_hwloc_and_sysfs_agree() {
        let from_hwloc = super::hwloc::read().expect("hwloc reads this machine");
        let allowed = sysfs::allowed_cpus();
        let from_sys = sysfs::read(std::path::Path::new(sysfs::SYS_ROOT), allowed.as_ref()).expect("/sys");
        assert_eq!(
            from_hwloc,
            from_sys,
            "hwloc:\n{}\n/sys:\n{}",
            from_hwloc.tree(),
            from_sys.tree()
        );
        assert_eq!(Topology::detect().unwrap().1, TopologySource::Hwloc);
    }

    #[cfg(not(feature = "hwloc"))]
    #[test]
    fn topology_default_build_reads_sysfs() {
        assert_eq!(Topology::detect().unwrap().1, TopologySource::Sysfs);
    }
}
