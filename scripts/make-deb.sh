#!/usr/bin/env bash
# make deb: a Debian package of the release build, with dpkg-deb.
#   scripts/make-deb.sh OUTPUT_DIRECTORY
# Stages `scripts/install.sh install` with PREFIX=/usr, enables the D-Bus facade in the shipped
# configuration (the package replaces iio-sensor-proxy, so desktops must find the name), and
# derives Depends from the binaries' own shared libraries (ldd, then the Debian package owning
# each: only Debian's libraries, no Swift runtime).
set -euo pipefail
cd "$(dirname "$0")/.."
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
install -m 0755 debian-package/postinst debian-package/prerm debian-package/postrm "$root/DEBIAN/"
echo /etc/orientationd/orientationd.conf > "$root/DEBIAN/conffiles"

# Depends: the package owning each shared library the binaries load.
# Only the libraries the binaries name themselves (NEEDED), not ldd's whole closure: libiio's
# own dependencies are libiio0's business.
depends=$(for binary in "$root/usr/bin/orientationd" "$root/usr/bin/orientationctl"; do
        needed=$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
        ldd "$binary" | awk '/=> \// { print $1, $3 }' | while read -r name path; do
            if printf '%s\n' "$needed" | grep -qxF "$name"; then echo "$path"; fi
        done
    done | sort -u | while read -r library; do
        dpkg -S "$library" 2>/dev/null || dpkg -S "$(readlink -f "$library")" 2>/dev/null || dpkg -S "/usr$library" 2>/dev/null || true
    done | cut -d: -f1 | sort -u | paste -sd, | sed 's/,/, /g')
[ -n "$depends" ] || { echo "make-deb: could not derive Depends from ldd" >&2; exit 1; }
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
