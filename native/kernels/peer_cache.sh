# Sourced by the peer builds (build_*_peer.sh, native/lib/pb/tests/build_conformance_runner.sh):
# where a built peer is kept. A peer takes minutes to build (upb 1-2, GMP 1-6, CRuby 2-10
# on 2 cores), so it is built once per machine and recipe, outside any checkout, and a
# fresh clone (CI's) finds it instead of building it again:
#
#   $CPULAB_PEER_CACHE/NAME-KEY   the entry; $CPULAB_PEER_CACHE defaults to
#                                 $XDG_CACHE_HOME/cpulab/peers (~/.cache/cpulab/peers)
#   build/peers/NAME -> entry     the name the lab, its tests and its docs use
#                                 (CPULAB_BUILD_DIR moves build/)
#
# KEY is the first 16 hex digits of a sha256 over the recipe (what the script says it
# builds: versions, compiler, flags) and the content of the scripts that build it, so a
# changed recipe or script gets a new entry and never a stale one; entries of old keys
# stay until removed by hand (rm -rf ~/.cache/cpulab/peers).
#
# A build goes into a fresh stage folder beside the entry and is renamed into place once
# finished, .done (holding the recipe) included: an entry is whole or absent, and two
# builders of the same key leave one entry (the second rename fails and its stage goes).
#
#   peer_key RECIPE FILE...
#       prints KEY for RECIPE and FILEs' content
#   peer_cache_open NAME RECIPE FILE...
#       sets peer_entry (the entry), peer_link (build/peers/NAME) and peer_recipe
#   peer_cache_ready [ARTIFACT]
#       status 0 when the entry is finished with this recipe (and holds ARTIFACT, a path
#       relative to it), after pointing peer_link at it
#   peer_cache_stage
#       sets peer_stage: an empty folder to build into, beside the entry
#   peer_cache_commit
#       records the recipe in the stage's .done, renames the stage to the entry and
#       points peer_link at it

peer_key() {
    local recipe=$1
    shift
    { printf '%s\n' "$recipe"; cat "$@"; } | sha256sum | cut -c1-16
}

peer_cache_open() {
    local name=$1 recipe=$2 key
    shift 2
    key=$(peer_key "$recipe" "$@")
    local cache=${CPULAB_PEER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cpulab/peers}
    local here root
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    root=$(cd "$here/../.." && pwd)
    peer_entry=$cache/$name-$key
    peer_link=${CPULAB_BUILD_DIR:-$root/build}/peers/$name
    peer_recipe=$recipe
}

peer_cache_ready() {
    [[ -f $peer_entry/.done && $(cat "$peer_entry/.done") == "$peer_recipe" ]] || return 1
    [[ -z ${1:-} || -e $peer_entry/$1 ]] || return 1
    _peer_cache_link
}

peer_cache_stage() {
    mkdir -p "$(dirname "$peer_entry")"
    peer_stage=$(mktemp -d "$peer_entry.stage-XXXXXX")
    chmod 755 "$peer_stage"  # mktemp makes it private; the entry is for every user of the cache
    # a build that fails or is interrupted leaves no stage behind (a committed one is gone)
    trap 'rm -rf "$peer_stage"' EXIT
}

peer_cache_commit() {
    echo "$peer_recipe" > "$peer_stage/.done"
    # mv -T renames the folder itself, and fails on an entry another builder finished first
    if ! mv -T "$peer_stage" "$peer_entry" 2>/dev/null; then
        rm -rf "$peer_stage"
        peer_cache_ready || { echo "peer_cache: cannot move the build to $peer_entry" >&2
                              return 1; }
    fi
    _peer_cache_link
}

# build/peers/NAME as a link to the entry, replaced by a rename so that no reader sees it
# missing; a folder left there by a build of before the cache is removed first.
_peer_cache_link() {
    [[ $(readlink "$peer_link" 2>/dev/null) == "$peer_entry" ]] && return 0
    mkdir -p "$(dirname "$peer_link")"
    [[ -d $peer_link && ! -L $peer_link ]] && rm -rf "$peer_link"
    ln -s "$peer_entry" "$peer_link.link-$$"
    mv -T "$peer_link.link-$$" "$peer_link"
}
