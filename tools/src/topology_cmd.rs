//! `talus topology`: the machine (or a described one) and where threads would be pinned.
use talus_engine::topology::{placement_table, Placement, Topology};

#[derive(clap::Args)]
pub struct TopologyArgs {
    /// Describe this synthetic topology instead of the machine (hwloc syntax).
    #[arg(long)]
    pub synthetic: Option<String>,
    /// Also show the thread -> PU maps of every policy for these thread counts.
    #[arg(long, value_delimiter = ',', value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub threads: Vec<usize>,
}

pub fn topology(a: TopologyArgs) -> Result<(), String> {
    let (topo, source) = match &a.synthetic {
        Some(s) => (
            Topology::parse_synthetic(s)?,
            "the synthetic description given".to_string(),
        ),
        None => {
            let (t, s) = Topology::detect()?;
            (t, s.to_string())
        }
    };
    println!("source: {source}");
    println!("{}", topo.summary());
    println!(
        "vector build of the hot loops: {}",
        talus_kernels::vector_build::Build::detect().name()
    );
    print!("{}", topo.tree());
    if !a.threads.is_empty() {
        println!();
        let policies = [
            Placement::Compact,
            Placement::Scatter,
            Placement::Cores,
            Placement::None,
        ];
        print!("{}", placement_table(&topo, &policies, &a.threads));
    }
    Ok(())
}
