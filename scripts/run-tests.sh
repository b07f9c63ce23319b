#!/usr/bin/env bash
# The docs' check (scripts/check-docs.py: symbol links and repository paths resolve) counts as one
# test, the locks' check (scripts/check-locks.py: nothing that can block or call back under a
# lock) as another; then every test, in three processes:
#   1. all suites except SensorIIOIntegrationTests and InstallTests;
#   2. SensorIIOIntegrationTests alone under umockdev-wrapper: umockdev's preload and testbed state
#      are process-global (a testbed redirects /dev and /sys for the whole process, which would
#      break the other suites' child processes), so it gets a process of its own;
#   3. `make install` into a temporary DESTDIR (the release build, Swift runtime linked in, and
#      the man pages) and the Debian package, then InstallTests on what they hold.
# The last line is the combined count: "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests || { echo "tests: 0 passed, 1 failed"; exit 1; }

# Docs that disagree with the code: a broken ``symbol`` link, or a path that does not exist.
if scripts/check-docs.py --self-test && scripts/check-docs.py; then
    docs_failed=0
else
    docs_failed=1
    echo "✘ check-docs failed: the lines above name each broken link or path" >&2
fi
if scripts/check-locks.py --self-test && scripts/check-locks.py; then
    locks_failed=0
else
    locks_failed=1
    echo "✘ check-locks failed: the lines above name each call under a lock" >&2
fi

main_log=$(mktemp)
iio_log=$(mktemp)
install_log=$(mktemp)
destdir=$(mktemp -d)
trap 'rm -rf "$main_log" "$iio_log" "$install_log" "$destdir"' EXIT

swift test --skip-build --skip 'SensorIIOIntegrationTests|InstallTests' 2>&1 | tee "$main_log"
main_status=${PIPESTATUS[0]}
umockdev-wrapper swift test --skip-build --filter SensorIIOIntegrationTests 2>&1 | tee "$iio_log"
iio_status=${PIPESTATUS[0]}
if make --no-print-directory install DESTDIR="$destdir/root" PREFIX=/usr && deb=$(scripts/make-deb.sh "$destdir/dist"); then
    ORIENTATIOND_INSTALL_DESTDIR="$destdir/root" ORIENTATIOND_DEB="$deb" swift test --skip-build --filter InstallTests 2>&1 | tee "$install_log"
    install_status=${PIPESTATUS[0]}
else
    echo "make install or make-deb.sh failed" | tee "$install_log"
    install_status=1
fi

# Swift Testing's closing line: "✔ Test run with 131 tests in 20 suites passed after …"
# (or "✘ … failed after … with N issues", or "━ … passed after … with N known issues" when a
# test records a known issue, withKnownIssue); failed tests are the "✘ Test name(…) … failed" lines.
count() {
    local log=$1 status=$2 total failed
    total=$(grep -aE '^(✔|✘|━) Test run with [0-9]+ tests?' "$log" | tail -n 1 | sed -E 's/.*with ([0-9]+) tests?.*/\1/')
    failed=$(grep -aE '^✘ Test .* failed after' "$log" | grep -avc '^✘ Test run with')
    total=${total:-0}
    # A crashed test process prints no summary: count it as a failure.
    if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
    echo "$total $failed"
}
read -r main_total main_failed < <(count "$main_log" "$main_status")
read -r iio_total iio_failed < <(count "$iio_log" "$iio_status")
read -r install_total install_failed < <(count "$install_log" "$install_status")
failed=$((main_failed + iio_failed + install_failed + docs_failed + locks_failed))
passed=$((main_total + iio_total + install_total + 2 - failed))
[ "$passed" -lt 0 ] && passed=0
echo
[ "$docs_failed" -ne 0 ] && echo "✘ check-docs: the docs disagree with the code (scripts/check-docs.py)"
[ "$locks_failed" -ne 0 ] && echo "✘ check-locks: a call under a lock (scripts/check-locks.py)"
echo "tests: $passed passed, $failed failed"
[ "$docs_failed" -eq 0 ] && [ "$main_status" -eq 0 ] && [ "$iio_status" -eq 0 ] && [ "$install_status" -eq 0 ]
