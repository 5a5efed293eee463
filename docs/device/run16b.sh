#!/usr/bin/env bash
# Second 16-core run: the new binary (B = .devcarry/talus) against the first run's (A = talus_a), alternated.
. docs/device/ab16.sh
python3 $PEER/tile.py $PEER/base/s2d_base.data $W/s2d_1000000.data 100 >/dev/null &
D="--base $PEER/base/s2d_base.data --bed discs --n 1000000 --steps 40 --warmup 10 --repeats 3"
sc discs_B_full $B $D --threads 1,2,4,8,16 --strategies deterministic,per-thread
sc discs_A $A $D --threads 1,16 --strategies deterministic,per-thread
sc discs_B $B $D --threads 1,16 --strategies deterministic,per-thread
P="--bed polygons --n 100000 --steps 20 --warmup 5 --repeats 3"
sc poly_B_full $B $P --threads 1,2,4,8,16 --strategies deterministic,per-thread
sc poly_A $A $P --threads 1,16 --strategies deterministic,per-thread
S="--base $PEER/base/s3d_base.data --bed spheres --n 583200 --steps 20 --warmup 5 --repeats 2"
sc sph_B $B $S --threads 1,16 --strategies deterministic,per-thread
sc sph_A $A $S --threads 1,16 --strategies deterministic,per-thread
wait
log "== lammps 2D MPI $(date -u +%T)"
for r in 16 8 16; do
  mpiexec -launcher fork -n $r -bind-to core lmp -in $PEER/in.s2d_run -var BASE $W/s2d_1000000.data -var NWARM 10 -var NSTEPS 40 -log $W/l.txt -screen none
  lt=$(grep "Loop time" $W/l.txt | sed -n 2p | awk '{print $4}')
  python3 -c "print(f'lammps 2D ranks $r loop {$lt:.3f} s upd/s {1e6*40/$lt:.4g}')" | tee -a $L
done
log "== done $(date -u +%T)"
