//! The machine's topology read with hwloc (cargo feature `hwloc`; needs libhwloc).

use super::Topology;

/// This machine, read with hwloc2.
///
/// Walks up from each PU to its core and package. NUMA objects cannot be reached through
/// hwloc2 2.2 (looking them up panics), so a PU's NUMA node is the first node of its core's
/// nodeset, numbered among the machine's nodes that hold PUs.
pub fn read() -> Result<Topology, String> {
    use hwloc2::ObjectType;
    let hw = hwloc2::Topology::new().ok_or("hwloc could not load this machine's topology")?;
    let root_nodes: Vec<u32> = match hw.object_at_root().nodeset() {
        Some(ns) if ns.weight() > 0 => ns.into_iter().collect(),
        _ => Vec::new(),
    };
    let pu_objs = hw
        .objects_with_type(&ObjectType::PU)
        .map_err(|e| format!("hwloc: no PU level: {e:?}"))?;
    if pu_objs.is_empty() {
        return Err("hwloc found no processing units".into());
    }
    // (package, NUMA node, core, OS index); a PU with no core object is its own core, keyed
    // after every real core.
    let mut raw: Vec<(usize, usize, usize, usize)> = Vec::with_capacity(pu_objs.len());
    for &pu in &pu_objs {
        let mut core = None;
        let mut package = None;
        let mut p = pu.parent();
        while let Some(o) = p {
            match o.object_type() {
                ObjectType::Core if core.is_none() => core = Some(o),
                ObjectType::Package if package.is_none() => package = Some(o),
                _ => {}
            }
            p = o.parent();
        }
        // A PU without a core object (some VMs and architectures) is its own core.
        let core_key = match core {
            Some(c) => c.logical_index() as usize,
            None => (1 << 40) + pu.logical_index() as usize,
        };
        let node = core
            .unwrap_or(pu)
            .nodeset()
            .filter(|ns| ns.weight() > 0)
            .map(|ns| ns.first());
        let numa_key = match node {
            Some(n) if n >= 0 => root_nodes.iter().position(|&r| r == n as u32).unwrap_or(0),
            _ => 0,
        };
        let package_key = package.map_or(0, |p| p.logical_index() as usize);
        raw.push((package_key, numa_key, core_key, pu.os_index() as usize));
    }
    raw.sort_unstable();
    Ok(super::numbered(raw))
}
