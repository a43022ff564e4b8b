#!/bin/sh
# stage.sh REPO OUT VERSION DATE MAINTAINER: the generated files of the Debian package (changelog,
# man page, configuration, documentation) in OUT, laid out as in the package. Run by the packaging
# module's build (packaging/pom.xml) before jdeb; needs only sed and gzip.
set -eu
repo="$1"
out="$2"
version="$3"
date="$4"
maintainer="$5"

rm -rf "$out"
doc="$out/usr/share/doc/rkllm-server"
mkdir -p "$doc" "$out/usr/share/man/man1" "$out/etc/rkllm-server" "$out/usr/share/lintian/overrides"

# Debian changelog of this native package; date as RFC 5322 (from project.build.outputTimestamp).
rfc_date=$(LC_ALL=C date -u -d "$date" '+%a, %d %b %Y %H:%M:%S +0000')
cat > "$out/changelog" <<CHANGELOG
rkllm-server ($version) unstable; urgency=medium

  * Release $version: OpenAI-compatible server, systemd service, doctor command.

 -- $maintainer  $rfc_date
CHANGELOG
gzip -9n -c "$out/changelog" > "$doc/changelog.gz"
rm "$out/changelog"
cp "$repo/packaging/deb/copyright" "$doc/copyright"
cp "$repo/docs/deploy.md" "$doc/deploy.md"
cp "$repo/docs/models.md" "$doc/models.md"
cp "$repo/packaging/deb/lintian/rkllm-server" "$out/usr/share/lintian/overrides/rkllm-server"
gzip -9n -c "$repo/packaging/man/rkllm-server.1" > "$out/usr/share/man/man1/rkllm-server.1.gz"
sh "$repo/packaging/make-config.sh" "$repo/config/rkllm-server.yaml" "$out/etc/rkllm-server/rkllm-server.yaml"
# Same modification time everywhere, so that the package is reproducible.
find "$out" -exec touch -h -d "$date" {} +
