#!/bin/sh
# Prints the Python interpreter `make install` builds the virtualenv with: `python3` when it is 3.11 or
# newer, else the newest `python3.N` (N >= 11) on PATH that runs; with none, one line on stderr and exit 1.
# Plain POSIX sh with no external commands, so it behaves the same on any PATH.

ok() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; }

if command -v python3 >/dev/null 2>&1 && ok python3; then
    echo python3
    exit 0
fi
best=""
best_minor=10
old_ifs=$IFS
IFS=:
for dir in $PATH; do
    IFS=$old_ifs
    for exe in "${dir:-.}"/python3.[1-9][0-9]; do
        [ -x "$exe" ] || continue
        minor=${exe##*/python3.}
        if [ "$minor" -gt "$best_minor" ] && ok "$exe"; then
            best=$exe
            best_minor=$minor
        fi
    done
done
IFS=$old_ifs
if [ -n "$best" ]; then
    echo "$best"
    exit 0
fi
echo "papernotes needs Python 3.11 or newer: no python3 of 3.11+ and no python3.11, python3.12, ... on PATH" >&2
exit 1
