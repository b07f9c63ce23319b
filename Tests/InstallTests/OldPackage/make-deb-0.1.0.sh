#!/usr/bin/env bash
# The package of orientationd 0.1.0 as scripts/make-deb.sh built it before the debian/ source
# package (issue 19), kept so that InstallTests can upgrade from it: built here from the current
# binaries, with that version's layout (/lib/systemd, /lib/udev) and maintainer scripts (this
# directory's postinst, prerm, postrm: `systemctl enable` on every configure). Not used otherwise.
#   Tests/InstallTests/OldPackage/make-deb-0.1.0.sh OUTPUT_DIRECTORY
#
# What follows is that script unchanged but for the paths to this directory.
# Stages `scripts/install.sh install` with PREFIX=/usr, enables the D-Bus facade in the shipped
# configuration (the package replaces iio-sensor-proxy, so desktops must find the name), and
# derives Depends from the binaries' own shared libraries with dpkg-shlibdeps (only Debian's
# libraries, no Swift runtime, each with the minimum version the binaries need).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
out=${1:?usage: make-deb.sh OUTPUT_DIRECTORY}
version=${VERSION:-$(sed -n 's/.*serverVersion = "orientationd \([0-9.]*\)".*/\1/p' Sources/OrientationServer/ServerConfiguration.swift)}
arch=$(dpkg --print-architecture)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/root
mkdir -p "$root/DEBIAN"

PREFIX=/usr DESTDIR=$root BUILD=.build/release MANUALS=.build/manuals UNITDIR=/lib/systemd/system UDEVRULESDIR=/lib/udev/rules.d \
    scripts/install.sh install >/dev/null
# The packaged configuration turns the D-Bus facade on: this package takes iio-sensor-proxy's place.
sed -i 's/^\[dbus\]$/[dbus]\n# On in the package: it replaces iio-sensor-proxy (docs\/DBUS.md).\nenable = true/' \
    "$root/etc/orientationd/orientationd.conf"
install -d "$root/usr/share/doc/orientationd"
install -m 0644 README.md docs/DBUS.md "$root/usr/share/doc/orientationd/"
install -m 0755 "$here/postinst" "$here/prerm" "$here/postrm" "$root/DEBIAN/"
echo /etc/orientationd/orientationd.conf > "$root/DEBIAN/conffiles"

# Depends: dpkg-shlibdeps, as debhelper would run it: the package owning each library the
# binaries name themselves (NEEDED, not libiio's own dependencies), with the minimum version the
# symbols they use need (a glibc 2.35 symbol means libc6 (>= 2.35); an unversioned libc6 let the
# package install on bullseye, whose loader then refused the binaries).
mkdir -p "$stage/debian"
printf 'Source: orientationd\n\nPackage: orientationd\nArchitecture: any\n' > "$stage/debian/control"
if ! shlibs=$(cd "$stage" && dpkg-shlibdeps -O -xorientationd -e root/usr/bin/orientationd -e root/usr/bin/orientationctl 2>"$stage/shlibdeps.log"); then
    cat "$stage/shlibdeps.log" >&2
    exit 1
fi
depends=$(printf '%s\n' "$shlibs" | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "make-deb: dpkg-shlibdeps derived no Depends (is dpkg-dev installed?)" >&2; exit 1; }
# dpkg-shlibdeps reads symbols, not version needs that name none: packed relative relocations
# (DT_RELR, GLIBC_ABI_DT_RELR) need the loader of glibc 2.36.
# (Not `readelf | grep -q`: grep ending the pipe early fails it under pipefail.)
versions=$(readelf -V "$root/usr/bin/orientationd" "$root/usr/bin/orientationctl")
if grep -q GLIBC_ABI_DT_RELR <<<"$versions"; then
    current=$(printf '%s' "$depends" | sed -nE 's/.*libc6 \(>= ([^)]*)\).*/\1/p')
    if [ -z "$current" ] || dpkg --compare-versions "$current" lt 2.36; then
        depends=$(printf '%s' "$depends" | sed -E 's/libc6( \([^)]*\))?/libc6 (>= 2.36)/')
    fi
fi
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: orientationd
Version: $version
Architecture: $arch
Maintainer: orientationd developers <orientationd@localhost>
Installed-Size: $size
Depends: $depends, procps
Recommends: dbus
Conflicts: iio-sensor-proxy
Replaces: iio-sensor-proxy
Provides: iio-sensor-proxy
Section: admin
Priority: optional
Description: device-orientation events for Linux tablets and 2-in-1s
 orientationd turns an IIO accelerometer (and gyroscope) into clean orientation
 changes (portrait, landscape, face-up, ...) with hysteresis and rejection of
 shakes and swings, publishes them over a Unix socket, and serves
 iio-sensor-proxy's D-Bus API (net.hadess.SensorProxy), so GNOME, KDE and
 phosh rotate with it unchanged. Includes orientationctl and monitor-sensor.
CONTROL
mkdir -p "$out"
dpkg-deb --root-owner-group --build -Zxz "$root" "$out/orientationd_${version}_${arch}.deb" >/dev/null
echo "$out/orientationd_${version}_${arch}.deb"
