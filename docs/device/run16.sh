#!/usr/bin/env bash
# Items 5/7 of issue 18 and issue 19's 16-core figures, one command. Sizes from the env for a dry run.
set -u
ND=${ND:-1000000}; NP=${NP:-100000}; NS=${NS:-583200}; SX=${SX:-10}; SY=${SY:-10}
ONE=${ONE:-10000,100000,1000000}; THR=${THR:-1,2,4,8,16}; RANKS=${RANKS:-1 2 4 8 16}
. .devcarry/env.sh >/dev/null
L=$OUT/log.txt; W=/tmp/w16; mkdir -p $W
log() { echo "$@" | tee -a $L; }
log "== $(date -u) $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo)"
lscpu | grep -E 'NUMA|Socket|Thread|MHz' >> $L
git log -1 --format='commit %h' >> $L 2>/dev/null
python3 $PEER/tile.py $PEER/base/s2d_base.data $W/s2d_$ND.data $((ND/10000)) >/dev/null &
python3 $PEER/tile.py $PEER/base/s3d_base.data $W/s3d_$NS.data $SX $SY >/dev/null &
for n in ${ONE//,/ }; do python3 $PEER/tile.py $PEER/base/s2d_base.data $W/s2d_$n.data $((n/10000)) >/dev/null & done
wait; log "== beds tiled $(date -u +%T)"
lmprun() { # ranks base deck warm steps -> upd/s of the timed run
  local r=$1 b=$2 d=$3 w=$4 s=$5 n=$6
  mpiexec -launcher fork -n $r -bind-to core lmp -in $PEER/$d -var BASE $b -var NWARM $w -var NSTEPS $s -log $W/l.txt -screen none
  lt=$(grep "Loop time" $W/l.txt | sed -n 2p | awk '{print $4}')
  python3 -c "print(f'lammps $d ranks $r N $n steps $s loop {$lt:.3f} s upd/s {$n*$s/$lt:.4g}')" | tee -a $L
}
log "== discs scale $(date -u +%T)"
talus scale --base $PEER/base/s2d_base.data --bed discs --n $ND --threads $THR --strategies deterministic,per-thread,mutex --steps 40 --warmup 10 --repeats 3 --profile --out $W/sd 2>/dev/null >> $L
cp $W/sd/scale.csv $OUT/scale_discs.csv
log "== lammps 2D MPI $(date -u +%T)"
for r in $RANKS; do lmprun $r $W/s2d_$ND.data in.s2d_run 10 40 $ND; done
log "== polygons scale $(date -u +%T)"
talus scale --bed polygons --n $NP --threads $THR --strategies deterministic,per-thread --steps 20 --warmup 5 --repeats 3 --profile --out $W/sp 2>/dev/null >> $L
cp $W/sp/scale.csv $OUT/scale_polygons.csv
log "== spheres scale $(date -u +%T)"
talus scale --base $PEER/base/s3d_base.data --bed spheres --n $NS --threads $THR --strategies deterministic,per-thread --steps 20 --warmup 5 --repeats 2 --profile --out $W/ss 2>/dev/null >> $L
cp $W/ss/scale.csv $OUT/scale_spheres.csv
log "== lammps 3D MPI $(date -u +%T)"
for r in $RANKS; do lmprun $r $W/s3d_$NS.data in.s3d_run 5 20 $NS; done
log "== one core, alternated, taskset -c 2 $(date -u +%T)"
for n in ${ONE//,/ }; do
  s=$(( 20000000 / n )); [ $s -lt 20 ] && s=20
  taskset -c 2 lmp -in $PEER/in.s2d_run -var BASE $W/s2d_$n.data -var NWARM 20 -var NSTEPS $s -log $W/l1.txt -screen none
  lt=$(grep "Loop time" $W/l1.txt | sed -n 2p | awk '{print $4}')
  tu=$(taskset -c 2 talus bench --base $PEER/base/s2d_base.data --sizes $n --integrators verlet --modes skin --updates 20000000 --repeats 3 2>/dev/null | awk -v n=$n '$1==n && $2=="verlet" {print $6}')
  python3 -c "l=$n*$s/$lt; t=float('$tu'); print(f'one-core N {$n} lammps {l:.4g} talus {t:.4g} ratio {t/l:.2f}')" | tee -a $L
done
log "== done $(date -u +%T)"
