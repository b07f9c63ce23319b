#!/usr/bin/python3
"""Writes linker/orientationd.order: the functions orientationd runs, for lld's
--symbol-ordering-file (the Makefile's RELEASE links every release build with it).

Why: the kernel maps code 64 KB at a time around each page fault, so a daemon whose startup and
steady-state functions lie scattered over 13 MB of code (the Swift standard library, SwiftNIO,
…) keeps most of it resident. Laid out together, they fill a few hundred pages and the idle
daemon is about 3 MB smaller (docs/PERFORMANCE.md, "Memory").

How: a copy of the release binary without DWARF (valgrind cannot read Swift's) runs under
callgrind through what a daemon does on a tablet: idle with a reload, an ignored signal and a
client's get; a paced replay with a subscriber; a umockdev accelerometer at 100 Hz with a
subscriber; the D-Bus facade on a private bus with a claim; a polled 10 Hz accelerometer with
light and proximity, claimed over D-Bus for a while (issue 28; its steady state only); then SIGTERM. Every function
any run entered is listed, the claimed steady state's first, then the others' in the order they
ran, keeping only names the binary defines. A stale
list costs memory, never correctness: lld ignores names it does not find, and code it does not
list keeps its place after the listed code.

Data too (issue 37): the same file then lists the data objects (`.data`, `.bss`) that the
daemon writes, found in the release binary run without valgrind, idle (a client's get, a reload)
and claimed (issue 28's tablet: polled accelerometer, light, D-Bus): every sized symbol whose
bytes in /proc/PID/mem differ from the file's image (a `.bss` one: from zero), relocated pointers
included (the loader writes those). lld orders data sections by the same file, so each written
object's `.data` and `.bss` (one section per object file) go to the front of their output
section: a page written anywhere is private and dirty for the process's life, and scattered over
`.bss` and `.data` the written bytes took 520 kB of pages, together 380 kB
(docs/PERFORMANCE.md, "Where each MB goes").

Usage: scripts/symbol-order.py [path/to/release/orientationd]   (make symbol-order)
       scripts/symbol-order.py --data [path/to/release/orientationd]   (only the data part,
       keeping the functions as they are: no valgrind, about half a minute)
Needs valgrind, umockdev, dbus-daemon, gdbus (libglib2.0-bin) and python3-dbus.
"""
import datetime, importlib.util, os, re, shutil, signal, socket, subprocess, sys, tempfile, time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(REPO, "linker", "orientationd.order")

