#!/usr/bin/env bash
# The README's main command: the real daemon replays the bundled real recording with a private
# socket, and `orientationctl monitor` shows the events it publishes over that socket.
#   DEMO_SPEED (default 5): replay speed; the recording lasts 135 s.
#   DEMO_BIN (default .build/debug): where the orientationd binary is.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${DEMO_BIN:-.build/debug}"  # make demo builds debug: the quickest first run
speed="${DEMO_SPEED:-5}"
log=data/xio-fusion/handheld.log
dir="$(mktemp -d)"
socket="$dir/orientationd.sock"
cleanup() {
    [ -n "${daemon:-}" ] && kill "$daemon" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT INT TERM

echo "== orientationd --replay $log --speed $speed (a real hand-held IMU, 135 s at 99 Hz)"
echo "== orientationctl monitor --socket $socket"
"$bin/orientationd" --replay "$log" --speed "$speed" --exit-when-done --socket "$socket" --log-level warning &
daemon=$!
# The one binary is orientationctl when run by that name (a link), as it is once installed.
ln -s "$PWD/$bin/orientationd" "$dir/orientationctl"
"$dir/orientationctl" monitor --once --wait 30 --socket "$socket"
wait "$daemon"
daemon=""
