#!/bin/sh
# Install and apply UNO's sysctl settings (deploy/sysctl-uno.conf). Idempotent.
set -eu
src=${1:-$(dirname "$0")/sysctl-uno.conf}
dst=/etc/sysctl.d/60-uno.conf
if [ "$(id -u)" -ne 0 ]; then
    echo "install-sysctl: need root to install $dst" >&2
    exit 1
fi
if ! cmp -s "$src" "$dst" 2>/dev/null; then
    install -m 0644 "$src" "$dst"
fi
sysctl -q -p "$dst"
