#!/usr/bin/env bash
# Build mcl's fixed-size multiply (herumi/mcl, `mclb_mul_fastN`) as a peer for the mulpre
# benchmark: the hand-written mulx/adox/adcx code that seed S11 describes.
#
# mcl's sources travel inside the crates.io crate mcl_rust (1.2.0 carries the whole mcl
# tree); this script fetches that crate with cargo (no other download), copies mcl's
# x86-64 ELF assembly, src/asm/bint-x64-amd64.S, into build/peers/mcl/src and assembles it
# alone into build/peers/mcl/lib/libmclbint.so. That file is self-contained (no external
# symbol), and its mclb_mul_fast1..9(z, x, y) are the functions mcl's own dispatch calls
# where the CPU has BMI2 and ADX. Nothing of mcl is committed to this repository.
#
# Idempotent: a finished build is kept in the peer cache (../peer_cache.sh), keyed by its
# recipe and these scripts, and linked as build/peers/mcl; a second call with the same
# recipe, from any checkout, only prints its path (also offline). Writes nothing outside
# the cache, build/peers/ and cargo's cache. A few seconds once the crate is fetched.
#
# Usage: build_mcl_peer.sh [--print-path]
# Prints, as its last line, the path of the built libmclbint.so.
set -euo pipefail

print_only=0
for arg in "$@"; do
    case "$arg" in
        --print-path) print_only=1 ;;
        *) echo "build_mcl_peer.sh: unknown argument '$arg' (expected --print-path)" >&2
           exit 2 ;;
    esac
done

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=crate_source.sh
. "$here/crate_source.sh"
# shellcheck source=../peer_cache.sh
. "$here/../peer_cache.sh"
crate_version=1.2.0
asm_in_tree=src/asm/bint-x64-amd64.S
cc=${CC:-cc}
recipe="mcl_rust $crate_version: $asm_in_tree, $cc -shared"
peer_cache_open mcl "$recipe" "$here/build_mcl_peer.sh" "$here/crate_source.sh" \
    "$here/../peer_cache.sh"
lib=$peer_link/lib/libmclbint.so

if peer_cache_ready lib/libmclbint.so; then
    echo "$lib"
    exit 0
fi
if [[ $print_only == 1 ]]; then
    echo "build_mcl_peer.sh: no mcl build yet at $peer_link" >&2
    exit 1
fi
if [[ $(uname -m) != x86_64 ]]; then
    echo "build_mcl_peer.sh: mcl's mulx/adox/adcx assembly needs x86-64 (this is $(uname -m))" >&2
    exit 1
fi
for tool in cargo "$cc"; do
    command -v "$tool" >/dev/null || {
        echo "build_mcl_peer.sh: '$tool' not found (cargo: rustup; cc: make setup)" >&2
        exit 1
    }
done

# 1. The crate, through cargo.
peer_cache_stage
prefix=$peer_stage
crate=$(crate_dir mcl_rust "$crate_version" "$prefix/fetch") || exit 1
mcl_tree=$crate/mcl
[[ -f $mcl_tree/$asm_in_tree ]] || {
    echo "build_mcl_peer.sh: no mcl assembly at $mcl_tree/$asm_in_tree" >&2
    exit 1
}

# 2. Copy the assembly (and mcl's licence beside it) and build the shared library.
src=$prefix/src
mkdir -p "$src" "$prefix/lib"
cp "$mcl_tree/$asm_in_tree" "$src/"
cp "$mcl_tree/COPYRIGHT" "$src/" 2>/dev/null || true
rm -rf "$prefix/fetch"
"$cc" -shared -o "$prefix/lib/libmclbint.so" "$src/bint-x64-amd64.S"
exported=$(nm -D --defined-only "$prefix/lib/libmclbint.so")
for n in 1 2 3 4 5 6 7 8 9; do
    grep -qw "mclb_mul_fast$n" <<<"$exported" || {
        echo "build_mcl_peer.sh: the built libmclbint.so has no mclb_mul_fast$n" >&2
        exit 1
    }
done
{
    echo "mcl: $asm_in_tree from crates.io mcl_rust $crate_version"
    echo "functions: mclb_mul_fast1..9 (mulx/adox/adcx; the rdx operand is x[i])"
} > "$prefix/CODEPATH"
peer_cache_commit
echo "$lib"
