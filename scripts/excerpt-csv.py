#!/usr/bin/env python3
"""Cut a time excerpt out of a recorded CSV, byte for byte, and say exactly what was cut.

Used for data/*/raw/: a bundled recording is a contiguous run of whole lines of its source
file (plus the source's header lines, if any), never edited values. The excerpt starts at the
first row whose time is at least FROM seconds after the file's first row and ends before the
first row at or past FROM + SECONDS. Line ends (LF or CR LF) are kept as they are.

Prints a provenance block (source size and sha256, rows and bytes copied, times, the
excerpt's sha256) for raw/PROVENANCE.txt.

    scripts/excerpt-csv.py SOURCE OUT --time-column 7 --time-unit ms --header-lines 1 \
        --from 0 --seconds 30
"""
import argparse
import hashlib
import sys

SCALE = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source")
    p.add_argument("output")
    p.add_argument("--time-column", type=int, required=True, help="1-based column of the timestamp")
    p.add_argument("--time-unit", choices=SCALE, default="s")
    p.add_argument("--header-lines", type=int, default=0)
    p.add_argument("--delimiter", default=",")
    p.add_argument("--from", dest="start", type=float, default=0.0, help="seconds after the first row")
    p.add_argument("--seconds", type=float, default=None, help="length of the excerpt (default: to the end)")
    a = p.parse_args()

    data = open(a.source, "rb").read()
    lines = data.splitlines(keepends=True)
    header, rows = lines[: a.header_lines], lines[a.header_lines:]
    if not rows:
        print(f"{a.source}: no data rows", file=sys.stderr)
        return 1
    scale = SCALE[a.time_unit]

    def time(line: bytes, number: int) -> float:
        cells = line.rstrip(b"\r\n").split(a.delimiter.encode())
        try:
            return float(cells[a.time_column - 1]) * scale
        except (IndexError, ValueError):
            raise SystemExit(f"{a.source}:{number}: no time in column {a.time_column}: {line[:80]!r}")

    first = time(rows[0], a.header_lines + 1)
    begin = end = None
    for i, line in enumerate(rows):
        t = time(line, a.header_lines + 1 + i) - first
        if begin is None and t >= a.start:
            begin = i
        if a.seconds is not None and t >= a.start + a.seconds:
            end = i
            break
    if begin is None:
        print(f"{a.source}: nothing at or after {a.start} s", file=sys.stderr)
        return 1
    if end is None:
        end = len(rows)
    kept = rows[begin:end]
    out = b"".join(header + kept)
    open(a.output, "wb").write(out)

    header_bytes = sum(len(x) for x in header)
    byte_start = header_bytes + sum(len(x) for x in rows[:begin])
    byte_end = byte_start + sum(len(x) for x in kept)
    t0 = time(kept[0], 0) - first
    t1 = time(kept[-1], 0) - first
    print(f"  source size : {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}")
    if header:
        print(f"  header      : the first {a.header_lines} line(s), bytes 0 to {header_bytes} (exclusive)")
    print(f"  rows copied : data rows {begin + 1} to {end} of {len(rows)} (file lines "
          f"{a.header_lines + begin + 1} to {a.header_lines + end}), bytes {byte_start} to {byte_end} (exclusive)")
    print(f"  times       : {t0:.3f} to {t1:.3f} s after the file's first row ({t1 - t0:.3f} s)")
    print(f"  excerpt     : {len(out)} bytes, sha256 {hashlib.sha256(out).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
