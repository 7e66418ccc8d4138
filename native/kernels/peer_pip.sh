# peer_pip.sh — the pip a peer script downloads from PyPI with. Sourced, not run.
#
# Debian's python3 has no pip unless python3-pip is installed, and the lab's own
# environment (made by uv) has none either; uv's uvx runs pip without installing it.
# uv lives in ~/.local/bin, which the PATH of a program the lab starts may lack.
#
#   peer_pip NAME   sets the array `pip` to "${PYTHON:-python3} -m pip" where that
#                   works, else to uvx running pip; prints why and fails when neither
#                   is here (NAME: the calling script, for the message)

peer_pip() {
    local py=${PYTHON:-python3} uvx
    if "$py" -m pip --version >/dev/null 2>&1; then
        pip=("$py" -m pip)
        return 0
    fi
    uvx=$(command -v uvx || { [[ -x $HOME/.local/bin/uvx ]] && echo "$HOME/.local/bin/uvx"; }) || {
        echo "$1: no pip to download with (neither '$py -m pip' nor uv's uvx; make setup installs uv)" >&2
        return 1
    }
    pip=("$uvx" --quiet --from pip pip)
}
