#!/bin/sh
# deps.sh - install the Debian packages profreport needs to build, test and demonstrate, when
# they are missing: with apt-get when run as root, otherwise print the exact command to run.
# `deps.sh bench` installs the peers `make bench` compares profreport with instead.
set -u

PACKAGES="gcc g++ make pkg-config libcsv-dev libxlsxwriter-dev gnuplot-nox fonts-dejavu-core
libcmocka-dev python3 python3-pytest python3-openpyxl libdw-dev libiberty-dev uftrace
valgrind clang-format clang libclang-rt-dev libreoffice-calc-nogui poppler-utils"
# The reporter bench's peers (bench/README.md); pandas is measured too when it is installed.
# The accuracy bench fetches Debian sources (dpkg-dev's dpkg-source, xz-utils), builds them with
# gcc, g++ and clang, and compares with perf, gprof (binutils) and uftrace.
[ "${1:-}" = bench ] && PACKAGES="mawk datamash dpkg-dev xz-utils gcc g++ clang binutils linux-perf
uftrace"

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps: not a Debian system; make sure these (or your system's equivalents) are installed:"
    echo "      $(echo $PACKAGES)"
    exit 0
fi

missing=""
for p in $PACKAGES; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
    case "$status" in
        *"install ok installed"*) ;;
        *) missing="$missing $p" ;;
    esac
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then
    echo "deps: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null || {
        echo "deps: apt-get failed; install by hand: apt-get install$missing" >&2
        exit 1
    }
else
    echo "deps: missing Debian packages; install them with:" >&2
    echo "      sudo apt-get install$missing" >&2
    exit 1
fi
