#!/usr/bin/env bash
# Build upb, Google's C protobuf runtime (the seed's own parser), as a native peer for the
# protobuf benchmark: a static, position-independent libupb.a and the headers its adapter
# (upb_adapter.c) includes. upb ships no Debian package of this generation, so it is built
# from the C sources that PyPI source distributions carry, fetched with pip (no other
# download):
#
#   generic    upb's generic decoder, from the `protobuf` sdist at the version uv.lock pins
#              (the same upb that the Python figure, upb-python, runs);
#   fasttable  upb's tail-call field parsers (upb/wire/decode_fast/), which the protobuf
#              sdist leaves out; the `grpcio` sdist vendors the whole upb tree with them
#              under third_party/upb. Built with -DUPB_ENABLE_FASTTABLE (clang's musttail,
#              x86-64): mini-tables built at run time then get their fast tables too. In
#              grpcio 1.85.1's upb they cover scalar, string, bytes and packed fields; its
#              combinations.h leaves sub-message fields to the generic decoder.
#   fasttable-git  the same from upb's public repository (a clone of
#              github.com/protocolbuffers/protobuf, given with --tree DIR: a work tree or a
#              bare repository, whose HEAD is built), whose fasttable also covers
#              sub-message fields. Nothing of it is copied into the project: the sources
#              are unpacked under build/peers/ like the sdists'.
#
# Both are compiled by clang at -O2 -DNDEBUG, as upb's own optimised builds are. Only the
# runtime is built: base, hash, lex, mem, message, mini_descriptor, mini_table, port,
# reflection (to build mini-tables from a FileDescriptorSet at run time), wire, json where
# the sources carry it (grpcio's and the repository's do, the protobuf sdist does not: the
# JSON printing figures' upb is the fasttable build's), the generated descriptor.proto code
# and utf8_range.
#
# Idempotent: a finished build is kept in the peer cache (../peer_cache.sh), keyed by its
# recipe and this script, and linked as build/peers/upb-<mode>; a second call, from any
# checkout, only prints the prefix. Writes nothing outside the cache, build/peers/ and
# pip's cache. About 1-2 minutes on 2 cores.
#
# Usage: build_upb_peer.sh [--fasttable [--tree DIR]] [--print-path]
# Prints, as its last line, the prefix: PREFIX/lib/libupb.a, PREFIX/include.
set -euo pipefail

mode=generic
print_only=0
tree=
while (($#)); do
    case "$1" in
        --fasttable) mode=fasttable ;;
        --tree) [[ $# -ge 2 ]] || { echo "build_upb_peer.sh: --tree needs a directory" >&2; exit 2; }
                tree=$2; shift ;;
        --print-path) print_only=1 ;;
        *) echo "build_upb_peer.sh: unknown argument '$1' (expected --fasttable, --tree DIR, --print-path)" >&2
           exit 2 ;;
    esac
    shift
done
if [[ -n $tree ]]; then
    [[ $mode == fasttable ]] || { echo "build_upb_peer.sh: --tree goes with --fasttable" >&2; exit 2; }
    mode=fasttable-git
fi

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../peer_cache.sh
. "$here/../peer_cache.sh"
root=$(cd "$here/../../.." && pwd)
cc=${CPULAB_UPB_CC:-clang-19}

# The sdist and its version: protobuf at uv.lock's pin; grpcio pinned here.
grpcio_version=1.85.1
if [[ $mode == generic ]]; then
    dist=protobuf
    version=$(awk '/^name = "protobuf"$/ { getline; gsub(/version = |"/, ""); print; exit }' \
        "$root/uv.lock")
    [[ -n $version ]] || { echo "build_upb_peer.sh: no protobuf pin in $root/uv.lock" >&2; exit 1; }
    defines=()
elif [[ $mode == fasttable ]]; then
    dist=grpcio
    version=$grpcio_version
    defines=(-DUPB_ENABLE_FASTTABLE)
else
    commit=$(git -C "$tree" rev-parse --verify -q HEAD) || {
        echo "build_upb_peer.sh: $tree is not a git repository of protobuf" >&2; exit 1; }
    dist=protobuf-git
    version=${commit:0:12}
    defines=(-DUPB_ENABLE_FASTTABLE)
fi
if [[ $mode == fasttable-git ]]; then
    recipe="upb $mode from github.com/protocolbuffers/protobuf $version: $cc -O2 -DNDEBUG ${defines[*]}"
else
    recipe="upb $mode from PyPI $dist $version: $cc -O2 -DNDEBUG ${defines[*]}"
