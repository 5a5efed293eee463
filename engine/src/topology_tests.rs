//! Tests of `topology.rs`.
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
