#!/usr/bin/env bash
# Same-run comparison of talus and LAMMPS 22Jul2025 on the S3D beds, one core each,
# alternated: the 3D twin of ../shared/tools/compare-lammps.sh (in.s3d_run on
# s3d_base.data tiled by tile.py; talus bench on the same bed, its own default skin).
#   docs/bench/compare-lammps-3d.sh [SIZES] [ROUNDS] [TALUS]     (from the project root)
#   SIZES: comma list of 5832, 58320, 583200 (default: all three); ROUNDS default 2; TALUS
#   a binary (default: target/release/talus, built here).
# Prints particle-updates per second of both and their ratio per round; pins to the last
# core.
set -euo pipefail
NAME=compare-lammps-3d.sh; . "$(dirname "$0")/peer-beds.sh"
L=${LAMMPS_DIR:-/tmp/talus-lammps}; [ -x "$L/lmp/lmp" ] || "$P/get-lammps.sh" "$L" >/dev/null
. "$L/env.sh"
printf "%-5s %9s %12s %12s %7s\n" round N lammps talus ratio
for r in $(seq 1 "$ROUNDS"); do
  for n in ${SIZES//,/ }; do
    [ -f "$W/s3d_N$n.data" ] || python3 "$P/tile.py" "$P/base/s3d_base.data" "$W/s3d_N$n.data" $(tiles "$n") >/dev/null
    steps=$(( 20000000 / n )); [ $steps -lt 20 ] && steps=20
    taskset -c $CPU lmp -in "$P/in.s3d_run" -var BASE "$W/s3d_N$n.data" -var NWARM 20 -var NSTEPS $steps -log "$W/log3d.txt" -screen none
    lt=$(grep "Loop time" "$W/log3d.txt" | sed -n 2p | awk '{print $4}')
    tu=$(taskset -c $CPU "$T" bench --base "$P/base/s3d_base.data" --sizes "$n" --integrators verlet --modes skin --updates 20000000 --repeats 3 | awk -v n="$n" '$1==n && $2=="verlet" {print $6}')
    python3 -c "l=$n*$steps/$lt; t=float('$tu'); print(f'{$r:<5} {$n:>9} {l:12.4g} {t:12.4g} {t/l:7.2f}')"
  done
done
