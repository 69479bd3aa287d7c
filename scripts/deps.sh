#!/bin/sh
# Install the Debian packages cueue builds and tests with, when any is missing.
# Does nothing (and needs no network) when all are present.
set -eu

pkgs="pkg-config cmake make gcc clang clang-format libclang-rt-14-dev libjansson-dev libyaml-dev
libcurl4-gnutls-dev libgnutls28-dev libsqlite3-dev libcmocka-dev
python3 python3-yaml python3-kubernetes sqlite3 prometheus chromium"

missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
# kubectl may come from another package than Debian's kubernetes-client.
if ! command -v kubectl >/dev/null 2>&1; then
    missing="$missing kubernetes-client"
fi

[ -z "$missing" ] && exit 0

echo "deps: installing$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
