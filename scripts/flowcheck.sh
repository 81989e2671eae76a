#!/bin/sh
# flowcheck.sh - the reporter's stages hand data forward only (docs/ARCHITECTURE.md, STYLE.md
# #17-#19): fails when a folder includes a header of a stage after it or beside it that it must
# not know, or when an include line of a reporter header does not name the header's folder.
#
#   sh scripts/flowcheck.sh [REPORTER_DIR]      (default: reporter)
#
# Allowed: base/ includes nothing of the stages; read/ includes base/, model/, read/; model/ includes
# base/, model/; out/ includes base/, model/, out/; the root (main.c, cli.c, compact.c) anything.
set -u
dir=${1:-reporter}
status=0

# forbid FOLDER STAGE...: no file in DIR/FOLDER includes "STAGE/..."
forbid() {
    folder=$1
    shift
    for stage in "$@"; do
        hits=$(grep -n "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"$stage/" \
            "$dir/$folder"/*.[ch] 2>/dev/null)
        if [ -n "$hits" ]; then
            echo "flowcheck: $folder/ must not include $stage/ headers:" >&2
            echo "$hits" >&2
            status=1
        fi
    done
}

forbid base read model out
forbid model read out
forbid out read
forbid read out

# Every include line of a header that lives in one of the folders names the folder.
for h in "$dir"/*/*.h; do
    [ -e "$h" ] || continue
    name=${h##*/}
    hits=$(grep -n "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"$name\"" \
        "$dir"/*.[ch] "$dir"/*/*.[ch] 2>/dev/null)
    if [ -n "$hits" ]; then
        folder=${h#"$dir"/}
        echo "flowcheck: include \"$folder\", not \"$name\":" >&2
        echo "$hits" >&2
        status=1
    fi
done

[ $status -eq 0 ] && echo "flowcheck: ok"
exit $status
