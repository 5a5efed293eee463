#!/usr/bin/env bash
# Same-run comparison of talus and LAMMPS 22Jul2025 on the S3D beds under Hooke, one core
# each, alternated: the 3D twin of ../shared/tools/compare-lammps.sh (in.s3d_run on
# s3d_base.data tiled by tile.py; talus bench on the same bed, its own default skin).
#   docs/bench/compare-lammps-3d.sh [SIZES] [ROUNDS] [TALUS]     (from the project root)
#   SIZES: comma list of 5832, 58320, 583200 (default: all three); ROUNDS default 2; TALUS
#   a binary (default: target/release/talus, built here). See compare-lammps-bed.sh.
exec env MODEL=hooke "$(dirname "$0")/compare-lammps-bed.sh" 3d "$@"