fi

peer_cache_open "upb-$mode" "$recipe" "$here/build_upb_peer.sh" "$here/../peer_cache.sh"
if peer_cache_ready lib/libupb.a; then
    echo "$peer_link"
    exit 0
fi
if [[ $print_only == 1 ]]; then
    echo "build_upb_peer.sh: no $mode build yet at $peer_link" >&2
    exit 1
fi
for tool in python3 "$cc" ar; do
    command -v "$tool" >/dev/null || {
        echo "build_upb_peer.sh: '$tool' not found (make setup)" >&2
        exit 1
    }
done

# 1. The sources: the sdist through pip, or the repository's HEAD through git archive.
peer_cache_stage
prefix=$peer_stage
mkdir -p "$prefix/dist"
if [[ $mode == fasttable-git ]]; then
    echo "build_upb_peer.sh: taking upb from $tree at $version" >&2
    git -C "$tree" archive --format=tar.gz --prefix="$dist-$version/" \
        -o "$prefix/dist/$dist-$version.tar.gz" HEAD upb third_party/utf8_range
else
    echo "build_upb_peer.sh: fetching the $dist $version sdist from PyPI" >&2
    # shellcheck source=../peer_pip.sh
    . "$here/../peer_pip.sh"
    peer_pip build_upb_peer.sh || exit 1
    "${pip[@]}" download --quiet --no-deps --no-binary :all: "$dist==$version" \
        -d "$prefix/dist" >&2
fi
tarball=$(ls "$prefix"/dist/*.tar.gz)

# 2. One layout for both sources: include/upb, include/google/protobuf/*.upb* (the code
#    generated for descriptor.proto and the options upb's reflection reads), include/utf8_range.
inc=$prefix/include
mkdir -p "$inc/google/protobuf"
tmp=$prefix/unpack
mkdir -p "$tmp"
top=$dist-$version
if [[ $mode == generic ]]; then
    tar -xzf "$tarball" -C "$tmp" "$top/upb" "$top/utf8_range" "$top/google/protobuf"
    cp -a "$tmp/$top/upb" "$inc/upb"
    cp -a "$tmp/$top/utf8_range" "$inc/utf8_range"
    cp -a "$tmp/$top"/google/protobuf/*.upb* "$inc/google/protobuf/"
else
    # grpcio vendors upb under third_party/upb; the repository has it at the top.
    upb_dir=$top/third_party/upb/upb
    [[ $mode == fasttable-git ]] && upb_dir=$top/upb
    tar -xzf "$tarball" -C "$tmp" "$upb_dir" "$top/third_party/utf8_range"
    cp -a "$tmp/$upb_dir" "$inc/upb"
    cp -a "$tmp/$top/third_party/utf8_range" "$inc/utf8_range"
    cp -a "$inc"/upb/reflection/cmake/google/protobuf/*.upb* "$inc/google/protobuf/"
    [[ -d $inc/upb/wire/decode_fast ]] || {
        echo "build_upb_peer.sh: $dist $version carries no upb/wire/decode_fast" >&2
        exit 1
    }
fi
rm -rf "$tmp"

# 3. Compile the runtime, two files at a time, into one archive.
components=(upb/base upb/hash upb/lex upb/mem upb/message upb/mini_descriptor upb/mini_table
            upb/port upb/reflection upb/wire)
[[ -d $inc/upb/json ]] && components+=(upb/json)
mapfile -t units < <(
    cd "$inc" && find "${components[@]}" -name '*.c' \
        ! -name '*_test*' ! -path '*/stage0/*' ! -path '*/stage1/*' ! -path '*/cmake/*' |
        sort
    ls google/protobuf/*.upb*.c utf8_range/utf8_range.c)
obj=$prefix/obj
mkdir -p "$obj" "$prefix/lib"
echo "build_upb_peer.sh: compiling ${#units[@]} files with $cc" >&2
printf '%s\n' "${units[@]}" | xargs -P "$(nproc)" -I{} sh -c \
    'o="$3/$(echo "$4" | tr / _).o"; cd "$2" && $1 -O2 -DNDEBUG -fPIC -w $5 -I. -Iutf8_range \
        -c "$4" -o "$o" 2>> "$3/compile.log"' \
    _ "$cc" "$inc" "$obj" {} "${defines[*]}" ||
    { tail -30 "$obj/compile.log" >&2; exit 1; }
ar rcs "$prefix/lib/libupb.a" "$obj"/*.o
rm -rf "$obj" "$prefix/dist"
peer_cache_commit
echo "$peer_link"
