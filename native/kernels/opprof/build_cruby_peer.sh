#!/usr/bin/env bash
# Build CRuby 3.1's miniruby with debug information from Debian's `ruby3.1` source
# package, for `cpulab opprof` on the interpreter of the seed article (YARV, whose
# instructions are `DEFINE_INSN` entries of insns.def, expanded into vm.inc).
#
# The source is fetched with `apt-get source` through a deb-src list that only this
# script's apt-get calls read (debian_source.sh): the system's apt configuration is not
# touched. Only miniruby
# is built (no extensions, no install): -O2 -g, so the optimised machine code carries
# DWARF, with the sources left in place for opprof's marker scan.
#
# Needs root (apt-get), dpkg-source (dpkg-dev), gcc and make. About 5-10
# minutes on 2 cores; a second call only prints the path. Everything lands in
# build/peers/cruby-<version>/ (CPULAB_BUILD_DIR moves build/).
#
# Usage: build_cruby_peer.sh [--print-path]
# Prints, as its last line, the path of miniruby.
set -euo pipefail

print_only=0
for arg in "$@"; do
    case "$arg" in
        --print-path) print_only=1 ;;
        *) echo "build_cruby_peer.sh: unknown argument '$arg' (expected --print-path)" >&2
           exit 2 ;;
    esac
done

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${CPULAB_BUILD_DIR:-$root/build}
# shellcheck source=debian_source.sh
. "$here/debian_source.sh"
package=ruby3.1

dir=$build/peers/cruby-$package
miniruby=$dir/src/miniruby
recipe="$package (Debian source package): miniruby, -O2 -g"

if [[ -f $dir/.done && -x $miniruby && $(cat "$dir/.done") == "$recipe" ]]; then
    echo "$miniruby"
    exit 0
fi
if [[ $print_only == 1 ]]; then
    echo "build_cruby_peer.sh: no miniruby built yet at $dir" >&2
    exit 1
fi

for tool in apt-get dpkg-source gcc make; do
    command -v "$tool" >/dev/null || {
        echo "build_cruby_peer.sh: '$tool' not found (make setup installs it)" >&2
        exit 1
    }
done

# 1. The source package, through a deb-src list of its own.
rm -rf "$dir"
fetch_debian_source "$package" "$dir" build_cruby_peer.sh

# 2. miniruby only: the VM and the core classes, no extension or installed library.
cd "$dir/src"
echo "build_cruby_peer.sh: configuring and building miniruby" >&2
./configure --disable-install-doc --disable-shared --without-gmp --disable-dtrace \
    --disable-jit-support optflags=-O2 debugflags=-g > "$dir/configure.log" 2>&1 ||
    { tail -30 "$dir/configure.log" >&2; exit 1; }
make -j2 miniruby > "$dir/make.log" 2>&1 || { tail -30 "$dir/make.log" >&2; exit 1; }
echo "$recipe" > "$dir/.done"
echo "$miniruby"
