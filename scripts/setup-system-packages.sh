#!/usr/bin/env bash
# Installs the Debian packages orientationd needs to build, run and test, when any is missing.
# Idempotent and quiet when everything is there; uses sudo when not run as root.
#   libiio-dev, libudev-dev, pkg-config: the CLibIIO and CLibUdev system-library targets
#   udev: systemd's hwdb (60-sensor.hwdb), whose every mount matrix the tests parse
#   umockdev, libumockdev-dev: fake sysfs and /dev for the libiio/libudev integration tests
#   systemd: systemd-analyze (unit checks) and systemd-socket-activate (socket activation test)
#   libsystemd-dev: sd-bus, for the net.hadess.SensorProxy D-Bus facade (CLibSystemd)
#   dbus-daemon, libglib2.0-bin: a private system-like bus and gdbus for the facade's tests
#   procps: /bin/kill, which the service's ExecReload= names (systemd-analyze verify checks it)
#   iio-sensor-proxy: the real peer (and its monitor-sensor client) the facade is compared against;
#     installed for its binaries only: nothing here starts it as a service
#   dpkg-repack: rebuilds the installed iio-sensor-proxy as a .deb, so the package test can swap
#     it with ours in a scratch root without downloading anything
#   dpkg-dev: dpkg-buildpackage and dpkg-shlibdeps (make deb; Depends with minimum versions)
#   debhelper: debian/rules (`dh`, compat 13): strip and -dbgsym, man pages, systemd units
#   lintian: make deb fails on any lintian error or warning, as a distribution would refuse them
#   init-system-helpers: deb-systemd-helper, which the package test copies into its scratch root
#     (debhelper's maintainer-script snippets run it)
#   python3-psutil, gir1.2-umockdev-1.0 (with python3-dbusmock and python3-gi below): what
#     iio-sensor-proxy's own integration suite imports (scripts/peer-suite.sh runs it against orientationd)
#   time: GNU time (/usr/bin/time -f %M), the peak RSS of orientationctl in the memory-bound tests (issue 18)
#   python3-dbus, python3-gi: Benchmarks/dbus-load.py, the D-Bus loads of the facade's abuse tests and
#     of make bench-dos (issue 18), run by Debian's /usr/bin/python3; with gir1.2-umockdev-1.0 and
#     iio-sensor-proxy, Benchmarks/claimed.py (make bench-claimed, issue 28: its testbeds and claimer)
#   python3-dbusmock: its polkitd template, the polkit that allows and denies in the facade's tests
#   sway: a real compositor (headless, as an unprivileged user) that `follow --for sway` turns in
#     SwayFollowTests (issue 39)
set -euo pipefail

packages=(libiio-dev libudev-dev pkg-config udev umockdev libumockdev-dev systemd libsystemd-dev
          dbus-daemon libglib2.0-bin iio-sensor-proxy procps dpkg-repack dpkg-dev debhelper lintian
          init-system-helpers time python3-dbus python3-gi python3-dbusmock python3-psutil gir1.2-umockdev-1.0 sway)

if ! command -v swift >/dev/null 2>&1; then
    echo "setup: no 'swift' on PATH; install the Swift 6 toolchain (swift.org) first" >&2
    exit 1
fi

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
fi
echo "setup: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
