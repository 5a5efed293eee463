//! Machine topology (packages, NUMA nodes, cores, processing units) and thread placement.
//! (Being written: see issue 4.)
