#!/usr/bin/env bash
# Third 16-core run: the sweep's axes sorted in pieces (B = .devcarry/talus) against a920fa1 (A = talus_a), alternated.
. docs/device/ab16.sh
P="--bed polygons --n 100000 --steps 20 --warmup 5 --repeats 3"
sc poly_B_full $B $P --threads 1,2,4,8,16 --strategies deterministic,per-thread
sc poly_A $A $P --threads 1,16 --strategies deterministic,per-thread
sc poly_B $B $P --threads 1,16 --strategies deterministic,per-thread
D="--base $PEER/base/s2d_base.data --bed discs --n 1000000 --steps 40 --warmup 10 --repeats 3"
sc discs_B $B $D --threads 1,16 --strategies deterministic,per-thread
sc discs_A $A $D --threads 1,16 --strategies deterministic,per-thread
log "== done $(date -u +%T)"
