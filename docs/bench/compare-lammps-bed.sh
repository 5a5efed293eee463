#!/usr/bin/env bash
# Same-run comparison of talus and LAMMPS 22Jul2025 on the peers' S2D or S3D beds, one core
# each, alternated, under either normal law. LAMMPS runs the peers' Hooke decks
# (../shared/peers/lammps/in.s2d_run, in.s3d_run) or, with MODEL=hertz, their Hertz twins in
# this folder (in.s2d_hertz_run, in.s3d_hertz_run: gran/hertz/history, the coefficients
# divided by the bed's typical sqrt(delta R_eff)) on the base bed tiled by tile.py; talus
# runs `talus bench --model $MODEL` on the same bed, its own default skin.
#   [MODEL=hooke|hertz] docs/bench/compare-lammps-bed.sh 2d|3d [SIZES] [ROUNDS] [TALUS]
#   (from the project root) SIZES: 2d multiples of 10000 (default 10000,100000,1000000), 3d
#   5832, 58320, 583200 (default all three); ROUNDS default 2; TALUS a binary (default
#   target/release/talus, built here). compare-lammps-3d.sh and compare-lammps-hertz.sh call
#   this; ../shared/tools/compare-lammps.sh is the 2D Hooke one of the peers.
# Prints particle-updates per second of both and their ratio per round; pins to the last core.
set -euo pipefail
NAME=compare-lammps-bed.sh
case ${1:-} in
  2d|3d) DIM=$1; shift ;;
  *) echo "$NAME: first argument: 2d or 3d (got '${1:-}')" >&2; exit 2 ;;
esac
. "$(dirname "$0")/peer-beds.sh"
S=s${DIM:0:1}d
if [ "$MODEL" = hertz ]; then DECK=$ROOT/docs/bench/in.${S}_hertz_run; else DECK=$P/in.${S}_run; fi
L=${LAMMPS_DIR:-/tmp/talus-lammps}; [ -x "$L/lmp/lmp" ] || "$P/get-lammps.sh" "$L" >/dev/null
. "$L/env.sh"
printf "%-5s %9s %12s %12s %7s\n" round N lammps talus ratio
for r in $(seq 1 "$ROUNDS"); do
  for n in ${SIZES//,/ }; do
    # shellcheck disable=SC2046 # tiles prints one or two numbers for tile.py
    [ -f "$W/${S}_N$n.data" ] || python3 "$P/tile.py" "$P/base/${S}_base.data" "$W/${S}_N$n.data" $(tiles "$n") >/dev/null
    steps=$(( 20000000 / n )); [ $steps -lt 20 ] && steps=20
    taskset -c $CPU lmp -in "$DECK" -var BASE "$W/${S}_N$n.data" -var NWARM 20 -var NSTEPS $steps -log "$W/log_$S.txt" -screen none
    lt=$(grep "Loop time" "$W/log_$S.txt" | sed -n 2p | awk '{print $4}')
    tu=$(taskset -c $CPU "$T" bench --base "$P/base/${S}_base.data" --sizes "$n" --integrators verlet --modes skin --updates 20000000 --repeats 3 --model "$MODEL" | awk -v n="$n" '$1==n && $2=="verlet" {print $6}')
    python3 -c "l=$n*$steps/$lt; t=float('$tu'); print(f'{$r:<5} {$n:>9} {l:12.4g} {t:12.4g} {t/l:7.2f}')"
  done
done
