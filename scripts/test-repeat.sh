#!/usr/bin/env bash
# Runs the suites that touch threads, sockets and umockdev N times in a row (default 20) and
# stops at the first failure, printing its log. The last line is "test-repeat: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
swift build --build-tests >/dev/null || { echo "test-repeat: 0 passed, 1 failed"; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
passed=0
for ((k = 1; k <= runs; k++)); do
    if ! swift test --skip-build --filter 'OrientationServerTests|OrientationctlTests' >"$log" 2>&1 ||
       ! umockdev-wrapper swift test --skip-build --filter SensorIIOIntegrationTests >>"$log" 2>&1; then
        grep -aE '✘' "$log" | head -40
        echo "run $k of $runs failed (full log above: grep ✘)"
        echo "test-repeat: $passed passed, 1 failed"
        exit 1
    fi
    passed=$((passed + 1))
    echo "run $k of $runs passed"
done
echo "test-repeat: $passed passed, 0 failed"