# The umockdev fixture, its feed and the private bus come from the benchmark that measures the
# same situations (which import Benchmarks/process_memory.py: their directory goes on the path).
sys.path.insert(0, os.path.join(REPO, "Benchmarks"))
_spec = importlib.util.spec_from_file_location("iio_wakeups", os.path.join(REPO, "Benchmarks", "iio-wakeups.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)
_spec = importlib.util.spec_from_file_location("rss_breakdown", os.path.join(REPO, "Benchmarks", "rss-breakdown.py"))
breakdown = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(breakdown)


def wait_for(path, seconds=120):
    deadline = time.monotonic() + seconds
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise SystemExit(f"symbol-order: {path} did not appear within {seconds} s")
        time.sleep(0.05)


def subscribe(sock, seconds):
    """A client that subscribes, asks once, and reads for `seconds`."""
    client = socket.socket(socket.AF_UNIX)
    client.connect(sock)
    client.sendall(b'{"op":"subscribe"}\n{"op":"get","id":1}\n')
    client.settimeout(0.2)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if not client.recv(65536): break
        except socket.timeout:
            pass
    client.close()


class Running:
    """A started process that is killed (with its session) if the block fails, so a failed run
    leaves no valgrind behind."""
    def __init__(self, process): self.process = process
    def __enter__(self): return self.process
    def __exit__(self, kind, value, traceback):
        if kind is not None and self.process.poll() is None:
            try: os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError): self.process.kill()
            self.process.wait()
        return False


def callgrind(tmp, name):
    return ["valgrind", "--tool=callgrind", "--demangle=no", "--quiet", f"--callgrind-out-file={tmp}/{name}.out"]


def stop(process, pid=None):
    os.kill(pid or process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=120)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def run_all(binary, tmp):
    env = {"PATH": "/usr/bin:/bin"}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}

    # 1. Idle: startup, a client's get, a reload, an ignored signal, a subscriber that leaves.
    sock = f"{tmp}/idle.sock"
    with Running(subprocess.Popen(callgrind(tmp, "idle") + [binary, "--socket", sock], env=env, start_new_session=True,
                                  **quiet)) as daemon:
        wait_for(sock)
        subscribe(sock, 1)
        daemon.send_signal(signal.SIGHUP)
        time.sleep(1)
        daemon.send_signal(signal.SIGUSR1)
        time.sleep(1)
        stop(daemon)

    # 2. A paced replay of the bundled recording with a subscriber.
    sock = f"{tmp}/replay.sock"
    with Running(subprocess.Popen(callgrind(tmp, "replay") + [binary, "--replay", os.path.join(REPO, "data/xio-fusion/handheld.log"),
                                                              "--speed", "20", "--socket", sock], env=env, start_new_session=True,
                                  **quiet)) as daemon:
        wait_for(sock)
        subscribe(sock, 8)
        stop(daemon)

    # 3. A buffered accelerometer at 100 Hz under umockdev, with a subscriber.
    with open(f"{tmp}/accel.umockdev", "w") as f: f.write(bench.DESCRIPTION)
    with open(f"{tmp}/feed.script", "wb") as f: f.write(bench.feed_script(100 * 60))
    sock = f"{tmp}/sensor.sock"
    with Running(subprocess.Popen(["umockdev-run", "-d", f"{tmp}/accel.umockdev", "-s", f"/dev/iio:device0={tmp}/feed.script", "--"]
                                  + callgrind(tmp, "sensor") + [binary, "--socket", sock], env=env, start_new_session=True,
                                  **quiet)) as runner:
        wait_for(sock)
        subscribe(sock, 6)
        child = int(open(f"/proc/{runner.pid}/task/{runner.pid}/children").read().split()[0])
        stop(runner, child)

    # 4. The D-Bus facade on a private system-like bus, claimed once.
    bus, address = bench.private_bus(tmp)
    try:
        sock = f"{tmp}/dbus.sock"
        with Running(subprocess.Popen(callgrind(tmp, "dbus") + [binary, "--dbus", "--replay",
                                                                os.path.join(REPO, "data/xio-fusion/handheld.log"), "--speed", "20",
                                                                "--socket", sock],
                                      env=dict(env, DBUS_SYSTEM_BUS_ADDRESS=address), start_new_session=True, **quiet)) as daemon:
            wait_for(sock)
            time.sleep(2)
            gdbus = ["gdbus", "call", "--system", "--dest", "net.hadess.SensorProxy", "--object-path", "/net/hadess/SensorProxy"]
            subprocess.run(gdbus + ["--method", "net.hadess.SensorProxy.ClaimAccelerometer"],
                           env=dict(env, DBUS_SYSTEM_BUS_ADDRESS=address), timeout=60, **quiet)
            subprocess.run(gdbus + ["--method", "org.freedesktop.DBus.Properties.GetAll", "net.hadess.SensorProxy"],
                           env=dict(env, DBUS_SYSTEM_BUS_ADDRESS=address), timeout=60, **quiet)
            stop(daemon)
    finally:
        bus.terminate()
        bus.wait()
    # 5. Issue 28's tablet: a polled accelerometer (10 Hz) with a light and proximity sensor under
    #    umockdev, the D-Bus facade on a private bus, and one client holding ClaimAccelerometer and
    #    ClaimLight for a while, as a desktop does all session: the claimed daemon's code. Only the
    #    steady state is recorded (callgrind's instrumentation switched on 3 s after the claims,
    #    off before the release), and main() lists it first: what a claimed daemon keeps running
    #    is exactly these functions, and laid out together they take the fewest pages.
    with open(f"{tmp}/polled.umockdev", "w") as f: f.write(breakdown.POLLED + bench.AUXILIARY)
    bus, address = bench.private_bus(tmp)
    try:
        sock = f"{tmp}/claimed.sock"
        with Running(subprocess.Popen(["umockdev-run", "-d", f"{tmp}/polled.umockdev", "--"] + callgrind(tmp, "claimed")
                                      + ["--instr-atstart=no", binary, "--dbus", "--socket", sock],
                                      env=dict(env, DBUS_SYSTEM_BUS_ADDRESS=address), start_new_session=True, **quiet)) as runner:
            wait_for(sock)
            time.sleep(2)
            import dbus
            holder = dbus.bus.BusConnection(address)
            for member in ("ClaimAccelerometer", "ClaimLight"):
                holder.call_blocking("net.hadess.SensorProxy", "/net/hadess/SensorProxy", "net.hadess.SensorProxy",
                                     member, "", (), timeout=60)
            child = int(open(f"/proc/{runner.pid}/task/{runner.pid}/children").read().split()[0])
            time.sleep(3)
            subprocess.run(["callgrind_control", "--instr=on", str(child)], check=True, **quiet)
            time.sleep(6)
            subprocess.run(["callgrind_control", "--instr=off", str(child)], check=True, **quiet)
            holder.close()
            time.sleep(1)
            stop(runner, child)
    finally:
        bus.terminate()
        bus.wait()
    # The claimed steady state first (see 5.), then the rest in the order they ran.
    return ["claimed", "idle", "replay", "sensor", "dbus"]


