#!/bin/sh
# check-deb.sh DEB: checks the built Debian package (run by `./mvnw verify` after jdeb):
# its file list, owners and modes, control fields, conffiles and maintainer scripts, then
# lintian when it is installed (apt-get install lintian). Needs dpkg-deb (any Debian/Ubuntu).
set -eu
deb="$1"
fail() { echo "check-deb: FAILED: $*" >&2; exit 1; }

[ -f "$deb" ] || fail "$deb was not built"
if ! command -v dpkg-deb >/dev/null 2>&1; then
    echo "check-deb: dpkg-deb not installed: contents of $deb not checked"
    exit 0
fi

listing=$(dpkg-deb -c "$deb")
# path and mode (and owner root/root) of every file the package must have
for entry in \
    "-rw-r--r-- ./usr/share/rkllm-server/rkllm-server.jar" \
    "-rw-r--r-- ./usr/share/rkllm-server/rkllm-server-tools.jar" \
    "-rwxr-xr-x ./usr/bin/rkllm-server" \
    "-rwxr-xr-x ./usr/share/rkllm-server/prepare-cds-archive" \
    "-rw-r--r-- ./usr/lib/systemd/system/rkllm-server.service" \
    "-rw-r--r-- ./etc/rkllm-server/rkllm-server.yaml" \
    "-rw-r--r-- ./usr/share/doc/rkllm-server/copyright" \
    "-rw-r--r-- ./usr/share/doc/rkllm-server/changelog.gz" \
    "-rw-r--r-- ./usr/share/doc/rkllm-server/deploy.md" \
    "-rw-r--r-- ./usr/share/doc/rkllm-server/models.md" \
    "-rw-r--r-- ./usr/share/man/man1/rkllm-server.1.gz" \
    "-rw-r--r-- ./usr/share/lintian/overrides/rkllm-server" \
    "drwxr-xr-x ./var/lib/rkllm-server/" \
    "drwxr-xr-x ./var/lib/rkllm-server/models/"; do
    mode=${entry%% *}
    path=${entry#* }
    echo "$listing" | awk -v m="$mode" -v p="$path" '$1 == m && $2 == "root/root" && $NF == p { found = 1 } END { exit !found }' \
        || fail "no $path with mode $mode owned by root/root in $deb"
done
if echo "$listing" | awk '$2 != "root/root" { bad = 1 } END { exit !bad }'; then
    fail "files not owned by root/root in $deb"
fi

field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = "rkllm-server" ] || fail "Package is $(field Package)"
[ "$(field Architecture)" = "all" ] || fail "Architecture is $(field Architecture), not all"
case "$(field Depends)" in
    *openjdk-25-jre-headless*adduser*) ;;
    *) fail "Depends lacks a Java 25 runtime or adduser: $(field Depends)" ;;
esac
# GGUF models need nothing more: the bundled llama.cpp links only libc, libm and libstdc++
case ", $(field Recommends)," in
    *gomp*) fail "Recommends libgomp1, which the bundled llama.cpp no longer needs: $(field Recommends)" ;;
esac
case "$deb" in
    *"rkllm-server_$(field Version)_all.deb") ;;
    *) fail "file name $deb does not match version $(field Version)" ;;
esac

control=$(mktemp -d)
trap 'rm -rf "$control"' EXIT
dpkg-deb -e "$deb" "$control"
[ "$(cat "$control/conffiles")" = "/etc/rkllm-server/rkllm-server.yaml" ] || fail "conffiles: $(cat "$control/conffiles")"
for script in postinst prerm postrm; do
    [ -x "$control/$script" ] || fail "$script missing or not executable"
    sh -n "$control/$script" || fail "$script: syntax error"
done
dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./etc/rkllm-server/rkllm-server.yaml \
    | grep -q '^  dir: /var/lib/rkllm-server/models$' || fail "the configuration does not set models.dir"
dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./etc/rkllm-server/rkllm-server.yaml \
    | sed -n '/^engines:/,/^[a-z]/p' | grep -q '^    # library: ""' || fail "the configuration does not show engines.llama.library"

echo "check-deb: $deb: $(echo "$listing" | wc -l) entries, control fields, conffiles, maintainer scripts: ok"
if command -v lintian >/dev/null 2>&1; then
    status=0
    report=$(lintian --fail-on error,warning "$deb" 2>&1) || status=$?
    echo "$report" | grep -v 'running with root privileges' || true
    [ "$status" -eq 0 ] || fail "lintian reports errors or warnings (exit $status)"
    echo "check-deb: lintian: no errors or warnings (overrides: packaging/deb/lintian/rkllm-server)"
else
    echo "check-deb: lintian not installed: skipped (apt-get install lintian)"
fi
