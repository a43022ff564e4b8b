#!/bin/sh
# make-config.sh SRC DEST: the installed /etc/rkllm-server/rkllm-server.yaml, made from the
# repository's documented default configuration (config/rkllm-server.yaml) with the models
# directory of the installed service (/var/lib/rkllm-server/models) set explicitly, so that
# `rkllm-server doctor` run by any user checks the directory the service uses.
set -eu
src="$1"
dest="$2"
grep -q '^  # dir: ~/models' "$src" || { echo "make-config.sh: no '  # dir: ~/models' line in $src" >&2; exit 1; }
{
    echo "# Installed by rkllm-server: the service reads this file (see /usr/share/doc/rkllm-server/deploy.md)."
    echo "# Apply changes with: sudo systemctl restart rkllm-server"
    sed 's|^  # dir: ~/models$|  dir: /var/lib/rkllm-server/models|' "$src"
} > "$dest"
