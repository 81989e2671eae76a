#!/bin/sh
# deps.sh - install the Debian packages a make target needs, when they are missing: with apt-get
# when run as root, otherwise print the exact command to run.
#   deps.sh build   the build and `make demo`: compilers, libraries, gnuplot and its font
#   deps.sh check   the build's list and the tools `make check` runs (default)
#   deps.sh bench   the peers `make bench` compares profreport with
set -u

# What building the library, the command and the examples needs, and what `make demo` runs.
BUILD="gcc g++ make pkg-config libcsv-dev libxlsxwriter-dev libdw-dev libiberty-dev gnuplot-nox
fonts-dejavu-core"
# What the tests use, each for a reason: cmocka the unit tests; pytest and openpyxl the
# functional tests; valgrind (callgrind_annotate, memcheck) and uftrace as independent
# measurers; LibreOffice and poppler to print workbooks; clang and its runtime for the fuzz
# targets; clang-format for format-check; cmake, meson and ninja to build the integration
# projects in tests/integration against an installed profreport; locales the definitions from
# which a test makes a locale whose decimal point is a comma.
CHECK="libcmocka-dev python3 python3-pytest python3-openpyxl valgrind uftrace
libreoffice-calc-nogui poppler-utils clang libclang-rt-dev clang-format cmake meson ninja-build
locales"
# The reporter bench's peers (bench/README.md); pandas is measured too when it is installed.
# The reporter bench's peers; the accuracy bench fetches Debian sources (dpkg-dev's dpkg-source,
# xz-utils), builds them with gcc, g++ and clang, and compares with perf, gprof (binutils) and
# uftrace; SQLite's tree generates its amalgamation with tclsh (tcl).
BENCH="mawk datamash dpkg-dev xz-utils gcc g++ clang binutils linux-perf uftrace tcl"

case "${1:-check}" in
    build) PACKAGES=$BUILD ;;
    check) PACKAGES="$BUILD $CHECK" ;;
    bench) PACKAGES=$BENCH ;;
    *) echo "usage: deps.sh [build|check|bench]" >&2; exit 2 ;;
esac

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
