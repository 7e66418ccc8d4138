#!/usr/bin/env bash
# Build CRuby 3.1's miniruby with debug information from Debian's `ruby3.1` source
# package, for `cpulab opprof` on the interpreter of the seed article (YARV, whose
# instructions are `DEFINE_INSN` entries of insns.def, expanded into vm.inc).
#
# The source is fetched with `apt-get source` through a deb-src list that only this
# script's apt-get calls read (debian_source.sh): the system's apt configuration is not
# touched. Only miniruby is built (no extensions, no install): -O2 -g, so the optimised
# machine code carries DWARF, with the sources left in place for opprof's marker scan.
#
# Needs root (apt-get), dpkg-source (dpkg-dev), gcc and make. 2-10 minutes on 2 cores; a
# second call, from any checkout, only prints the path. Everything lands in the peer cache
# (../peer_cache.sh), linked as build/peers/cruby-ruby3.1/ (CPULAB_BUILD_DIR moves build/).
#
# Usage: build_cruby_peer.sh [--print-path]
# Prints, as its last line, the path of miniruby.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=debian_source.sh
. "$here/debian_source.sh"
package=ruby3.1
peer_begin build_cruby_peer.sh "cruby-$package" src/miniruby \
    "$package (Debian source package): miniruby, -O2 -g" "$@"

fetch_debian_source "$package"
# miniruby only: the VM and the core classes, no extension or installed library.
cd "$peer_dir/src"
echo "build_cruby_peer.sh: configuring and building miniruby" >&2
run_logged configure.log ./configure --disable-install-doc --disable-shared --without-gmp \
    --disable-dtrace --disable-jit-support optflags=-O2 debugflags="-g $debug_map"
run_logged make.log make -j2 miniruby
peer_done
