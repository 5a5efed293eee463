# Sourced by compare-lammps-bed.sh and compare-liggghts-3d.sh (not run by itself): the
# arguments they take, the normal law, the talus binary, the work folder, the core both
# codes are pinned to and the peers' beds. DIM (2d or 3d, default 3d) picks the S2D beds
# (N = 10000 x tiles along x) or the S3D beds (N = 5832 x tiles); MODEL (hooke or hertz,
# default hooke) the law. Sets ROOT, P (the peers' folder), MODEL, SIZES, ROUNDS, T, W and
# CPU, and defines tiles; checks the law and the sizes, naming the calling script ($NAME)
# in its errors.
DIM=${DIM:-3d}
MODEL=${MODEL:-hooke}
case $MODEL in
  hooke|hertz) ;;
  *) echo "$NAME: MODEL: hooke or hertz (got '$MODEL')" >&2; exit 2 ;;
esac
if [ "$DIM" = 2d ]; then SIZES=${1:-10000,100000,1000000}; else SIZES=${1:-5832,58320,583200}; fi
ROUNDS=${2:-2}
ROOT=$(git rev-parse --show-toplevel); P=$(cd "$ROOT/../shared" && pwd)/peers/lammps
if [ -n "${3:-}" ]; then T=$3; else (cd "$ROOT" && cargo build --release -q --bin talus); T=$ROOT/target/release/talus; fi
W=${TMPDIR:-/tmp}/talus-compare; mkdir -p "$W"; CPU=$(( $(nproc) - 1 ))
# Tiles of the base bed for N: S2D N / 10000 along x; S3D per side (1 x 1, 5 x 2, 10 x 10 as
# in BENCHMARKS.md).
tiles() {
  if [ "$DIM" = 2d ]; then
    case $1 in *[!0-9]*|'') ;; *) [ $(( $1 % 10000 )) -eq 0 ] && [ "$1" -gt 0 ] && echo $(( $1 / 10000 ));; esac
  else
    case $1 in 5832) echo "1 1";; 58320) echo "5 2";; 583200) echo "10 10";; esac
  fi
}
for n in ${SIZES//,/ }; do
  [ -n "$(tiles "$n")" ] || {
    if [ "$DIM" = 2d ]; then echo "$NAME: size $n: must be a multiple of 10000" >&2
    else echo "$NAME: size $n: must be 5832, 58320 or 583200" >&2; fi
    exit 2
  }
done
