#!/bin/sh
# Install the Debian packages listed in deploy/debian-packages.txt that are not installed yet.
# Idempotent: when everything is present it only reads the dpkg database.
set -eu
list=${1:-$(dirname "$0")/debian-packages.txt}
missing=""
for pkg in $(grep -v '^#' "$list" | grep -v '^$'); do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
        missing="$missing $pkg"
    fi
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "install-debs: need root to install:$missing" >&2
    exit 1
fi
echo "install-debs: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; the default answer is fine.
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
