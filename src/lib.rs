//! talus: whole-system tests and benchmarks live in tests/ and benches/.
pub use talus_engine as engine;
/// The 3D build of the engine (spheres).
pub use talus_engine3d as engine3d;
pub use talus_io as io;
pub use talus_kernels as kernels;
/// The 3D build of the kernels.
pub use talus_kernels3d as kernels3d;
