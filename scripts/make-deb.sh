#!/usr/bin/env bash
# make deb: the Debian package from the debian/ source package, with `dpkg-buildpackage -b`.
#   scripts/make-deb.sh OUTPUT_DIRECTORY
# Prints the path of orientationd_VERSION_ARCH.deb on its last line; orientationd-dbgsym, the
# .buildinfo and the .changes land beside it, never beside the checkout (dpkg-buildpackage's
# default is the parent directory). debian/rules builds through `make release manuals`, so the
# Swift toolchain comes from PATH (or SWIFT=…): bookworm packages none (docs/PACKAGING.md).
# LINTIAN=no skips lintian; otherwise any lintian error or warning fails the build.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: make-deb.sh OUTPUT_DIRECTORY}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
log=$out/dpkg-buildpackage.log

# -b: binary packages only (no source tarball: the tree is the source); -us -uc: unsigned.
if ! DEB_OUTPUT_DIR="$out" dpkg-buildpackage -b -us -uc \
        --buildinfo-option="-u$out" --buildinfo-option="-O$out/orientationd_${version}_${arch}.buildinfo" \
        --changes-option="-u$out" --changes-option="-O$out/orientationd_${version}_${arch}.changes" \
        >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "make-deb: dpkg-buildpackage failed (whole log: $log)" >&2
    exit 1
fi
deb=$out/orientationd_${version}_${arch}.deb
[ -f "$deb" ] || { echo "make-deb: dpkg-buildpackage made no $deb" >&2; exit 1; }

if [ "${LINTIAN:-yes}" != no ]; then
    # --fail-on error,warning: a distribution takes neither. Overrides, each with its reason,
    # are in debian/*.lintian-overrides.
    if ! lintian --fail-on error,warning --tag-display-limit 0 "$out/orientationd_${version}_${arch}.changes" >"$out/lintian.log" 2>&1; then
        cat "$out/lintian.log" >&2
        echo "make-deb: lintian found errors or warnings" >&2
        exit 1
    fi
fi
echo "$deb"
