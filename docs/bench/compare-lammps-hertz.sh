#!/usr/bin/env bash
# Same-run comparison of talus and LAMMPS 22Jul2025 under the Hertz law (gran/hertz/history,
# the LIGGGHTS default), one core each, alternated: LAMMPS runs in.s2d_hertz_run or
# in.s3d_hertz_run of this folder, talus `talus bench --model hertz`, on the same bed.
#   docs/bench/compare-lammps-hertz.sh 2d|3d [SIZES] [ROUNDS] [TALUS]     (from the project root)
#   See compare-lammps-bed.sh for the arguments.
exec env MODEL=hertz "$(dirname "$0")/compare-lammps-bed.sh" "$@"
