#!/usr/bin/env bash
# Same-run comparison of talus and LIGGGHTS-PUBLIC 3.8 (Debian package `liggghts`) on the
# S3D beds, one core each, alternated: issue 19's second peer. LIGGGHTS runs
# ../shared/peers/lammps/in.s3d_liggghts (hooke/stiffness with tangential history: the
# same spring-dashpot, friction and walls as in.s3d_run) on s3d_base.data tiled by
# tile.py --liggghts; talus runs `talus bench` on the same bed, its own default skin.
#   docs/bench/compare-liggghts-3d.sh [SIZES] [ROUNDS] [TALUS]     (from the project root)
#   SIZES: comma list of 5832, 58320, 583200 (default: all three); ROUNDS default 2; TALUS
#   a binary (default: target/release/talus, built here). LIGGGHTS: $LIGGGHTS, else
#   `liggghts` on the PATH (as root: apt-get install liggghts; it is not needed otherwise).
# MODEL=hertz runs both under Hertz: LIGGGHTS docs/bench/in.s3d_liggghts_hertz (model
# hertz/stiffness, the coefficients of docs/bench/in.s3d_hertz_run), talus `bench --model
# hertz`.
# Prints particle-updates per second of both, their ratio, and each code's peak resident
# memory in bytes per particle (LIGGGHTS: /usr/bin/time's maximum RSS over the whole run;
# talus: its bench's peak RSS); pins to the last core.
set -euo pipefail
LIG=$(command -v "${LIGGGHTS:-liggghts}" || true)
[ -n "$LIG" ] || { echo "compare-liggghts-3d.sh: no liggghts binary ${LIGGGHTS:-on the PATH} (set LIGGGHTS or install the Debian package)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "compare-liggghts-3d.sh: needs /usr/bin/time for LIGGGHTS' peak memory" >&2; exit 2; }
NAME=compare-liggghts-3d.sh; . "$(dirname "$0")/peer-beds.sh"
if [ "$MODEL" = hertz ]; then DECK=$ROOT/docs/bench/in.s3d_liggghts_hertz; else DECK=$P/in.s3d_liggghts; fi
printf "%-5s %9s %12s %12s %7s %10s %10s\n" round N liggghts talus ratio "lig B/p" "talus B/p"
for r in $(seq 1 "$ROUNDS"); do
  for n in ${SIZES//,/ }; do
    data=$W/s3d_N$n.liggghts.data
    [ -f "$data" ] || python3 "$P/tile.py" "$P/base/s3d_base.data" "$data" $(tiles "$n") --liggghts >/dev/null
    steps=$(( 20000000 / n )); [ $steps -lt 20 ] && steps=20
    (cd "$W" && taskset -c $CPU /usr/bin/time -f %M -o "$W/lig_rss.txt" "$LIG" -in "$DECK" \
      -var BASE "$data" -var NWARM 20 -var NSTEPS $steps -log "$W/lig3d.txt" -screen none >/dev/null)
    lt=$(grep "Loop time" "$W/lig3d.txt" | sed -n 2p | awk '{print $4}')
    lk=$(tail -1 "$W/lig_rss.txt")
    out=$(taskset -c $CPU "$T" bench --base "$P/base/s3d_base.data" --sizes "$n" --integrators verlet --modes skin --updates 20000000 --repeats 3 --model "$MODEL")
    tu=$(awk -v n="$n" '$1==n && $2=="verlet" {print $6}' <<<"$out")
    tb=$(awk -v n="$n" '$1==n && $2=="verlet" {print $NF}' <<<"$out")
    python3 -c "l=$n*$steps/$lt; t=float('$tu'); print(f'{$r:<5} {$n:>9} {l:12.4g} {t:12.4g} {t/l:7.2f} {$lk*1024/$n:10.0f} {float(\"$tb\"):10.0f}')"
  done
done
