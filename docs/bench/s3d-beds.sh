# Sourced by compare-lammps-3d.sh and compare-liggghts-3d.sh (not run by itself): the
# arguments both take, the talus binary, the work folder, the core both codes are pinned to
# and the S3D beds' sizes. Sets ROOT, P (the peers' folder), SIZES, ROUNDS, T, W and CPU,
# and defines tiles; checks the sizes, naming the calling script ($NAME) in its errors.
SIZES=${1:-5832,58320,583200}; ROUNDS=${2:-2}
ROOT=$(git rev-parse --show-toplevel); P=$(cd "$ROOT/../shared" && pwd)/peers/lammps
if [ -n "${3:-}" ]; then T=$3; else (cd "$ROOT" && cargo build --release -q --bin talus); T=$ROOT/target/release/talus; fi
W=${TMPDIR:-/tmp}/talus-compare; mkdir -p "$W"; CPU=$(( $(nproc) - 1 ))
# Tiles per side of the base bed for N = 5832 x tiles (1 x 1, 5 x 2, 10 x 10 as in BENCHMARKS.md).
tiles() { case $1 in 5832) echo "1 1";; 58320) echo "5 2";; 583200) echo "10 10";; esac; }
for n in ${SIZES//,/ }; do
  [ -n "$(tiles "$n")" ] || { echo "$NAME: size $n: must be 5832, 58320 or 583200" >&2; exit 2; }
done