def functions_entered(path):
    """Names of the functions a callgrind profile saw, in the order the file first names them."""
    names = []
    for line in open(path, errors="replace"):
        match = re.match(r"^c?fn=\(\d+\) (.+)$", line.rstrip("\n"))
        if match:
            names.append(match.group(1).split("'")[0])  # callgrind marks clones with a quote
    return names


DATA_MARKER = "# Data the daemon writes"


def written_data(binary, pid):
    """Names of the binary's sized `.data` and `.bss` symbols whose bytes in process `pid` differ
    from the file's image (`.bss`: from zero), in address order."""
    real = os.path.realpath(binary)
    bias = None
    for line in open(f"/proc/{pid}/maps"):
        fields = line.split()
        if len(fields) >= 6 and int(fields[2], 16) == 0 and os.path.realpath(fields[5]) == real:
            bias = int(fields[0].split("-")[0], 16)
            break
    if bias is None:
        raise SystemExit(f"symbol-order: process {pid} does not map {binary}")
    sections = []
    for line in subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout.splitlines():
        m = re.match(r"^\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if m and m[1] in (".data", ".bss"):
            sections.append((m[2], int(m[3], 16), int(m[4], 16), int(m[5], 16)))
    symbols = []
    for line in subprocess.run(["nm", "-n", "-S", "--defined-only", binary], capture_output=True, text=True, check=True).stdout.splitlines():
        parts = line.split(" ", 3)
        if len(parts) == 4 and parts[2] in "bBdD" and int(parts[1], 16):
            symbols.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    names = []
    with open(f"/proc/{pid}/mem", "rb") as memory, open(binary, "rb") as image_file:
        for kind, address, offset, size in sections:
            memory.seek(bias + address)
            live = memory.read(size)
            if kind == "NOBITS":
                image = bytes(size)
            else:
                image_file.seek(offset)
                image = image_file.read(size)
            for start, length, name in symbols:
                if address <= start < address + size:
                    k = start - address
                    if live[k:k + length] != image[k:k + length]:
                        names.append(name)
    return names


def data_runs(binary, tmp):
    """The data the release binary writes: idle with a client's get and a reload, then claimed
    as on issue 28's tablet (rss-breakdown.py's fixture, ClaimAccelerometer and ClaimLight)."""
    env = {"PATH": "/usr/bin:/bin"}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    names = []
    sock = f"{tmp}/data-idle.sock"
    with Running(subprocess.Popen([binary, "--socket", sock], env=env, start_new_session=True, **quiet)) as daemon:
        wait_for(sock)
        subscribe(sock, 1)
        daemon.send_signal(signal.SIGHUP)
        time.sleep(1)
        names += written_data(binary, daemon.pid)
        stop(daemon)
    with open(f"{tmp}/data-polled.umockdev", "w") as f: f.write(breakdown.POLLED + bench.AUXILIARY)
    bus, address = bench.private_bus(tmp)
    try:
        sock = f"{tmp}/data-claimed.sock"
        with Running(subprocess.Popen(["umockdev-run", "-d", f"{tmp}/data-polled.umockdev", "--", binary, "--dbus", "--socket", sock],
                                      env=dict(env, DBUS_SYSTEM_BUS_ADDRESS=address), start_new_session=True, **quiet)) as runner:
            wait_for(sock)
            time.sleep(2)
            import dbus
            holder = dbus.bus.BusConnection(address)
            for member in ("ClaimAccelerometer", "ClaimLight"):
                holder.call_blocking("net.hadess.SensorProxy", "/net/hadess/SensorProxy", "net.hadess.SensorProxy",
                                     member, "", (), timeout=60)
            subscribe(sock, 1)
            time.sleep(5)
            child = int(open(f"/proc/{runner.pid}/task/{runner.pid}/children").read().split()[0])
            names += written_data(binary, child)
            holder.close()
            stop(runner, child)
    finally:
        bus.terminate()
        bus.wait()
    ordered, seen = [], set()
    for name in names:
        if name not in seen:
            seen.add(name)
            ordered.append(name)
    return ordered


def write_order(functions, data, header=None):
    """The order file: `header` (the function part's comment lines, kept by --data) or a new one."""
    os.makedirs(os.path.dirname(OUTPUT), exist_ok=True)
    with open(OUTPUT, "w") as f:
        f.write(header or (f"# Generated by scripts/symbol-order.py ({datetime.date.today()}): the functions orientationd ran\n"
                           f"# idle, reloading, replaying, reading a 100 Hz sensor and serving D-Bus, for lld's\n"
                           f"# --symbol-ordering-file. {len(functions)} names. Regenerate with `make symbol-order`.\n"))
        for name in functions:
            f.write(name + "\n")
        f.write(f"{DATA_MARKER} (.data, .bss; {datetime.date.today()}): idle, reloading and claimed, {len(data)} names,\n"
                f"# placed first in their output sections so that the pages written are few (issue 37).\n")
        for name in data:
            f.write(name + "\n")


def main():
    data_only = "--data" in sys.argv[1:]
    arguments = [a for a in sys.argv[1:] if a != "--data"]
    binary = os.path.abspath(arguments[0] if arguments else os.path.join(REPO, ".build/release/orientationd"))
    if data_only:
        functions, header = [], ""
        for line in open(OUTPUT):
            if line.startswith(DATA_MARKER): break
            if line.startswith("#") and not functions: header += line
            elif not line.startswith("#"): functions.append(line.rstrip("\n"))
        with tempfile.TemporaryDirectory() as tmp:
            data = data_runs(binary, tmp)
        if len(data) < 100:
            raise SystemExit(f"symbol-order: only {len(data)} data symbols written; did the runs start? (nothing written)")
        write_order(functions, data, header)
        print(f"symbol-order: {len(functions)} functions kept, {len(data)} data symbols written to {os.path.relpath(OUTPUT, REPO)}")
        return
    for tool in ("valgrind", "callgrind_control", "umockdev-run", "dbus-daemon", "gdbus", "strip", "nm"):
        if not shutil.which(tool):
            raise SystemExit(f"symbol-order: needs {tool} (sudo apt install valgrind umockdev dbus-daemon libglib2.0-bin binutils)")
    defined = set()
    for line in subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in "tTwW":
            defined.add(parts[2])
    with tempfile.TemporaryDirectory() as tmp:
        stripped = f"{tmp}/orientationd"
        subprocess.run(["strip", "--strip-debug", "-o", stripped, binary], check=True)
        runs = run_all(stripped, tmp)
        order, seen = [], set()
        for run in runs:
            for name in functions_entered(f"{tmp}/{run}.out"):
                if name in defined and name not in seen:
                    seen.add(name)
                    order.append(name)
        data = data_runs(binary, tmp)
    if len(order) < 1000:
        raise SystemExit(f"symbol-order: only {len(order)} functions seen; did the runs start? (nothing written)")
    write_order(order, data)
    print(f"symbol-order: {len(order)} functions and {len(data)} data symbols written to {os.path.relpath(OUTPUT, REPO)}")


if __name__ == "__main__":
    main()
