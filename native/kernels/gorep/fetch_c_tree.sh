#!/usr/bin/env bash
# The C tree the `gorep` experiment searches: Debian's source package PACKAGE (default
# `linux`, the kernel: ~75,000 files, ~1.3 GB unpacked, as in ripgrep's own benchsuite),
# fetched with `apt-get source` through a deb-src list that only this script's apt-get
# calls read (../opprof/debian_source.sh), unpacked without Debian's patches, and kept
# in the peer cache (../peer_cache.sh) as build/peers/ctree-PACKAGE/src. Nothing is
# built. Needs root (apt-get) and dpkg-source (dpkg-dev); a second call, from any
# checkout, only prints the path.
#
# Usage: fetch_c_tree.sh [PACKAGE] [--print-path]
# Prints, as its last line, the path of the unpacked tree.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
package=linux
if [[ $# -gt 0 && $1 != --* ]]; then
    package=$1
    shift
fi
# shellcheck source=../opprof/debian_source.sh
. "$here/../opprof/debian_source.sh"
peer_begin ../gorep/fetch_c_tree.sh "ctree-$package" src \
    "$package (Debian source package): the unpacked tree, unbuilt" "$@"
fetch_debian_source "$package"
rm -f "$peer_dir"/*.orig.tar.* "$peer_dir"/*.debian.tar.* "$peer_dir"/*.dsc
peer_done
