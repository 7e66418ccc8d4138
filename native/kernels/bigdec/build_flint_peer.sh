#!/usr/bin/env bash
# Fetch FLINT's shared library as a peer for the bigdec benchmark (its fmpz_get_str).
#
# FLINT 3 is not packaged for Debian 12, and building it takes many minutes; the PyPI
# wheel of python-flint 0.9.0 carries FLINT 3.6.0 already built, as
# python_flint.libs/libflint-<hash>.so.24.0.0 beside the GMP 6.3.0 and MPFR 4.2.2 it
# needs (found through its RPATH $ORIGIN). This script downloads that one wheel with pip
# (python3's, else uv's uvx: ../peer_pip.sh; no dependency, binary only), keeps only
# python_flint.libs/ and the licences, and links lib/libflint.so to the library: the
# benchmark dlopens that path. The wheel is abi3 (CPython >= 3.10), so any pip fetches
# the same file. Nothing of FLINT is committed to this repository.
#
# Idempotent: the result is kept in the peer cache (../peer_cache.sh), keyed by the
# recipe and these scripts, and linked as build/peers/flint; a second call, from any
# checkout, only prints its path (also offline). Writes nothing outside the cache,
# build/peers/ and pip's cache. Seconds once the 10 MB wheel is downloaded.
#
# Usage: build_flint_peer.sh [--print-path]
# Prints, as its last line, the path of lib/libflint.so.
set -euo pipefail

print_only=0
for arg in "$@"; do
    case "$arg" in
        --print-path) print_only=1 ;;
        *) echo "build_flint_peer.sh: unknown argument '$arg' (expected --print-path)" >&2
           exit 2 ;;
    esac
done

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../peer_cache.sh
. "$here/../peer_cache.sh"
version=0.9.0
py=${PYTHON:-python3}
recipe="python-flint $version wheel (abi3, $(uname -m)): python_flint.libs/libflint-*.so"
peer_cache_open flint "$recipe" "$here/build_flint_peer.sh" "$here/../peer_cache.sh"
lib=$peer_link/lib/libflint.so

if peer_cache_ready lib/libflint.so; then
    echo "$lib"
    exit 0
fi
if [[ $print_only == 1 ]]; then
    echo "build_flint_peer.sh: no FLINT yet at $peer_link" >&2
    exit 1
fi
if [[ $(uname -s)-$(uname -m) != Linux-x86_64 ]]; then
    echo "build_flint_peer.sh: the wheel's library is for Linux x86-64 (this is" \
         "$(uname -s) $(uname -m))" >&2
    exit 1
fi
# shellcheck source=../peer_pip.sh
. "$here/../peer_pip.sh"
peer_pip build_flint_peer.sh || exit 1

# 1. The wheel, through pip.
peer_cache_stage
"${pip[@]}" download --quiet --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
    "python-flint==$version" -d "$peer_stage/wheel" >&2 || {
    echo "build_flint_peer.sh: pip could not download python-flint $version" >&2
    exit 1
}

# 2. Its libraries and their licences; a stable name for the benchmark to open.
"$py" - "$peer_stage" <<'PY'
import sys, zipfile
from pathlib import Path

stage = Path(sys.argv[1])
(wheel,) = (stage / "wheel").glob("python_flint-*.whl")
with zipfile.ZipFile(wheel) as z:
    keep = [n for n in z.namelist() if n.startswith("python_flint.libs/")
            or "/licenses/" in n]
    z.extractall(stage, keep)
libs = stage / "python_flint.libs"
(flint,) = libs.glob("libflint-*.so*")
(stage / "lib").mkdir()
(stage / "lib" / "libflint.so").symlink_to(Path("..") / libs.name / flint.name)
PY
rm -rf "$peer_stage/wheel"
exported=$(nm -D --defined-only "$peer_stage/lib/libflint.so")
grep -qw fmpz_get_str <<<"$exported" || {
    echo "build_flint_peer.sh: the wheel's libflint has no fmpz_get_str" >&2
    exit 1
}
{
    echo "flint: python_flint.libs/$(readlink "$peer_stage/lib/libflint.so" | xargs basename)"
    echo "from: the PyPI wheel python-flint $version (FLINT 3, GMP and MPFR bundled)"
} > "$peer_stage/CODEPATH"
peer_cache_commit
echo "$lib"
