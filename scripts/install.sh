#!/usr/bin/env bash
# Installs rkllm-server without the Debian package, in the package's layout under a prefix:
#   PREFIX/share/rkllm-server/rkllm-server.jar (with rkllm-server-tools.jar beside it when it was built, and
#   prepare-cds-archive), PREFIX/bin/rkllm-server (launcher),
#   /etc/systemd/system/rkllm-server.service, /etc/rkllm-server/rkllm-server.yaml (kept if present),
#   /var/lib/rkllm-server/models, and the system user rkllm in the groups that may open the NPU.
# Safe to run again (files already up to date are left alone); --uninstall removes what it
# installed and keeps the configuration, the models and the user.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: scripts/install.sh [options]
  --jar FILE     the server jar (default: server/target/rkllm-server.jar of this checkout,
                 else rkllm-server.jar next to this script); rkllm-server-tools.jar beside it (the
                 benches, fuzz, soak and cds-archive, which prepares the start-up archive) goes too
  --prefix DIR   where the jar and the launcher go (default: /usr/local)
  --root DIR     install into DIR as if it were / (a staging or test tree): no user is
                 created and systemd is not touched
  --uninstall    remove the installed files (keeps /etc/rkllm-server, the models and the user)
  --force        install on a machine that is not arm64 (aarch64)
  -h, --help     this text
USAGE
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
prefix=/usr/local
root=/
jar=""
uninstall=""
force=""
while [ $# -gt 0 ]; do
    case "$1" in
        --jar) jar=${2:?--jar needs a file}; shift 2 ;;
        --jar=*) jar=${1#*=}; shift ;;
        --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
        --prefix=*) prefix=${1#*=}; shift ;;
        --root) root=${2:?--root needs a directory}; shift 2 ;;
        --root=*) root=${1#*=}; shift ;;
        --uninstall) uninstall=1; shift ;;
        --force) force=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
