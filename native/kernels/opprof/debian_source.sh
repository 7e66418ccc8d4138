# Sourced by the interpreter builds of this folder (build_cruby_peer.sh,
# build_cpython_peer.sh), which differ only in their package and their configure and
# make steps. Each calls, in order:
#
#   peer_begin NAME PEER ARTIFACT RECIPE [ARGS...]
#       parses --print-path; prints build/peers/PEER/ARTIFACT and exits when the peer
#       cache (../peer_cache.sh) has a finished build of RECIPE and of the script NAME;
#       with --print-path and no such build, says so and exits 1; else sets `peer_dir`,
#       the folder to build in, and `debug_map`, the compiler flag that names the sources
#       in the debug information by the folder they end up in
#   fetch_debian_source PACKAGE
#       Debian's source package PACKAGE, unpacked without Debian's patches, in
#       $peer_dir/src
#   peer_done
#       moves the build into the cache and prints build/peers/PEER/ARTIFACT
#
# `apt-get source` reads a deb-src list that fetch_debian_source writes under
# $peer_dir/apt and that only its own apt-get calls read (-o Dir::Etc::SourceList=...,
# private lists and cache folders): the system's apt configuration is not touched.
# Patches are skipped because Debian's change configure.ac, and make would then
# regenerate configure (autoconf); the interpreters' VM code is upstream's. Needs root
# (apt-get), dpkg-source (dpkg-dev), gcc and make.

# shellcheck source=../peer_cache.sh
. "$(dirname "${BASH_SOURCE[0]}")/../peer_cache.sh"

peer_begin() {
    peer_name=$1
    local peer=$2 artifact=$3 recipe=$4 scripts
    shift 4
    local print_only=0 arg
    for arg in "$@"; do
        case "$arg" in
            --print-path) print_only=1 ;;
            *) echo "$peer_name: unknown argument '$arg' (expected --print-path)" >&2
               exit 2 ;;
        esac
    done
    scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    peer_cache_open "$peer" "$recipe" "$scripts/$peer_name" "$scripts/debian_source.sh" \
        "$scripts/../peer_cache.sh"
    peer_artifact=$peer_link/$artifact
    if peer_cache_ready "$artifact" && [[ -x $peer_artifact ]]; then
        echo "$peer_artifact"
        exit 0
    fi
    if [[ $print_only == 1 ]]; then
        echo "$peer_name: no $(basename "$artifact") built yet at $peer_link" >&2
        exit 1
    fi
    local tool
    for tool in apt-get dpkg-source gcc make; do
        command -v "$tool" >/dev/null || {
            echo "$peer_name: '$tool' not found (make setup installs it)" >&2
            exit 1
        }
    done
    peer_cache_stage
    peer_dir=$peer_stage
    # opprof finds the interpreter's sources through the paths in its DWARF: name them
    # where the build is moved to, not the stage it is built in
    debug_map=-fdebug-prefix-map=$peer_stage=$peer_entry
}

fetch_debian_source() {
    local package=$1 apt=$peer_dir/apt codename
    mkdir -p "$apt/lists/partial" "$apt/archives/partial"
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}")
    # the point releases only: the security archive's pool is not reachable from every lab
    cat > "$apt/sources.list" <<LIST
deb-src http://deb.debian.org/debian $codename main
deb-src http://deb.debian.org/debian $codename-updates main
LIST
    local opts=(-qq -o "Dir::Etc::SourceList=$apt/sources.list"
                -o "Dir::Etc::SourceParts=/dev/null" -o "Dir::State::Lists=$apt/lists"
                -o "Dir::Cache::archives=$apt/archives" -o "Dir::Cache::pkgcache="
                -o "Dir::Cache::srcpkgcache=" -o "APT::Sandbox::User=root")
    echo "$peer_name: fetching Debian's $package source" >&2
    apt-get "${opts[@]}" update >&2
    (cd "$peer_dir" && apt-get "${opts[@]}" source --download-only "$package" >&2)
    local dsc
    dsc=$(ls "$peer_dir"/"${package}"_*.dsc)
    dpkg-source --skip-patches -x "$dsc" "$peer_dir/src" > "$peer_dir/unpack.log" 2>&1 ||
        { tail -20 "$peer_dir/unpack.log" >&2; exit 1; }
    rm -rf "$apt"
}

# run_logged LOG CMD...: CMD's output into $peer_dir/LOG, its tail on failure
run_logged() {
    local log=$peer_dir/$1
    shift
    "$@" > "$log" 2>&1 || { tail -30 "$log" >&2; exit 1; }
}

peer_done() {
    peer_cache_commit
    echo "$peer_artifact"
}
