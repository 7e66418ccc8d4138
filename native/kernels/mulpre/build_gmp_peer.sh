#!/usr/bin/env bash
# Build a GMP that runs this CPU's own assembly, as a peer for the mulpre benchmark.
#
# Debian's libgmp is a generic x86-64 build: its mpn_mul_basecase uses `mul`, never
# mulx/adox/adcx. GMP 6.3.0's sources travel inside the crates.io crate gmp-mpfr-sys;
# this script fetches that crate with cargo (no other download), copies the GMP tree
# into the peer's folder, and builds it either tuned for this host (default: config.guess
# names the CPU, e.g. zen4-pc-linux-gnu, and the build links that CPU's mpn/*.asm) or as
# a fat build (--fat: every x86-64 variant, chosen at run time through __gmpn_cpuvec).
#
# A CPU newer than GMP 6.3.0 (AMD family 26, Zen 5, say) is unknown to its config.guess,
# which then names a bare x86_64 and the "tuned" build runs the generic k8 code; an Intel
# model it does not know (family 6 model 207, Emerald Rapids) is named after its oldest
# features, nehalem, whose mul_basecase is core2's `mul` loop. Where the CPU has BMI2 and
# ADX and the guess is such a name, the host build is configured as the newest CPU of the
# same vendor that GMP knows (zen4, skylake), whose mpn_mul_basecase is the mulx/adox/adcx
# code of x86_64/coreibwl; CODEPATH records that choice.
#
# Idempotent: a finished build is kept in the peer cache (../peer_cache.sh), keyed by the
# crate's version, the mode, these scripts and, for a host build, the CPU it is tuned for,
# and linked as build/peers/gmp-<mode>; a second call, from any checkout, only prints its
# path (also offline). Writes nothing outside the cache, build/peers/ and cargo's cache.
# About 1-6 minutes on 2 cores.
#
# Usage: build_gmp_peer.sh [--fat] [--print-path]
# Prints, as its last line, the path of the built libgmp.so.
set -euo pipefail

mode=host
print_only=0
for arg in "$@"; do
    case "$arg" in
        --fat) mode=fat ;;
        --print-path) print_only=1 ;;
        *) echo "build_gmp_peer.sh: unknown argument '$arg' (expected --fat, --print-path)" >&2
           exit 2 ;;
    esac
done

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=crate_source.sh
. "$here/crate_source.sh"
# shellcheck source=../peer_cache.sh
. "$here/../peer_cache.sh"
crate_version=1.7.1

# A host build is tuned for this CPU: the same cache on another CPU must not reuse it.
cpu=
if [[ $mode == host ]]; then
    cpu=$(awk -F'\t*: ' '/^(vendor_id|cpu family|model|flags)\t/ && !seen[$1]++ { print $2 }' \
        /proc/cpuinfo | tr '\n' ' ')
fi
peer_cache_open "gmp-$mode" "gmp-mpfr-sys $crate_version, $mode${cpu:+, for $cpu}" \
    "$here/build_gmp_peer.sh" "$here/crate_source.sh" "$here/../peer_cache.sh"
lib=$peer_link/lib/libgmp.so

if peer_cache_ready lib/libgmp.so; then
    echo "$lib"
    exit 0
fi
if [[ $print_only == 1 ]]; then
    echo "build_gmp_peer.sh: no $mode build yet at $peer_link" >&2
    exit 1
fi

# The configure arguments for a GMP source tree ($1), in `conf`: for a host build whose
# CPU config.guess does not know, the newest CPU of the same vendor that GMP 6.3.0 knows,
# if this CPU has what that code needs.
# config.guess's names for CPUs without ADX: on a CPU with ADX, a guess that did not know it.
pre_adx="x86_64|k8|k10|bobcat|jaguar|bulldozer|piledriver|steamroller|excavator|core2"
pre_adx+="|penryn|nehalem|westmere|sandybridge|ivybridge|haswell|atom|silvermont|goldmont"
plan() {
    conf=(--disable-static --enable-shared)
    guess=$(sh "$1/config.guess")
    fallback=""
    if [[ $mode == fat ]]; then
        conf+=(--enable-fat)
    elif [[ ${guess%%-*} =~ ^($pre_adx)$ ]] && grep -qw bmi2 /proc/cpuinfo &&
        grep -qw adx /proc/cpuinfo
    then
        case $(sed -n 's/^vendor_id[[:space:]]*: //p' /proc/cpuinfo | head -1) in
            AuthenticAMD) fallback=zen4 ;;
            GenuineIntel) fallback=skylake ;;
        esac
        [[ -n $fallback ]] && conf+=(--build="$fallback-pc-linux-gnu")
    fi
}

for tool in cargo m4 make cc; do
    command -v "$tool" >/dev/null || {
        echo "build_gmp_peer.sh: '$tool' not found (cargo: rustup; m4/make: make setup)" >&2
        exit 1
    }
done

# 1. The crate, through cargo.
peer_cache_stage
prefix=$peer_stage
crate=$(crate_dir gmp-mpfr-sys "$crate_version" "$prefix/fetch") || exit 1
src_in_crate=$crate/gmp-6.3.0-c
[[ -x $src_in_crate/configure ]] || {
    echo "build_gmp_peer.sh: no GMP source at $src_in_crate" >&2
    exit 1
}

# 2. Copy the tree (timestamps kept, so configure never asks for autotools) and build.
src=$prefix/src
plan "$src_in_crate"
cp -a "$src_in_crate" "$src"
rm -rf "$prefix/fetch"
(
    cd "$src"
    ./configure --prefix="$prefix" "${conf[@]}" > configure.log 2>&1 ||
        { tail -30 configure.log >&2; exit 1; }
    make -j"$(nproc)" > make.log 2>&1 || { tail -30 make.log >&2; exit 1; }
    make install > install.log 2>&1 || { tail -30 install.log >&2; exit 1; }
)

# 3. Record which code path it carries: the configured CPU and, for a host build, the
#    source file behind mpn_mul_basecase (a symlink made by configure).
{
    echo "mode: $mode"
    echo "gmp: 6.3.0 (crates.io gmp-mpfr-sys $crate_version)"
    echo "configure: ${conf[*]}"
    echo "config.guess: $guess"
    if [[ -n $fallback ]]; then
        echo "configured as: $fallback (config.guess does not know this CPU; it has bmi2 and adx)"
    fi
    echo "host: $(sed -n 's/^host=//p' "$src/config.log" | head -1 | tr -d "'")"
    if [[ $mode == fat ]]; then
        echo "mul_basecase: chosen at run time by __gmpn_cpuvec (mulpre_bench prints which)"
    fi
    for fn in mul_basecase sqr_basecase; do
        [[ -L $src/mpn/$fn.asm ]] || continue
        # A CPU's file may only include another's (zen3 -> coreibwl): name both.
        included=$(sed -n "s/^include_mpn(\`\(.*\)')/\1/p" "$src/mpn/$fn.asm" | head -1)
        echo "$fn: $(readlink "$src/mpn/$fn.asm")${included:+ (includes $included)}"
    done
} > "$prefix/CODEPATH"
peer_cache_commit
echo "$lib"
