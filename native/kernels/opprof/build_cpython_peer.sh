#!/usr/bin/env bash
# Build CPython 3.11 with debug information from Debian's `python3.11` source package,
# for `cpulab opprof` on CPython from the sources of the exact version profiled: its
# bytecode handlers are `TARGET(X)` blocks of Python/ceval.c, found by opprof's marker
# scan of those sources (the image's pyenv build has DWARF, but its sources are gone).
#
# The source is fetched with `apt-get source` through a deb-src list that only this
# script's apt-get calls read (debian_source.sh): the system's apt configuration is not
# touched. Only the `python` executable is built, statically linked with libpython and
# the built-in modules (no shared extension, no install): -O2 -g with computed gotos, so
# the optimised code carries DWARF, with the sources left in place.
#
# Needs root (apt-get), dpkg-source (dpkg-dev), gcc and make. About 2 minutes on 2 cores;
# a second call, from any checkout, only prints the path. Everything lands in the peer
# cache (../peer_cache.sh), linked as build/peers/cpython-python3.11/ (CPULAB_BUILD_DIR
# moves build/).
#
# Usage: build_cpython_peer.sh [--print-path]
# Prints, as its last line, the path of the python executable.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=debian_source.sh
. "$here/debian_source.sh"
package=python3.11
peer_begin build_cpython_peer.sh "cpython-$package" src/python \
    "$package (Debian source package): python, -O2 -g, computed gotos" "$@"

fetch_debian_source "$package"
cd "$peer_dir/src"
echo "build_cpython_peer.sh: configuring and building python" >&2
run_logged configure.log ./configure --with-computed-gotos --without-ensurepip \
    --disable-test-modules OPT="-O2 -g -DNDEBUG $debug_map"
run_logged make.log make -j2 python
peer_done
