"""What a process's memory costs the machine, as the kernel counts it (issue 37), for the
benchmarks that put orientationd beside iio-sensor-proxy (iio-wakeups.py --idle, claimed.py).

From /proc/PID/smaps_rollup, in MiB:
  rss   resident pages, each counted whole even when another process shares it;
  pss   proportional set size: a shared page divided among the processes that map it (what the
        process costs of the machine's memory; the sum over all processes is what is used);
  uss   private pages, clean and dirty (what ending the process would give back at once);
  anon  anonymous pages (heap, stacks, modified data: what only swap could take away; file
        pages of code the kernel can drop and read again under pressure).
"""

FIELDS = {"Rss": "rss", "Pss": "pss", "Private_Clean": "uss", "Private_Dirty": "uss", "Anonymous": "anon"}


def memory(pid):
    values = {"rss": 0.0, "pss": 0.0, "uss": 0.0, "anon": 0.0}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            key = line.split(":", 1)[0]
            if key in FIELDS:
                values[FIELDS[key]] += int(line.split()[1]) / 1024
    return values


def columns(m):
    """RSS, PSS, USS and anonymous memory as table cells."""
    return f"{m['rss']:.1f} | {m['pss']:.1f} | {m['uss']:.1f} | {m['anon']:.1f}"


HEADER = "RSS MiB | PSS MiB | USS MiB | anon MiB"
