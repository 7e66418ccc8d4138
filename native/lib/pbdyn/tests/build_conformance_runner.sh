#!/usr/bin/env bash
# Build protobuf's conformance_test_runner, the suite Google's parsers are held to, from
# Debian's `protobuf` source package, for pb's conformance testee (conformance_testee.c).
#
# The source is the version of the installed libprotobuf-dev (3.21.12 on Debian 12),
# fetched with `apt-get source` through a deb-src list that this script writes and that
# only its own apt-get calls read (-o Dir::Etc::SourceList=..., private lists and cache
# folders): the system's apt configuration and state are not touched. Only the runner is
# built, against the system's libprotobuf: its conformance/*.cc, the bundled jsoncpp and
# the code protoc generates for conformance.proto and test_messages_proto{2,3}.proto, with
# the package's internal headers (stubs/stringprintf.h, ...) after the system's.
#
# Needs root (apt-get), dpkg-source (dpkg-dev), g++, protoc and libprotobuf-dev, all in
# scripts/packages.txt. About 1-3 minutes on 2 cores; a second call, from any checkout,
# only prints the path. Everything lands in the peer cache (native/kernels/peer_cache.sh),
# keyed by the version and this script, linked as build/peers/protobuf-conformance-<version>/
# (CPULAB_BUILD_DIR moves build/); the folder also gets conformance-schema.pb: the
# descriptor set the testee needs (conformance.proto and the test messages, with their
# imports).
#
# Usage: build_conformance_runner.sh [--print-path]
# Prints, as its last line, the path of conformance_test_runner.
set -euo pipefail

print_only=0
for arg in "$@"; do
    case "$arg" in
        --print-path) print_only=1 ;;
        *) echo "build_conformance_runner.sh: unknown argument '$arg' (expected --print-path)" >&2
           exit 2 ;;
    esac
done

here=$(cd "$(dirname "$0")" && pwd)
kernels=$(cd "$here/../../../kernels" && pwd)
# shellcheck source=../../../kernels/peer_cache.sh
. "$kernels/peer_cache.sh"

version=$(dpkg-query -W -f='${Version}' libprotobuf-dev 2>/dev/null || true)
if [[ -z $version ]]; then
    echo "build_conformance_runner.sh: libprotobuf-dev is not installed (make setup)" >&2
    exit 1
fi
recipe="protobuf $version (Debian source package): conformance_test_runner on the system libprotobuf"
peer_cache_open "protobuf-conformance-$version" "$recipe" "$here/build_conformance_runner.sh" \
    "$kernels/peer_cache.sh"
runner=$peer_link/conformance_test_runner

if peer_cache_ready conformance-schema.pb && [[ -x $runner ]]; then
    echo "$runner"
    exit 0
fi
if [[ $print_only == 1 ]]; then
    echo "build_conformance_runner.sh: no runner built yet at $peer_link" >&2
    exit 1
fi

for tool in apt-get dpkg-source g++ protoc; do
    command -v "$tool" >/dev/null || {
        echo "build_conformance_runner.sh: '$tool' not found (make setup installs it)" >&2
        exit 1
    }
done

# 1. The source package, through a deb-src list of this script's own.
peer_cache_stage
dir=$peer_stage
apt=$dir/apt
mkdir -p "$apt/lists/partial" "$apt/archives/partial"
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}")
cat > "$apt/sources.list" <<EOF
deb-src http://deb.debian.org/debian $codename main
deb-src http://deb.debian.org/debian $codename-updates main
deb-src http://deb.debian.org/debian-security $codename-security main
EOF
opts=(-qq -o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
      -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache::archives=$apt/archives"
      -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=" -o "APT::Sandbox::User=root")
echo "build_conformance_runner.sh: fetching Debian's protobuf $version source" >&2
apt-get "${opts[@]}" update >&2
(cd "$dir" && apt-get "${opts[@]}" source --download-only "protobuf=$version" >&2)
dpkg-source -x "$dir/protobuf_${version#*:}.dsc" "$dir/src" > "$dir/unpack.log" 2>&1 ||
    { tail -20 "$dir/unpack.log" >&2; exit 1; }

# 2. Generated code, then the runner's sources, two compilers at a time.
src=$dir/src
gen=$dir/gen
obj=$dir/obj
mkdir -p "$gen" "$obj"
protos=(conformance.proto google/protobuf/test_messages_proto2.proto
        google/protobuf/test_messages_proto3.proto)
protoc -I"$src/src" -I"$src/conformance" --cpp_out="$gen" "${protos[@]}"
protoc -I"$src/src" -I"$src/conformance" --include_imports \
    --descriptor_set_out="$dir/schema.tmp" "${protos[@]}"
units=("$src/conformance/conformance_test.cc" "$src/conformance/conformance_test_runner.cc"
       "$src/conformance/conformance_test_main.cc"
       "$src/conformance/binary_json_conformance_suite.cc"
       "$src/conformance/text_format_conformance_suite.cc"
       "$src/conformance/third_party/jsoncpp/jsoncpp.cpp"
       "$gen/conformance.pb.cc" "$gen/google/protobuf/test_messages_proto2.pb.cc"
       "$gen/google/protobuf/test_messages_proto3.pb.cc")
echo "build_conformance_runner.sh: compiling ${#units[@]} files" >&2
printf '%s\n' "${units[@]}" | xargs -P "$(nproc)" -I{} sh -c \
    'g++ -O1 -w -I"$1" -I"$2" -I"$3" -idirafter "$4" -c "$5" -o "$6/$(basename "$5").o" \
        2>> "$6/compile.log"' _ "$gen" "$src/conformance" "$src" "$src/src" {} "$obj" ||
    { tail -30 "$obj/compile.log" >&2; exit 1; }
g++ -o "$dir/conformance_test_runner" "$obj"/*.o -lprotobuf -lpthread
mv "$dir/schema.tmp" "$dir/conformance-schema.pb"
rm -rf "$apt" "$obj"
peer_cache_commit
echo "$runner"
