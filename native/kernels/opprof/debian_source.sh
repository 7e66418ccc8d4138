# Sourced by the interpreter builds of this folder: fetch_debian_source PACKAGE DIR puts
# Debian's source package PACKAGE, unpacked without Debian's patches, in DIR/src.
#
# `apt-get source` reads a deb-src list that this function writes under DIR/apt and that
# only its own apt-get calls read (-o Dir::Etc::SourceList=..., private lists and cache
# folders): the system's apt configuration is not touched. Patches are skipped because
# Debian's change configure.ac, and make would then regenerate configure (autoconf); the
# interpreters' VM code is upstream's. Needs root (apt-get) and dpkg-source (dpkg-dev).

fetch_debian_source() {
    local package=$1 dir=$2 name=${3:-fetch_debian_source}
    local apt=$dir/apt codename
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
    echo "$name: fetching Debian's $package source" >&2
    apt-get "${opts[@]}" update >&2
    (cd "$dir" && apt-get "${opts[@]}" source --download-only "$package" >&2)
    local dsc
    dsc=$(ls "$dir"/"${package}"_*.dsc)
    dpkg-source --skip-patches -x "$dsc" "$dir/src" > "$dir/unpack.log" 2>&1 ||
        { tail -20 "$dir/unpack.log" >&2; return 1; }
    rm -rf "$apt"
}
