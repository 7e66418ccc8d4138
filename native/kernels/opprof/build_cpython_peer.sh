#!/usr/bin/env bash
# Build CPython 3.11 with debug information from Debian's `python3.11` source package,
# for `cpulab opprof` on CPython from the sources of the exact version profiled: its
# bytecode handlers are `TARGET(X)` blocks of Python/ceval.c, found by opprof's marker
# scan of those sources (the image's pyenv build has DWARF, but its sources are gone).
#
# The source is fetched with `apt-get source` through a deb-src list that only this
# script's apt-get calls read (debian_source.sh): the system's apt configuration is not
# touched. Only the `python` executable is built, statically linked with libpython and
# the built-in modules (no shared extension, no install): -O2 -g, so the optimised code
# carries DWARF, with the sources left in place.
#
# Needs root (apt-get), dpkg-source (dpkg-dev), gcc and make. A few minutes on 2 cores;
# a second call only prints the path. Everything lands in build/peers/cpython-<package>/
# (CPULAB_BUILD_DIR moves build/).
#
# Usage: build_cpython_peer.sh [--print-path]
# Prints, as its last line, the path of the python executable.
set -euo pipefail

print_only=0
for arg in "$@"; do
    case "$arg" in
        --print-path) print_only=1 ;;
        *) echo "build_cpython_peer.sh: unknown argument '$arg' (expected --print-path)" >&2
           exit 2 ;;
    esac
done

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${CPULAB_BUILD_DIR:-$root/build}
# shellcheck source=debian_source.sh
. "$here/debian_source.sh"
package=python3.11

dir=$build/peers/cpython-$package
python=$dir/src/python
recipe="$package (Debian source package): python, -O2 -g, computed gotos"

if [[ -f $dir/.done && -x $python && $(cat "$dir/.done") == "$recipe" ]]; then
    echo "$python"
    exit 0
fi
if [[ $print_only == 1 ]]; then
    echo "build_cpython_peer.sh: no python built yet at $dir" >&2
    exit 1
fi

for tool in apt-get dpkg-source gcc make; do
    command -v "$tool" >/dev/null || {
        echo "build_cpython_peer.sh: '$tool' not found (make setup installs it)" >&2
        exit 1
    }
done

# 1. The source package, through a deb-src list of its own.
rm -rf "$dir"
fetch_debian_source "$package" "$dir" build_cpython_peer.sh

# 2. The interpreter only.
cd "$dir/src"
echo "build_cpython_peer.sh: configuring and building python" >&2
./configure --with-computed-gotos --without-ensurepip --disable-test-modules \
    OPT="-O2 -g -DNDEBUG" > "$dir/configure.log" 2>&1 ||
    { tail -30 "$dir/configure.log" >&2; exit 1; }
make -j2 python > "$dir/make.log" 2>&1 || { tail -30 "$dir/make.log" >&2; exit 1; }
echo "$recipe" > "$dir/.done"
echo "$python"
