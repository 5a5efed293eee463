#!/usr/bin/env bash
# Build talus's Python module (a wheel, by maturin) and run its tests, in a virtual
# environment of its own (python/.venv, or $TALUS_PY_VENV). Needs python3 with venv and
# pip, and PyPI for maturin and numpy.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${TALUS_PY_VENV:-$here/.venv}"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q "maturin>=1.5,<2" numpy
rm -rf "$here/target/wheels"
"$venv/bin/maturin" build --release -q -m "$here/Cargo.toml" -o "$here/target/wheels"
"$venv/bin/python" -m pip install -q --force-reinstall --no-deps "$here"/target/wheels/talus-*.whl
cd "$here/tests"
"$venv/bin/python" -m unittest -v test_talus
