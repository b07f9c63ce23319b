#!/usr/bin/python3
"""What is resident in orientationd, and why (issue 28, item 4).

Runs the daemon under umockdev-run with a polled accelerometer (accel_3d, sampling_frequency 10)
and a light and proximity sensor, as the issue's claimed benchmark does, in one of three states:
idle with the socket only, idle with --dbus on a private system-like bus, or --dbus with one
client holding ClaimAccelerometer (python3-dbus; the claim lasts while that connection lives).
After the warm-up it prints VmRSS and where it is, from /proc/PID/smaps and /proc/PID/pagemap:

- per mapping kind, with Rss, Pss, Private_Dirty and Anonymous (what the machine cannot reclaim
  without swap): the binary's segments (code, read-only data, RELRO, the writable segment, the
  .bss beyond its file), every shared library (with its own .bss), malloc's main arena (brk) and
  each thread arena (a 64 MiB-aligned heap), each thread's stack by the thread's name (the
  mapping that holds the stack pointer /proc/PID/task/TID/syscall shows: root), other anonymous
  memory;
- who owns the binary's private dirty pages (RELRO, the writable segment, .bss): each page to the
  module whose data symbols (`nm -S`) cover most of it (issue 37);
- the binary's resident pages per ELF section;
- the binary's resident code pages per Swift module (the module of the first function on each
  page, from `nm`: `$s<n><Module>` mangled names; C and C++ symbols as "C/C++").

Usage: [GLIBC_TUNABLES=...] Benchmarks/rss-breakdown.py [--dbus] [--claim] [--seconds N] [--pages FILE] [path/to/orientationd]
(GLIBC_TUNABLES is passed to the daemon, e.g. glibc.malloc.arena_max=1, to measure malloc's settings)
(--pages: also write the file offsets of the resident code pages, one hexadecimal number a line)
(needs root for pagemap's present bits of file pages only where the kernel hides them; umockdev,
dbus-daemon, python3-dbus, binutils). --claim implies --dbus; the claim comes 3 s after start, and
the numbers --seconds after it (default 8; idle, 5 s after start). The daemon's pages are counted as the kernel keeps them: nothing is dropped.
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


def present_pages(pid, start, end, anonymous_only=False):
    """Virtual addresses of the pages of [start, end) that are mapped in (pagemap bit 63); with
    `anonymous_only`, only those that are not file pages (bit 61 clear): in a private file mapping,
    the pages written since the load (relocations, modified data), copies of their own."""
    pages = []
    with open(f"/proc/{pid}/pagemap", "rb") as f:
        f.seek(start // PAGE * 8)
        data = f.read((end - start) // PAGE * 8)
    for k in range(len(data) // 8):
        (entry,) = struct.unpack_from("<Q", data, k * 8)
        if entry >> 63 and not (anonymous_only and entry >> 61 & 1):
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
    if name.startswith(("_ZN5swift", "_ZL", "_ZZ", "_ZN12_GLOBAL__N_")) or "swift" in name.lower():
        return "Swift runtime (C++)"
    if name.startswith(("_dispatch", "_NSConcrete", "dispatch_")):
        return "libdispatch"
    return "C/C++"


def kinds_label(perms, offset, ours):
    """The binary's private writable mappings: RELRO (the first writable segment, read-only once
    relocated) or the writable segment (.data, .rodata made writable, .got.plt, .bss's file part)."""
    first_writable = min((m[3] for m in ours if m[2] in ("rw-p",) or (m[2] == "r--p" and m[3] != 0)), default=None)
    return "RELRO (.data.rel.ro)" if offset == first_writable else "writable segment (.data, .rodata, .bss)"


def data_symbols(binary):
    """(address, size, name) of the binary's data objects (.data, .rodata, .data.rel.ro, .bss)."""
    out = subprocess.run(["nm", "-n", "-S", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    result = []
    for line in out.splitlines():
        parts = line.split(" ", 3)
        if len(parts) == 4 and parts[2] in "bBdDrRvV":
            result.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    return result


def owners_of_pages(pages, load_bias, symbols):
    """kB per module of the given pages (virtual addresses): each page counted to the module whose
    symbols cover most of its bytes ("(no symbol)" where none does: anonymous Swift metadata,
    string literals, padding)."""
    starts = [a for a, _, _ in symbols]
    per_module = collections.Counter()
    for page in pages:
        lo, hi = page - load_bias, page - load_bias + PAGE
        k = max(bisect.bisect_right(starts, lo) - 1, 0)
        cover = collections.Counter()
        while k < len(symbols) and symbols[k][0] < hi:
            a, size, name = symbols[k]
            overlap = min(a + size, hi) - max(a, lo)
            if overlap > 0:
                cover[module_of(name)] += overlap
            k += 1
        per_module[cover.most_common(1)[0][0] if cover else "(no symbol)"] += PAGE // 1024
    return per_module


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


HEAP_MAX = 64 << 20  # glibc's HEAP_MAX_SIZE on 64-bit: a thread arena's heap is aligned to it


def thread_stack_pointers(pid):
    """{stack pointer: thread name} of the threads blocked in a system call (all of an idle or
    still daemon's), from /proc/PID/task/TID/syscall (root: it needs ptrace access)."""
    result = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            fields = open(f"/proc/{pid}/task/{task}/syscall").read().split()
            name = open(f"/proc/{pid}/task/{task}/comm").read().strip()
        except OSError:
            continue
        if len(fields) >= 9:
            result[int(fields[-2], 16)] = name
    return result


def anonymous_kind(start, end, perms, following, binary_end, stack_pointers):
    """What an anonymous mapping is: a thread's stack (it holds the thread's stack pointer), a
    malloc arena's heap (a 64 MiB-aligned start with its reserve, ---p, after it), the binary's
    .bss beyond its last file page (it starts where the binary's mappings end), or another
    mapping (malloc's mmapped blocks, the Swift runtime's metadata allocator's pages)."""
    names = sorted(name for sp, name in stack_pointers.items() if start <= sp < end)
    if names:
        return "stack: " + ", ".join(names)
    if start == binary_end:
        return "binary: .bss beyond the file (anonymous)"
    if start % HEAP_MAX == 0 and following is not None and following[0] == end and following[2] == "---p":
        return "malloc arena (a thread's heap)"
    if perms == "---p":
        return "anonymous ---p (guard pages, arena reserves)"
    return f"anonymous {perms} (mmapped blocks, other)"


def breakdown(pid, binary, pages_file=None, mappings_only=False, out=sys.stdout):
    """Prints where `pid`'s memory is (see the module's comment); `mappings_only`: the first table
    alone (any program: claimed.py --breakdown prints it for iio-sensor-proxy too)."""
    maps = mappings(pid)
    rss = next(int(l.split()[1]) for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS"))
    binary_real = os.path.realpath(binary)
    kinds = collections.OrderedDict()
    threads = len(os.listdir(f"/proc/{pid}/task"))
    stack_pointers = thread_stack_pointers(pid)
    ours = [m for m in maps if m[4].startswith("/") and os.path.realpath(m[4]) == binary_real]
    binary_end = max(m[1] for m in ours) if ours else None
    load_bias = next((m[0] for m in ours if m[3] == 0), 0)
    arenas = 0
    for k, (start, end, perms, offset, path, fields) in enumerate(maps):
        following = maps[k + 1] if k + 1 < len(maps) else None
        if path.startswith("/") and os.path.realpath(path) == binary_real:
            kind = {"r-xp": "binary: code", "r--p": "binary: read-only (headers, rodata, relocations, metadata)",
                    "rw-p": "binary: writable (relro-relocated data, .data, .bss)"}.get(perms, f"binary {perms}")
            if perms == "r--p" and offset != 0:
                kind = "binary: RELRO (.data.rel.ro, relocated, then read-only)"
        elif path.startswith("/"):
            kind = "lib: " + os.path.basename(path)
        elif path == "[heap]":
            kind = "heap (brk: malloc's main arena)"
        elif path == "[stack]":
            kind = "stack: main thread"
            names = [name for sp, name in stack_pointers.items() if start <= sp < end]
            if names: kind = "stack: " + ", ".join(sorted(names)) + " (main thread)"
        elif path in ("[vvar]", "[vdso]", "[vsyscall]", "[vvar_vclock]"):
            kind = "vdso"
        elif k and maps[k - 1][1] == start and maps[k - 1][4].startswith("/") and perms == "rw-p" and maps[k - 1][2] == "rw-p" \
                and os.path.realpath(maps[k - 1][4]) != binary_real:
            kind = "lib: " + os.path.basename(maps[k - 1][4])  # the library's .bss beyond its file
        else:
            kind = anonymous_kind(start, end, perms, following, binary_end, stack_pointers)
            if kind.startswith("malloc arena"):
                arenas += 1
        entry = kinds.setdefault(kind, [0, 0, 0, 0])
        entry[0] += fields.get("Rss", 0)
        entry[1] += fields.get("Pss", 0)
        entry[2] += fields.get("Private_Dirty", 0)
        entry[3] += fields.get("Anonymous", 0)
    print(f"VmRSS {rss} kB ({rss / 1024:.1f} MiB), {threads} threads, {arenas} malloc thread arenas", file=out)
    print("| mapping | Rss kB | Pss kB | Private_Dirty kB | Anonymous kB |", file=out)
    print("|---|---:|---:|---:|---:|", file=out)
    libs = [0, 0, 0, 0]
    total = [0, 0, 0, 0]
    for kind, values in sorted(kinds.items(), key=lambda kv: -kv[1][0]):
        total = [t + v for t, v in zip(total, values)]
        if kind.startswith("lib: "):
            libs = [l + v for l, v in zip(libs, values)]
        if values[0]:
            print(f"| {kind} | " + " | ".join(str(v) for v in values) + " |", file=out)
    print("| (all shared libraries) | " + " | ".join(str(v) for v in libs) + " |", file=out)
    print("| (total) | " + " | ".join(str(v) for v in total) + " |", file=out)
    if mappings_only:
        return

    # Who owns the binary's private dirty pages: the relocated read-only data, the written .data
    # and .rodata, and the touched .bss (each page to the module whose symbols cover most of it).
    symbols = data_symbols(binary)
    dirty = collections.OrderedDict()
    for start, end, perms, offset, path, fields in maps:
        mine = path.startswith("/") and os.path.realpath(path) == binary_real
        if mine and "w" not in perms and "RELRO" not in kinds_label(perms, offset, ours):
            continue
        if mine:
            label = kinds_label(perms, offset, ours)
            pages = present_pages(pid, start, end, anonymous_only=True)
        elif start == binary_end:
            label = ".bss beyond the file"
            pages = present_pages(pid, start, end)
        else:
            continue
        dirty.setdefault(label, collections.Counter()).update(owners_of_pages(pages, load_bias, symbols))
    for label, per_module in dirty.items():
        print(f"\n| {label}: dirty pages by owner | kB |")
        print("|---|---:|")
        print(f"| (all) | {sum(per_module.values())} |")
        for name, kb in per_module.most_common(12):
            print(f"| {name} | {kb} |")

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
        if "GLIBC_TUNABLES" in os.environ:  # e.g. glibc.malloc.arena_max=1, to measure malloc's settings
            env["GLIBC_TUNABLES"] = os.environ["GLIBC_TUNABLES"]
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
