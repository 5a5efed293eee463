//! Speedup plots for talus scale (being written: see issue 4).
