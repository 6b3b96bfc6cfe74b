#!/bin/sh
# Install Gauntlet on a stock Debian 12 / Ubuntu 24.04, as root or as a user with sudo:
# the Debian packages it needs (bubblewrap, debootstrap, python3-venv, python3-pytest, ...), a virtual
# environment (the system Python is "externally managed": pip may not install into it),
# the project into it, and `gauntlet` linked into ~/.local/bin. Idempotent.
#   sh scripts/install.sh            # venv in ~/.local/share/gauntlet/venv
#   GAUNTLET_VENV=./.venv sh scripts/install.sh
#   GAUNTLET_EXTRAS=test sh scripts/install.sh   # with the test dependencies
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
venv=${GAUNTLET_VENV:-"$HOME/.local/share/gauntlet/venv"}
case "$venv" in /*) ;; *) venv="$PWD/$venv" ;; esac  # a link needs an absolute target
bindir="$HOME/.local/bin"
extras=${GAUNTLET_EXTRAS:-}
say() { printf 'gauntlet install: %s\n' "$*" >&2; }

if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    say "need root or sudo to apt-get the Debian packages"; exit 1
fi

# python3-pytest (+ coverage): the local backend's judge runs the tests with the host's python3
pkgs="python3 python3-venv python3-pip python3-pytest python3-coverage bubblewrap debootstrap git ca-certificates"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    say "apt-get install:$missing"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
    # shellcheck disable=SC2086
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
fi

py=${GAUNTLET_PYTHON:-python3}
if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    say "$py is $("$py" -V 2>&1): Gauntlet needs Python >= 3.11 (Debian 12 and Ubuntu 24.04 have it)"
    exit 1
fi

if [ ! -x "$venv/bin/python" ]; then
    say "creating the virtual environment $venv"
    mkdir -p "$(dirname "$venv")"
    "$py" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --upgrade pip
target="$here"
[ -n "$extras" ] && target="$here[$extras]"
say "pip install $target"
"$venv/bin/python" -m pip install -q "$target"

# The link in ~/.local/bin is this install's only when it is the default venv, or when no
# other install owns the link yet: GAUNTLET_VENV=./.venv never replaces another's link.
link="$bindir/gauntlet"
current=$(readlink "$link" 2>/dev/null || true)
if [ -z "${GAUNTLET_VENV:-}" ] || [ -z "$current" ] || [ "$current" = "$venv/bin/gauntlet" ]; then
    mkdir -p "$bindir"
    ln -sf "$venv/bin/gauntlet" "$link"
    say "linked $link -> $venv/bin/gauntlet"
    case ":$PATH:" in
        *":$bindir:"*) ;;
        *) say "add $bindir to your PATH (e.g. export PATH=\"$bindir:\$PATH\"), or run $link" ;;
    esac
else
    say "left $link -> $current as it was (GAUNTLET_VENV=$venv): run $venv/bin/gauntlet"
fi
"$venv/bin/gauntlet" doctor || say "see above: \`gauntlet doctor\` lists what is missing and how to fix it"