done
case "$prefix" in /*) ;; *) echo "install.sh: --prefix must be an absolute path" >&2; exit 2 ;; esac
prefix=${prefix%/}
[ -n "$prefix" ] || prefix=/usr
root=$(realpath -m "$root")
live=""
[ "$root" = / ] && live=1
R=${root%/}   # prepended to every path ("" for the real root)

say() { printf '  %-10s %s\n' "$1" "$2"; }

machine=$(uname -m)
if [ -z "$uninstall" ] && [ "$machine" != aarch64 ] && [ "$machine" != arm64 ] && [ -z "$force" ]; then
    cat >&2 <<MSG
install.sh: this machine is $machine, not arm64. rkllm-server runs the RKLLM runtime, which exists
only for aarch64 boards (RK3588/RK3576). Nothing was changed. To install anyway (e.g. to try
--simulate, or into a staging tree with --root), add --force.
MSG
    exit 1
fi
if [ -n "$live" ] && [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: installing into / needs root: run it with sudo (or use --root DIR for a staging tree)" >&2
    exit 1
fi

share="$prefix/share/rkllm-server"
files=(
    "$share/rkllm-server.jar"
    "$share/rkllm-server-tools.jar"
    "$prefix/bin/rkllm-server"
    "$share/prepare-cds-archive"
    "/etc/systemd/system/rkllm-server.service"
    "$prefix/share/doc/rkllm-server/deploy.md"
    "$prefix/share/man/man1/rkllm-server.1"
)
systemd_live() { [ -n "$live" ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null; }

if [ -n "$uninstall" ]; then
    echo "Uninstalling rkllm-server from ${root} (prefix $prefix):"
    if systemd_live && systemctl list-unit-files rkllm-server.service >/dev/null 2>&1; then
        say "systemctl" "disable --now rkllm-server.service"
        systemctl disable --now rkllm-server.service >/dev/null 2>&1 || true
    fi
    for f in "${files[@]}"; do
        if [ -e "$R$f" ] || [ -L "$R$f" ]; then
            say "remove" "$R$f"
            rm -f "$R$f"
        fi
    done
    for d in "$share" "$prefix/share/doc/rkllm-server"; do
        if [ -d "$R$d" ]; then
            say "remove" "$R$d/"
            rmdir "$R$d" 2>/dev/null || say "kept" "$R$d/ (not empty)"
        fi
    done
    if systemd_live; then
        say "systemctl" "daemon-reload"
        systemctl daemon-reload || true
    fi
    if [ -n "$live" ]; then
        say "kept" "/etc/rkllm-server/ (configuration), /var/lib/rkllm-server/ (models), user rkllm"
        echo "Done. Remove those by hand if you no longer need them (sudo rm -r /etc/rkllm-server /var/lib/rkllm-server; sudo userdel rkllm)."
    else
        # --root installs create no user: there is none to keep or remove
        say "kept" "$R/etc/rkllm-server/ (configuration), $R/var/lib/rkllm-server/ (models)"
        echo "Done. Remove those by hand if you no longer need them (rm -r $R/etc/rkllm-server $R/var/lib/rkllm-server)."
    fi
    exit 0
fi

if [ -z "$jar" ]; then
    for candidate in "$repo/server/target/rkllm-server.jar" "$here/rkllm-server.jar"; do
        if [ -f "$candidate" ]; then jar=$candidate; break; fi
    done
fi
if [ -z "$jar" ] || [ ! -f "$jar" ]; then
    echo "install.sh: no server jar${jar:+ at $jar}: build it (scripts/build package -DskipTests) or give --jar FILE" >&2
    exit 1
fi
pkg="$repo/packaging"
for f in "$pkg/bin/rkllm-server" "$pkg/systemd/rkllm-server.service" "$pkg/make-config.sh" "$repo/config/rkllm-server.yaml"; do
    [ -f "$f" ] || { echo "install.sh: $f is missing: run the script from an rkllm-server checkout" >&2; exit 1; }
done

echo "Installing rkllm-server into ${root} (prefix $prefix) from $jar:"
mkdir -p "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# put SRC DEST MODE: copy unless DEST already has the same content and mode.
put() {
    local src=$1 dest=$R$2 mode=$3
    if [ -f "$dest" ] && cmp -s "$src" "$dest" && [ "$(stat -c %a "$dest")" = "$mode" ]; then
        say "unchanged" "$dest"
        return
    fi
    say "install" "$dest (mode $mode)"
    mkdir -p "$(dirname "$dest")"
    install -m "$mode" "$src" "$dest.tmp.$$"
    mv -f "$dest.tmp.$$" "$dest"
}

# dir DIR MODE [OWNER]: create the directory, set its mode (and owner when the user exists here).
dir() {
    local d=$R$1 mode=$2 owner=${3:-}
    if [ -d "$d" ]; then
        say "exists" "$d/"
    else
        say "create" "$d/ (mode $mode)"
        mkdir -p "$d"
    fi
    chmod "$mode" "$d"
    if [ -n "$owner" ] && [ -n "$live" ] && getent passwd "${owner%%:*}" >/dev/null; then
        chown "$owner" "$d"
    fi
}

put "$jar" "$share/rkllm-server.jar" 644
# the server jar's manifest names the tools jar beside it: where it is, so is the jar's Class-Path
tools=$(dirname "$jar")/rkllm-server-tools.jar
if [ -f "$tools" ]; then
    put "$tools" "$share/rkllm-server-tools.jar" 644
else
    say "skipped" "$tools is not built: bench, fuzz, soak and cds-archive (and the start-up archive prepared now) need it"
fi
put "$pkg/bin/rkllm-server" "$prefix/bin/rkllm-server" 755
put "$pkg/bin/prepare-cds-archive" "$share/prepare-cds-archive" 755
sed -e "s|/usr/bin/rkllm-server|$prefix/bin/rkllm-server|g" \
    -e "s|file:///usr/share/doc/rkllm-server/|file://$prefix/share/doc/rkllm-server/|g" \
    "$pkg/systemd/rkllm-server.service" > "$tmp/rkllm-server.service"
put "$tmp/rkllm-server.service" /etc/systemd/system/rkllm-server.service 644
if [ -f "$repo/docs/deploy.md" ]; then
    put "$repo/docs/deploy.md" "$prefix/share/doc/rkllm-server/deploy.md" 644
fi
put "$pkg/man/rkllm-server.1" "$prefix/share/man/man1/rkllm-server.1" 644

sh "$pkg/make-config.sh" "$repo/config/rkllm-server.yaml" "$tmp/rkllm-server.yaml"
config=/etc/rkllm-server/rkllm-server.yaml
if [ -f "$R$config" ] && ! cmp -s "$tmp/rkllm-server.yaml" "$R$config"; then
    say "kept" "$R$config (yours; the default is $R$config.default)"
    put "$tmp/rkllm-server.yaml" "$config.default" 644
else
    put "$tmp/rkllm-server.yaml" "$config" 644
fi

if [ -n "$live" ]; then
    if getent passwd rkllm >/dev/null; then
        say "exists" "user rkllm"
    else
        say "create" "system user rkllm (home /var/lib/rkllm-server)"
        useradd --system --user-group --home-dir /var/lib/rkllm-server --no-create-home \
            --shell /usr/sbin/nologin --comment "rkllm-server" rkllm
    fi
    for group in render video; do
        if getent group "$group" >/dev/null; then
            if id -nG rkllm | tr ' ' '\n' | grep -qx "$group"; then
                say "exists" "rkllm in group $group"
            else
                say "add" "rkllm to group $group (NPU device access)"
                usermod -aG "$group" rkllm
            fi
        fi
    done
else
    say "skip" "user rkllm and its groups (render, video): not created under --root"
fi
dir /var/lib/rkllm-server 755 rkllm:rkllm
dir /var/lib/rkllm-server/models 2775 rkllm:rkllm

# the class-data-sharing archive the service would otherwise make at its first stop
if [ -n "$live" ]; then
    say "prepare" "class-data-sharing archive in /var/lib/rkllm-server (a few seconds)"
    sh "$share/prepare-cds-archive" /etc/systemd/system/rkllm-server.service "$prefix/bin/rkllm-server" | sed 's/^/             /'
else
    say "skip" "class-data-sharing archive: not the live system (the service makes it at its first stop)"
fi

if systemd_live; then
    say "systemctl" "daemon-reload; enable rkllm-server.service"
    systemctl daemon-reload
    systemctl enable rkllm-server.service >/dev/null 2>&1
    if systemctl is-active --quiet rkllm-server.service; then
        say "systemctl" "restart rkllm-server.service"
        systemctl restart rkllm-server.service
    fi
else
    say "skip" "systemctl (${live:+systemd is not running}${live:-not the live system})"
fi

echo "Done. Next: 'sudo systemctl start rkllm-server' (it starts without a model), then get one with" \
    "'sudo -u rkllm $prefix/bin/rkllm-server pull bartowski/Qwen2.5-1.5B-Instruct-GGUF' or the chat page's" \
    "download (docs/models.md recommends models for each board); check the machine with" \
    "'$prefix/bin/rkllm-server doctor' (docs/deploy.md)."
