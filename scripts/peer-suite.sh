#!/usr/bin/env bash
# Runs iio-sensor-proxy's own integration suite against orientationd --dbus (issues 16 and 17:
# the acceptance test of the drop-in replacement).
#
#   scripts/peer-suite.sh PEER_SOURCE [BIN_DIR] [-- unittest arguments, e.g. -k poll_accel]
#
# PEER_SOURCE is an iio-sensor-proxy source tree (3.9: tests/integration-test.py with its
# fixtures). It is GPL and is never copied into this repository: bring it yourself, for example
# from a Debian source package (`apt-get source iio-sensor-proxy` on trixie) or a git checkout of
# https://gitlab.freedesktop.org/hadess/iio-sensor-proxy at tag 3.9.
# BIN_DIR holds orientationd (default .build/debug).
#
# The suite runs a daemon at $top_builddir/src/iio-sensor-proxy with `-v` and Debian's (here:
# orientationctl's) monitor-sensor at $top_builddir/src/monitor-sensor. This script makes such a
# tree: iio-sensor-proxy is a wrapper that runs `orientationd --dbus` on a private socket with no
# configuration file, debug logging for -v; monitor-sensor is orientationd's multi-call binary under
# that name. The suite itself brings its private bus (Gio.TestDBus), python3-dbusmock's polkitd
# and umockdev (it re-executes itself under umockdev-wrapper).
#
# Needs Debian's python3 (not a pyenv one) with python3-dbusmock, python3-gi, python3-psutil and
# gir1.2-umockdev-1.0 (scripts/setup-system-packages.sh installs them).
#
# Tests that check the peer's internals do not count (docs/DBUS.md, "The peer's own suite"): those
# of its fake drivers (FAKE_LIGHT_SENSOR, FAKE_COMPASS), its test data hook (iio-dev-data.bin read
# in place of a buffer) and its log messages.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { sed -n 2,12p "$0" | sed 's/^# \{0,1\}//' >&2; exit 64; }
peer=$(cd "$1" && pwd); shift
bin="$here/.build/debug"
if [ $# -ge 1 ] && [ "$1" != "--" ]; then bin=$(cd "$1" && pwd); shift; fi
[ "${1:-}" = "--" ] && shift
[ -f "$peer/tests/integration-test.py" ] || { echo "peer-suite: no tests/integration-test.py in $peer" >&2; exit 66; }
[ -x "$bin/orientationd" ] || { echo "peer-suite: no orientationd in $bin (swift build first)" >&2; exit 66; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"
: > "$work/orientationd.conf"   # no system configuration: defaults only
cat > "$work/src/iio-sensor-proxy" <<WRAPPER
#!/bin/sh
# The peer's suite passes -v (verbose); orientationd's equivalent is --log-level debug.
level=info
for argument in "\$@"; do [ "\$argument" = -v ] && level=debug; done
run=\$(mktemp -d -p "$work")
exec "$bin/orientationd" --dbus --socket "\$run/orientationd.sock" --config "$work/orientationd.conf" --log-level "\$level"
WRAPPER
chmod +x "$work/src/iio-sensor-proxy"
ln -s "$bin/orientationd" "$work/src/monitor-sensor"

cd "$peer"
exec env top_builddir="$work" top_srcdir="$peer" /usr/bin/python3 tests/integration-test.py -v "$@"
