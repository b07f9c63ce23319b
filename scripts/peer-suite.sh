#!/usr/bin/env bash
# Runs iio-sensor-proxy's own integration suite against orientationd --dbus (issues 16 and 17:
# the acceptance test of the drop-in replacement).
#
#   scripts/peer-suite.sh PEER_SOURCE [BIN_DIR] [-- unittest arguments, e.g. -v -k poll_accel]
#
# Without unittest arguments it runs every test in its own process and prints one line each
# (pass/FAIL, counted/internal) and "peer suite: N passed, N failed (of the tests that count)";
# PEER_SUITE_LOGS=DIR keeps each test's output (the daemon's log among it) as DIR/NAME.log.
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
# in place of a buffer), its log messages, and its test-only timing (hwmon light polled every
# 0.5 s under umockdev, every 8 s otherwise: its test waits 0.5 s for a change).
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
export top_builddir="$work" top_srcdir="$peer"
if [ $# -gt 0 ]; then
    # Arguments for unittest (-k NAME, -v …): one run, its own output.
    /usr/bin/python3 tests/integration-test.py "$@"  # not exec: the trap removes the tree
    exit 0
fi

# Each test in a process of its own, so that one test's result is its exit status; its output
# goes to $PEER_SUITE_LOGS/NAME.log when that is set. A summary per test, then the count of the
# tests that count (the peer's internals excluded, see the head of this file).
internal=" test_hwmon_light test_fake_light test_fake_compass test_unrequested_readings test_iio_accel_base_location test_iio_buffer_accel test_iio_broken_buffer_accel test_iio_scale_decimal_separator test_iio_scale_decimal_separator_offset test_iio_scale_decimal_separator2 "
logs=${PEER_SUITE_LOGS:-$work/logs}
mkdir -p "$logs"
passed=0 failed=0 internal_passed=0 internal_total=0
for test in $(grep -oE '^    def test_[A-Za-z0-9_]+' tests/integration-test.py | sed 's/.*def //'); do
    if timeout 120 /usr/bin/python3 tests/integration-test.py -v "Tests.$test" > "$logs/$test.log" 2>&1; then result=pass; else result=FAIL; fi
    case "$internal" in
        *" $test "*) kind="internal"; internal_total=$((internal_total + 1)); [ $result = pass ] && internal_passed=$((internal_passed + 1)) ;;
        *) kind="counted"; if [ $result = pass ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi ;;
    esac
    printf '%-4s  %-8s  %s\n' "$result" "$kind" "$test"
done
echo "peer suite: $passed passed, $failed failed (of the tests that count); $internal_passed of $internal_total tests of the peer's internals pass"
[ "$failed" -eq 0 ]
