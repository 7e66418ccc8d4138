#!/usr/bin/env bash
# Build the ISA-L inflater that stops at deflate block boundaries, for gzwrap's joins of
# gzip members (src/inflate_isal_stops.c says what it is used for).
#
# Upstream ISA-L never stops inside a stream (its issue #254 asks for it, open); the ISA-L
# that rapidgzip carries adds "stopping points" to isal_inflate (points_to_stop_at:
# ISAL_STOPPING_POINT_END_OF_BLOCK and others), the same decoder otherwise. It is not
# packaged for Debian: it is built from the `rapidgzip` sdist on PyPI (src/external/isa-l),
# fetched with pip, no other download. Only what inflating needs is kept, as ONE relocatable
# object whose every global symbol X is renamed gzwrap__isal_X, so that it lives beside a
# system ISA-L in one program and stays hidden inside libcpulab-gzwrap.so (whose export map
# shows gzwrap_* alone):
#
#   PREFIX/lib/gzwrap_isal_stops.o             the object, linked into the library
#   PREFIX/include/isal-stops/igzip_lib.h      rapidgzip's header (with isal_stopping_point)
#   PREFIX/include/isal-stops/renamed.h        #define X gzwrap__isal_X, for each symbol
#
# The C files are compiled with gcc -O2 -DNDEBUG -fPIC, the assembly with nasm as ISA-L's
# own makefiles do (-f elf64 -DHAVE_AS_KNOWS_AVX512 -DAS_FEATURE_LEVEL=10). x86-64 only.
#
# Idempotent: kept in the peer cache (native/kernels/peer_cache.sh), keyed by this recipe
# and this script, and linked as build/peers/isal-stops; a second call only prints the
# prefix. About 20 seconds on 2 cores.
#
# Usage: build_isal_stops.sh [--print-path]
# Prints, as its last line, the prefix.
set -euo pipefail

print_only=0
case "${1:-}" in
    --print-path) print_only=1 ;;
    "") ;;
    *) echo "build_isal_stops.sh: unknown argument '$1' (expected --print-path)" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
kernels=$(cd "$here/../../../kernels" && pwd)
# shellcheck source=../../../kernels/peer_cache.sh
. "$kernels/peer_cache.sh"

version=0.16.2
cflags=(-O2 -DNDEBUG -fPIC)
nasmflags=(-f elf64 -DPIC -DHAVE_AS_KNOWS_AVX512 -DAS_FEATURE_LEVEL=10)
recipe="ISA-L inflate with stopping points from PyPI rapidgzip $version: gcc ${cflags[*]}, nasm ${nasmflags[*]}, symbols gzwrap__isal_*"
peer_cache_open isal-stops "$recipe" "$here/build_isal_stops.sh" "$kernels/peer_cache.sh"
if peer_cache_ready lib/gzwrap_isal_stops.o; then
    echo "$peer_link"
    exit 0
fi
if [[ $print_only == 1 ]]; then
    echo "build_isal_stops.sh: no build yet at $peer_link" >&2
    exit 1
fi
[[ $(uname -m) == x86_64 ]] || { echo "build_isal_stops.sh: x86-64 only" >&2; exit 1; }
for tool in python3 gcc nasm ar ld objcopy nm; do
    command -v "$tool" >/dev/null || {
        echo "build_isal_stops.sh: '$tool' not found (make setup)" >&2
        exit 1
    }
done

peer_cache_stage
prefix=$peer_stage
mkdir -p "$prefix/dist" "$prefix/lib" "$prefix/include/isal-stops" "$prefix/obj"
echo "build_isal_stops.sh: fetching the rapidgzip $version sdist from PyPI" >&2
# shellcheck source=../../../kernels/peer_pip.sh
. "$kernels/peer_pip.sh"
peer_pip build_isal_stops.sh || exit 1
"${pip[@]}" download --quiet --no-deps --no-binary :all: "rapidgzip==$version" \
    -d "$prefix/dist" >&2
tar -xzf "$prefix/dist/rapidgzip-$version.tar.gz" -C "$prefix/dist" \
    "rapidgzip-$version/src/external/isa-l"
src=$prefix/dist/rapidgzip-$version/src/external/isa-l

# Every igzip and CRC source of the x86-64 build; the link below keeps what inflating needs
# (the inflater refers to the gzip and zlib header helpers, which live with the deflater).
obj=$prefix/obj
for f in igzip/igzip_inflate igzip/igzip igzip/hufftables_c igzip/encode_df \
         igzip/igzip_icf_base igzip/igzip_icf_body igzip/igzip_base igzip/adler32_base \
         igzip/flatten_ll igzip/huff_codes crc/crc_base; do
    gcc "${cflags[@]}" -I"$src/include" -I"$src/igzip" -c "$src/$f.c" -o "$obj/${f//\//_}.o"
done
for f in igzip/igzip_inflate_multibinary igzip/igzip_decode_block_stateless_01 \
         igzip/igzip_decode_block_stateless_04 igzip/rfc1951_lookup igzip/igzip_deflate_hash \
         igzip/igzip_body igzip/igzip_multibinary igzip/igzip_update_histogram_01 \
         igzip/igzip_update_histogram_04 igzip/encode_df_04 igzip/encode_df_06 \
         igzip/igzip_finish igzip/igzip_gen_icf_map_lh1_04 igzip/igzip_gen_icf_map_lh1_06 \
         igzip/igzip_icf_body_h1_gr_bt igzip/igzip_icf_finish igzip/igzip_set_long_icf_fg_04 \
         igzip/igzip_set_long_icf_fg_06 igzip/proc_heap igzip/adler32_avx2_4 igzip/adler32_sse \
         crc/crc_multibinary crc/crc_const crc/crc32_gzip_refl_by16_10 \
         crc/crc32_gzip_refl_avx2 crc/crc32_gzip_refl_by8; do
    nasm "${nasmflags[@]}" -I"$src/" -I"$src/include/" -I"$src/igzip/" -I"$src/crc/" "$src/$f.asm" \
        -o "$obj/${f//\//_}.o"
done
ar rcs "$obj/libisal.a" "$obj"/*.o
ld -r -o "$obj/inflate.o" -u isal_inflate_init -u isal_inflate_reset -u isal_inflate \
    -u isal_inflate_set_dict "$obj/libisal.a"

# gzwrap__isal_X for every global symbol X the object defines
nm --defined-only -g "$obj/inflate.o" | awk 'NF == 3 { print $3 }' | sort -u > "$obj/symbols"
awk '{ print $1, "gzwrap__isal_" $1 }' "$obj/symbols" > "$obj/renames"
objcopy --redefine-syms="$obj/renames" "$obj/inflate.o" "$prefix/lib/gzwrap_isal_stops.o"
{
    echo "/* gzwrap's ISA-L with stopping points (tools/build_isal_stops.sh): its symbols renamed."
    echo " * Include before igzip_lib.h. */"
    awk '{ print "#define", $1, "gzwrap__isal_" $1 }' "$obj/symbols"
} > "$prefix/include/isal-stops/renamed.h"
cp "$src/include/igzip_lib.h" "$src/LICENSE" "$prefix/include/isal-stops/"
rm -rf "$prefix/dist" "$obj"

peer_cache_commit
echo "$peer_link"
