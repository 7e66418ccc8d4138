#!/usr/bin/env bash
# Build CRuby 3.1's miniruby with debug information from Debian's `ruby3.1` source
# package, for `cpulab opprof` on the interpreter of the seed article (YARV, whose
# instructions are `DEFINE_INSN` entries of insns.def, expanded into vm.inc).
#
# The source is fetched with `apt-get source` through a deb-src list that this script
# writes and that only its own apt-get calls read (-o Dir::Etc::SourceList=..., private
# lists and cache folders): the system's apt configuration is not touched. Only miniruby
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

# 1. The source package, through a deb-src list of this script's own.
rm -rf "$dir"
apt=$dir/apt
mkdir -p "$apt/lists/partial" "$apt/archives/partial"
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}")
# the point releases only: the security archive's pool is not reachable from every lab
cat > "$apt/sources.list" <<EOF
deb-src http://deb.debian.org/debian $codename main
deb-src http://deb.debian.org/debian $codename-updates main
EOF
opts=(-qq -o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
      -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache::archives=$apt/archives"
      -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=" -o "APT::Sandbox::User=root")
echo "build_cruby_peer.sh: fetching Debian's $package source" >&2
apt-get "${opts[@]}" update >&2
(cd "$dir" && apt-get "${opts[@]}" source --download-only "$package" >&2)
dsc=$(ls "$dir"/${package}_*.dsc)
# --skip-patches: Debian's patches change configure.ac, and make would then regenerate
# configure (autoconf) and the parser (a host ruby); the VM's code is upstream's
dpkg-source --skip-patches -x "$dsc" "$dir/src" > "$dir/unpack.log" 2>&1 ||
    { tail -20 "$dir/unpack.log" >&2; exit 1; }

# 2. miniruby only: the VM and the core classes, no extension or installed library.
cd "$dir/src"
echo "build_cruby_peer.sh: configuring and building miniruby" >&2
./configure --disable-install-doc --disable-shared --without-gmp --disable-dtrace \
    --disable-jit-support optflags=-O2 debugflags=-g > "$dir/configure.log" 2>&1 ||
    { tail -30 "$dir/configure.log" >&2; exit 1; }
make -j2 miniruby > "$dir/make.log" 2>&1 || { tail -30 "$dir/make.log" >&2; exit 1; }
rm -rf "$apt"
echo "$recipe" > "$dir/.done"
echo "$miniruby"
