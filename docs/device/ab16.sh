# Sourced by the A/B scripts of the 16-core machine (run16b.sh, run16c.sh), from the
# project root there: A = .devcarry/talus_a (the earlier binary), B = .devcarry/talus.
# `sc LABEL BINARY ARGS...` runs one `talus scale` with its profile into $OUT/log.txt and
# appends its CSV rows, labelled, to $OUT/scale_all.csv.
set -u
. .devcarry/env.sh >/dev/null
A=.devcarry/talus_a; B=.devcarry/talus
L=$OUT/log.txt; W=/tmp/w16; mkdir -p $W
log() { echo "$@" | tee -a $L; }
log "== $(date -u) $(nproc) cores"
sc() {
  local lab=$1 bin=$2; shift 2
  log "== $lab $(date -u +%T)"
  $bin scale "$@" --profile --out $W/o 2>/dev/null >> $L
  sed "s/^/$lab,/" $W/o/scale.csv >> $OUT/scale_all.csv
}
