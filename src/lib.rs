//! talus: whole-system tests and benchmarks live in tests/ and benches/.
pub use talus_engine as engine;
pub use talus_io as io;
pub use talus_kernels as kernels;
