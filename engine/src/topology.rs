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
#[path = "topology_tests.rs"]
mod tests;
