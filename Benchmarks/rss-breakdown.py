#!/usr/bin/python3
"""What is resident in orientationd, and why (issue 28, item 4).

Runs the daemon under umockdev-run with a polled accelerometer (accel_3d, sampling_frequency 10)
and a light and proximity sensor, as the issue's claimed benchmark does, in one of three states:
idle with the socket only, idle with --dbus on a private system-like bus, or --dbus with one
client holding ClaimAccelerometer (python3-dbus; the claim lasts while that connection lives).
After the warm-up it prints VmRSS and where it is, from /proc/PID/smaps and /proc/PID/pagemap:

- per mapping kind: the binary's segments (code, read-only data, relocated data), every shared
  library, the heap, thread stacks and other anonymous memory;
- the binary's resident pages per ELF section;
- the binary's resident code pages per Swift module (the module of the first function on each
  page, from `nm`: `$s<n><Module>` mangled names; C and C++ symbols as "C/C++").

Usage: Benchmarks/rss-breakdown.py [--dbus] [--claim] [--seconds N] [--pages FILE] [path/to/orientationd]
(--pages: also write the file offsets of the resident code pages, one hexadecimal number a line)
(needs root for pagemap's present bits of file pages only where the kernel hides them; umockdev,
dbus-daemon, python3-dbus, binutils). --claim implies --dbus; the claim comes 3 s after start, and
the numbers --seconds after it (default 8: the daemon drops the claim's own pages 5 s into it;
idle, 5 s after start).
"""
import bisect, collections, importlib.util, os, re, struct, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("iio_wakeups", os.path.join(HERE, "iio-wakeups.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

PAGE = os.sysconf("SC_PAGE_SIZE")

# The claimed fixture: a polled accelerometer (no buffer, no device node) at 10 Hz.
POLLED = "\n".join([
    "P: /devices/platform/fake-accel/iio:device0", "N: iio:device0",
    "E: DEVTYPE=iio_device", "E: SUBSYSTEM=iio",
    "A: name=accel_3d\\n", "A: sampling_frequency=10\\n",
    "A: in_accel_x_raw=0\\n", "A: in_accel_y_raw=-100\\n", "A: in_accel_z_raw=0\\n", "A: in_accel_scale=0.0980665\\n",
]) + "\n\n"


def mappings(pid):
    """(start, end, perms, offset, path, fields) for every mapping in smaps."""
    out, current = [], None
    for line in open(f"/proc/{pid}/smaps"):
        head = re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) \S+ \d+\s*(.*)$", line)
        if head:
            current = [int(head[1], 16), int(head[2], 16), head[3], int(head[4], 16), head[5].strip(), {}]
            out.append(current)
        elif current is not None:
            field = re.match(r"^(\w+):\s+(\d+) kB", line)
            if field:
                current[5][field[1]] = int(field[2])
    return out


def present_pages(pid, start, end):
    """Virtual addresses of the pages of [start, end) that are mapped in (pagemap bit 63)."""
    pages = []
    with open(f"/proc/{pid}/pagemap", "rb") as f:
        f.seek(start // PAGE * 8)
        data = f.read((end - start) // PAGE * 8)
    for k in range(len(data) // 8):
        (entry,) = struct.unpack_from("<Q", data, k * 8)
        if entry >> 63:
            pages.append(start + k * PAGE)
    return pages


def sections(binary):
    """(file offset, size, name, flags) of the binary's allocated sections."""
    result = []
    text = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    for line in text.splitlines():
        m = re.match(r"^\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+\S+\s+(\S*)", line)
        if m and "A" in m[5]:
            result.append((int(m[3], 16), int(m[4], 16), m[1], int(m[2], 16)))
    return sorted(result)


def module_of(name):
    if name.startswith(("$sS", "$ss")) or name.startswith("swift_") or name.startswith("_swift"):
        return "Swift standard library/runtime"
    m = re.match(r"^\$s(\d+)(\w+)", name)
    if m:
        length = int(m[1])
        module = m[2][:length]
        return module
    return "C/C++"


def text_symbols(binary):
    addresses, names = [], []
    out = subprocess.run(["nm", "-n", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in "tTwW":
            addresses.append(int(parts[0], 16))
            names.append(parts[2])
    return addresses, names


def claim(address):
    """A client holding ClaimAccelerometer for as long as the returned connection lives."""
    import dbus
    connection = dbus.bus.BusConnection(address)
    connection.call_blocking("net.hadess.SensorProxy", "/net/hadess/SensorProxy", "net.hadess.SensorProxy",
                             "ClaimAccelerometer", "", (), timeout=30)
    return connection


def breakdown(pid, binary, pages_file=None):
    maps = mappings(pid)
    rss = next(int(l.split()[1]) for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS"))
    binary_real = os.path.realpath(binary)
    kinds = collections.OrderedDict()
    threads = len(os.listdir(f"/proc/{pid}/task"))
    stacks = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            sp = int(open(f"/proc/{pid}/task/{task}/stat").read().rsplit(")", 1)[1].split()[26])
        except (OSError, IndexError, ValueError):
            continue
        stacks.add(sp)
    for start, end, perms, offset, path, fields in maps:
        r = fields.get("Rss", 0)
        if os.path.realpath(path) == binary_real if path.startswith("/") else False:
            kind = {"r-xp": "binary: code", "r--p": "binary: read-only (headers, rodata, relocations, metadata)",
                    "rw-p": "binary: writable (relro-relocated data, .data, .bss)"}.get(perms, f"binary {perms}")
        elif path.startswith("/"):
            kind = "lib: " + os.path.basename(path)
        elif path == "[heap]":
            kind = "heap (brk)"
        elif path == "[stack]":
            kind = "main thread stack"
        elif path in ("[vvar]", "[vdso]", "[vsyscall]"):
            kind = "vdso"
        elif perms == "rw-p":
            kind = "anonymous rw (thread stacks, malloc arenas, mmapped allocations)"
        else:
            kind = f"anonymous {perms}"
        entry = kinds.setdefault(kind, [0, 0, 0])
        entry[0] += r
        entry[1] += fields.get("Private_Dirty", 0)
        entry[2] += fields.get("Pss", 0)
    print(f"VmRSS {rss} kB ({rss / 1024:.1f} MiB), {threads} threads")
    print("| mapping | Rss kB | Private_Dirty kB | Pss kB |")
    print("|---|---:|---:|---:|")
    libs = [0, 0, 0]
    for kind, (r, d, p) in sorted(kinds.items(), key=lambda kv: -kv[1][0]):
        if kind.startswith("lib: "):
            libs = [libs[0] + r, libs[1] + d, libs[2] + p]
        if r:
            print(f"| {kind} | {r} | {d} | {p} |")
    print(f"| (all shared libraries) | {libs[0]} | {libs[1]} | {libs[2]} |")

    # The binary's resident pages by section, and its code pages by module.
    secs = sections(binary)
    per_section = collections.Counter()
    code_pages = []
    for start, end, perms, offset, path, fields in maps:
        if not path.startswith("/") or os.path.realpath(path) != binary_real:
            continue
        for page in present_pages(pid, start, end):
            file_offset = offset + (page - start)
            owner = "(headers/padding)"
            for off, size, name, address in secs:
                if off <= file_offset < off + max(size, 1) or (file_offset <= off < file_offset + PAGE and size):
                    owner = name
                    break
            per_section[owner] += PAGE // 1024
            if "x" in perms:
                code_pages.append((page - start) + offset)
    if pages_file:
        with open(pages_file, "w") as f:
            f.writelines(f"{o:x}\n" for o in code_pages)
    print("\n| binary section (first section on each resident page) | resident kB |")
    print("|---|---:|")
    for name, kb in per_section.most_common():
        print(f"| {name} | {kb} |")
    text_section = next(((off, addr) for off, size, name, addr in secs if name == ".text"), None)
    if text_section and code_pages:
        addresses, names = text_symbols(binary)
        per_module = collections.Counter()
        for file_offset in code_pages:
            vaddr = file_offset - text_section[0] + text_section[1]
            k = bisect.bisect_right(addresses, vaddr + PAGE - 1) - 1
            per_module[module_of(names[k]) if k >= 0 else "?"] += PAGE // 1024
        print("\n| code pages by module (the last function starting on or before the page's end) | resident kB |")
        print("|---|---:|")
        for name, kb in per_module.most_common(15):
            print(f"| {name} | {kb} |")


def main():
    args = sys.argv[1:]
    dbus_on = "--dbus" in args or "--claim" in args
    claimed = "--claim" in args
    seconds = 8.0 if "--claim" in args else 5.0
    if "--seconds" in args:
        seconds = float(args[args.index("--seconds") + 1])
        del args[args.index("--seconds"):args.index("--seconds") + 2]
    pages_file = None
    if "--pages" in args:
        pages_file = args[args.index("--pages") + 1]
        del args[args.index("--pages"):args.index("--pages") + 2]
    rest = [a for a in args if a not in ("--dbus", "--claim")]
    binary = rest[0] if rest else ".build/release/orientationd"
    bench.evict_from_page_cache(binary)  # as installed and read from disk (bench.evict_from_page_cache)
    with tempfile.TemporaryDirectory() as tmp:
        with open(f"{tmp}/sensors.umockdev", "w") as f:
            f.write(POLLED + bench.AUXILIARY)
        sock = f"{tmp}/d.sock"
        env = {"PATH": "/usr/bin:/bin"}
        bus = None
        extra = []
        if dbus_on:
            bus, address = bench.private_bus(tmp)
            env["DBUS_SYSTEM_BUS_ADDRESS"] = address
            extra = ["--dbus"]
        runner = subprocess.Popen(["umockdev-run", "-d", f"{tmp}/sensors.umockdev", "--", binary, "--socket", sock,
                                   "--log-level", "warning"] + extra, env=env, start_new_session=True)
        holder = None
        try:
            for _ in range(1000):
                if os.path.exists(sock): break
                time.sleep(0.01)
            # A desktop claims some time after the daemon is ready: 3 s after the socket.
            time.sleep(3 if claimed else 1)
            if claimed:
                holder = claim(address)
            time.sleep(seconds)
            pid = int(open(f"/proc/{runner.pid}/task/{runner.pid}/children").read().split()[0])
            state = "claimed (one D-Bus client holds ClaimAccelerometer)" if claimed else ("idle, --dbus" if dbus_on else "idle, socket only")
            print(f"orientationd ({binary}), {state}, polled accel_3d at 10 Hz + light/proximity under umockdev, {seconds:.0f} s after {'the claim' if claimed else 'start'}")
            breakdown(pid, binary, pages_file)
        finally:
            if holder is not None: holder.close()
            os.killpg(runner.pid, 15)
            runner.wait()
            if bus: bus.terminate(); bus.wait()


if __name__ == "__main__":
    main()
