#!/bin/sh
# Run every libFuzzer target in BUILD for SECONDS each, from its corpus in
# fuzz/corpus/<name>/ (seeds are read, new inputs go to a scratch folder).
set -eu
build=$1
seconds=$2
top=$(cd "$(dirname "$0")/.." && pwd)
found=0
for bin in "$build"/*_fuzz; do
    [ -x "$bin" ] || continue
    found=1
    name=$(basename "$bin")
    seeds="$top/fuzz/corpus/$name"
    scratch=$(mktemp -d)
    echo "fuzz: $name for ${seconds}s"
    set -- "$scratch"
    [ -d "$seeds" ] && set -- "$scratch" "$seeds"
    ASAN_OPTIONS=detect_leaks=1 "$bin" -max_total_time="$seconds" -max_len=65536 \
        -print_final_stats=0 "$@" >"$scratch.log" 2>&1 || {
        tail -n 40 "$scratch.log"
        echo "fuzz: $name FAILED"
        exit 1
    }
    rm -rf "$scratch" "$scratch.log"
done
[ "$found" = 1 ] || echo "fuzz: no targets built"
