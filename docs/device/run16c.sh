#!/usr/bin/env bash
# Third 16-core run: the sweep's axes sorted in pieces (B = .devcarry/talus) against a920fa1 (A = talus_a), alternated.
set -u
. .devcarry/env.sh >/dev/null
A=.devcarry/talus_a; B=.devcarry/talus
L=$OUT/log.txt; W=/tmp/w16; mkdir -p $W
log() { echo "$@" | tee -a $L; }
log "== $(date -u) $(nproc) cores"
sc() { # label binary args...
  local lab=$1 bin=$2; shift 2
  log "== $lab $(date -u +%T)"
  $bin scale "$@" --profile --out $W/o 2>/dev/null >> $L
  sed "s/^/$lab,/" $W/o/scale.csv >> $OUT/scale_all.csv
}
P="--bed polygons --n 100000 --steps 20 --warmup 5 --repeats 3"
sc poly_B_full $B $P --threads 1,2,4,8,16 --strategies deterministic,per-thread
sc poly_A $A $P --threads 1,16 --strategies deterministic,per-thread
sc poly_B $B $P --threads 1,16 --strategies deterministic,per-thread
D="--base $PEER/base/s2d_base.data --bed discs --n 1000000 --steps 40 --warmup 10 --repeats 3"
sc discs_B $B $D --threads 1,16 --strategies deterministic,per-thread
sc discs_A $A $D --threads 1,16 --strategies deterministic,per-thread
log "== done $(date -u +%T)"
