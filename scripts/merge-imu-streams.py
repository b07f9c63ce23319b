#!/usr/bin/env python3
r"""Join a recording's separate accelerometer and gyroscope samples into one CSV for
`orientationctl import`, copying every value as the source wrote it.

Many phone loggers write each sensor as its own stream: two files (one row per sample), or one
file whose rows are tagged by sensor (`TYPE_ACCELEROMETER`, `ACCE`, ...). `import` reads one row
per sample with the acceleration and, optionally, the angular rate in the same row. This script
writes one row per accelerometer sample, in the source's order:

    time,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z

each cell the source's own text (no number is reparsed or rounded), the gyroscope cells those of
the latest gyroscope sample at or before the accelerometer sample's time (the first gyroscope
sample for accelerometer samples before it). Nothing is interpolated and no sample is invented or
dropped; a gyroscope sample later than the last accelerometer sample is not used. Lines that are
empty or start with a comment character (`#`, `%`) are skipped, as are tagged rows of other
sensors (and, with --xml, lines that are not one whole element, like a scan's closing tag).
The time is copied as it is, in the source's unit (tell `import` with --time-unit).

    # two files, whitespace-separated, time in column 1, x y z in columns 2-4
    scripts/merge-imu-streams.py OUT.csv --accel accelerometer.txt --gyro gyroscope-calibrated.txt \
        --delimiter whitespace --time-column 1 --accel-columns 2,3,4 --gyro-columns 2,3,4
    # one file, rows tagged in column 2 (tab-separated)
    scripts/merge-imu-streams.py OUT.csv --accel trace.txt --delimiter tab --type-column 2 \
        --accel-type TYPE_ACCELEROMETER --gyro-type TYPE_GYROSCOPE \
        --time-column 1 --accel-columns 3,4,5 --gyro-columns 3,4,5

    # XML lines like <a t="..." x="..." y="..." z="..." st="..." /> (--xml: the element's name,
    # then the attributes --xml-attributes names, become the row's cells 1, 2, ...)
    scripts/merge-imu-streams.py OUT.csv --accel log.xml --xml --xml-attributes st,x,y,z \
        --type-column 1 --accel-type a --gyro-type g --time-column 2 --accel-columns 3,4,5 --gyro-columns 3,4,5

Prints the input files' sizes and sha256, and the row counts, for raw/PROVENANCE.txt.
"""
import argparse
import bisect
import hashlib
import re
import sys

ELEMENT = re.compile(r'^<([A-Za-z_][\w.-]*)((?:\s+[\w.-]+="[^"]*")*)\s*/?>$')
ATTRIBUTE = re.compile(r'([\w.-]+)="([^"]*)"')

DELIMITERS = {"comma": ",", "semicolon": ";", "tab": "\t", "whitespace": None}


def columns(text: str) -> list:
    try:
        cols = [int(c) for c in text.split(",")]
    except ValueError:
        raise SystemExit(f"columns must be three numbers like 2,3,4, not {text!r}")
    if len(cols) != 3 or min(cols) < 1:
        raise SystemExit(f"columns must be three numbers from 1, like 2,3,4, not {text!r}")
    return cols


def read(path: str, a, tag, cols, say: bool = True) -> list:
    """(time, [x, y, z] as text) for each sample row of `path` (with `tag` when tagged)."""
    data = open(path, "rb").read()
    if say:
        print(f"  {path}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}")
    samples = []
    for number, raw in enumerate(data.decode("utf-8").splitlines(), start=1):
        line = raw.strip()
        if a.xml:
            element = ELEMENT.match(line)
            if not element:
                continue
            attributes = dict(ATTRIBUTE.findall(element.group(2)))
            cells = [element.group(1)] + [attributes.get(name, "") for name in a.xml_attributes]
        elif not line or line[0] in "#%":
            continue
        else:
            cells = [c.strip() for c in (line.split() if a.delimiter is None else line.split(a.delimiter))]
        if a.type_column is not None:
            if len(cells) < a.type_column or cells[a.type_column - 1] != tag:
                continue
        try:
            t = float(cells[a.time_column - 1])
            values = [cells[c - 1] for c in cols]
            for v in values:
                float(v)
        except (IndexError, ValueError):
            raise SystemExit(f"{path}:{number}: no time in column {a.time_column} or no x, y, z in "
                             f"columns {cols}: {raw[:80]!r}")
        samples.append((t, cells[a.time_column - 1], values))
    return samples


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("output")
    p.add_argument("--accel", required=True, help="file with the accelerometer samples")
    p.add_argument("--gyro", help="file with the gyroscope samples (default: the --accel file)")
    p.add_argument("--delimiter", choices=DELIMITERS, default="comma")
    p.add_argument("--xml", action="store_true",
                   help="each sample is an XML element on its own line: its name, then --xml-attributes, are the cells")
    p.add_argument("--xml-attributes", type=lambda t: t.split(","), default=["t", "x", "y", "z"],
                   help="the attributes that become cells 2, 3, ... (default t,x,y,z)")
    p.add_argument("--type-column", type=int, help="1-based column naming each row's sensor")
    p.add_argument("--accel-type", help="the accelerometer rows' name in --type-column")
    p.add_argument("--gyro-type", help="the gyroscope rows' name in --type-column")
    p.add_argument("--time-column", type=int, required=True)
    p.add_argument("--accel-columns", type=columns, required=True)
    p.add_argument("--gyro-columns", type=columns, required=True)
    a = p.parse_args()
    a.delimiter = DELIMITERS[a.delimiter]
    if a.type_column is not None and not (a.accel_type and a.gyro_type):
        raise SystemExit("--type-column needs --accel-type and --gyro-type")

    accel = read(a.accel, a, a.accel_type, a.accel_columns)
    gyro = read(a.gyro or a.accel, a, a.gyro_type, a.gyro_columns, say=a.gyro not in (None, a.accel))
    if not accel or not gyro:
        raise SystemExit("no accelerometer or no gyroscope samples")
    order = sorted(range(len(gyro)), key=lambda i: gyro[i][0])
    times = [gyro[i][0] for i in order]
    out = ["time,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z"]
    for t, text, values in accel:
        k = bisect.bisect_right(times, t) - 1
        g = gyro[order[max(k, 0)]][2]
        out.append(",".join([text] + values + g))
    open(a.output, "w").write("\n".join(out) + "\n")
    print(f"  merged      : {len(accel)} accelerometer rows, {len(gyro)} gyroscope samples -> {a.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
