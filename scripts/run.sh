#!/bin/sh
# `make run`: validate the example objects. (The embedded control plane will
# take this over once `cueue serve` exists.)
set -eu
cueue=$1
top=$(cd "$(dirname "$0")/.." && pwd)
set --
for f in "$top"/examples/*.yaml; do
    set -- "$@" -f "$f"
done
echo "cueue validate over examples/:"
"$cueue" validate "$@"
