# Sourced by the peer builds of this folder whose sources travel inside a crates.io crate
# (GMP in gmp-mpfr-sys, mcl in mcl_rust):
#
#   crate_dir CRATE VERSION FETCH_DIR
#       fetches CRATE at exactly VERSION through cargo (a throw-away manifest under
#       FETCH_DIR that depends on it; cargo's own cache keeps the download) and prints
#       the folder cargo unpacked it into; fails (status 1) when cargo does.

crate_dir() {
    local crate=$1 version=$2 fetch=$3 manifest
    mkdir -p "$fetch/src"
    cat > "$fetch/Cargo.toml" <<TOML
[package]
name = "cpulab-$crate-fetch"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
$crate = { version = "=$version", default-features = false }
TOML
    echo "fn main() {}" > "$fetch/src/main.rs"
    (cd "$fetch" && cargo fetch --quiet) || return 1
    manifest=$(cd "$fetch" && cargo metadata --format-version 1 2>/dev/null |
        python3 -c 'import json,sys
m = json.load(sys.stdin)
print(next(p["manifest_path"] for p in m["packages"] if p["name"] == sys.argv[1]))' "$crate")
    [[ -n $manifest ]] || { echo "cargo metadata does not list $crate" >&2; return 1; }
    dirname "$manifest"
}
