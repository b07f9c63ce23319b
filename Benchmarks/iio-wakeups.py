#!/usr/bin/python3
"""Wake-ups and CPU time per second of orientationd with one subscriber and a 100 Hz
accelerometer, for several buffer batch sizes (`[sensor] batch`).

The sensor is a umockdev fixture (accel_3d, le:s16/32>>0 plus a timestamp) whose
/dev/iio:device0 is a PTY fed by a umockdev script at 100 samples/s. Counts come from
/proc: context switches summed over every thread of the daemon, and utime+stime.
Usage: Benchmarks/iio-wakeups.py [path/to/orientationd]   (make bench-iio)
       Benchmarks/iio-wakeups.py --idle [path/to/orientationd]   (make bench-idle: the sensors
       present (accelerometer, light, proximity), nobody subscribed, 20 s: wake-ups, threads and memory
       as the kernel counts it (RSS, PSS, USS, anonymous: process_memory.py); measured three times:
       socket only, with --dbus on a private system-like bus, and Debian's iio-sensor-proxy on the
       same bus and sensors)
       Benchmarks/iio-wakeups.py --topics [path/to/orientationd]   (one client subscribed to the
       light and proximity topics only: wake-ups at the sensors' own rates)
"""
import os, re, socket, struct, subprocess, sys, tempfile, time
from process_memory import memory, columns as memory_columns, HEADER as MEMORY_HEADER

PEER = "/usr/sbin/iio-sensor-proxy"
# The type the peer's udev rule (80-iio-sensor-proxy.rules) gives each fixture; orientationd
# reads the same property (issue 16), so both daemons see the same sensors.
PEER_TYPES = {"accel": "E: IIO_SENSOR_PROXY_TYPE=iio-buffer-accel", "aux": "E: IIO_SENSOR_PROXY_TYPE=iio-poll-als iio-poll-proximity"}

daemon = ".build/release/orientationd"  # set by main() from the command line
RATE, SECONDS, WARMUP = 100, 10, 2

DESCRIPTION = "\n".join([
    "P: /devices/platform/fake-accel/iio:device0", "N: iio:device0",
    "E: DEVNAME=/dev/iio:device0", "E: DEVTYPE=iio_device", "E: SUBSYSTEM=iio", "E: MAJOR=243", "E: MINOR=0",
    "A: dev=243:0\\n", "A: name=accel_3d\\n", "A: sampling_frequency=100\\n",
    "A: in_accel_x_raw=0\\n", "A: in_accel_y_raw=-100\\n", "A: in_accel_z_raw=0\\n", "A: in_accel_scale=0.0980665\\n",
] + [f"A: scan_elements/in_accel_{a}_{k}={v}\\n" for i, a in enumerate("xyz")
     for k, v in (("en", 0), ("index", i), ("type", "le:s16/32>>0"))] + [
    "A: scan_elements/in_timestamp_en=0\\n", "A: scan_elements/in_timestamp_index=3\\n",
    "A: scan_elements/in_timestamp_type=le:s64/64>>0\\n", "A: buffer/enable=0\\n", "A: buffer/length=0\\n",
]) + "\n\n"

# Issue 17: the idle daemon has a light and a proximity sensor too (a vcnl4000-like device),
# unclaimed: they must cost no thread and no wake-up.
AUXILIARY = "\n".join([
    "P: /devices/platform/fake-vcnl4000/iio:device1", "E: DEVTYPE=iio_device", "E: SUBSYSTEM=iio",
    "A: name=vcnl4000\\n", "A: in_illuminance_raw=400\\n", "A: in_illuminance_scale=0.25\\n",
    "A: in_proximity_raw=10\\n", "A: in_proximity_nearlevel=1000\\n",
]) + "\n\n"

def feed_script(samples):
    """A umockdev script feeding `samples` scans (y = -100 raw, 10 ms apart) at RATE per second."""
    return b"".join(script_line(1000 // RATE, struct.pack("<iiiiq", 0, -100, 0, 0, k * 10_000_000)) for k in range(samples))

def script_line(delay_ms, data):
    out = bytearray(f"r {delay_ms} ".encode())
    for b in data:
        if b < 32: out += bytes([ord("^"), b + 64])
        elif b == ord("^"): out += b"^`"
        else: out.append(b)
    return bytes(out) + b"\n"

def counters(pid):
    """Context switches per thread id, and the process's CPU seconds."""
    switches = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/status") as f:
                switches[task] = sum(int(line.split()[1]) for line in f
                                     if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")))
        except FileNotFoundError:
            pass  # the thread ended while we listed
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return switches, cpu

def switches_between(before, after):
    """Switches in the window: threads alive at both ends, plus every switch of threads born in
    it. A thread that ended in the window took its counter with it (summing totals instead gave
    negative counts); such threads are counted separately."""
    total = sum(after[t] - before.get(t, 0) for t in after)
    return total, sum(1 for t in before if t not in after)

def measure(batch, tmp):
    with open(f"{tmp}/accel.umockdev", "w") as f: f.write(DESCRIPTION)
    with open(f"{tmp}/feed.script", "wb") as f: f.write(feed_script(RATE * (SECONDS + WARMUP + 3)))
    with open(f"{tmp}/d.conf", "w") as f: f.write(f"[sensor]\nbatch = {batch}\nsampling-frequency = {RATE}\n")
    sock = f"{tmp}/d{batch}.sock"
    runner = subprocess.Popen(["umockdev-run", "-d", f"{tmp}/accel.umockdev", "-s", f"/dev/iio:device0={tmp}/feed.script",
                               "--", daemon, "--socket", sock, "--config", f"{tmp}/d.conf", "--log-level", "warning"],
                              env={"PATH": "/usr/bin:/bin"}, start_new_session=True)
    try:
        for _ in range(500):
            if os.path.exists(sock): break
            time.sleep(0.01)
        client = socket.socket(socket.AF_UNIX); client.connect(sock)
        client.sendall(b'{"op":"subscribe"}\n')
        time.sleep(WARMUP)
        pid = int(open(f"/proc/{runner.pid}/task/{runner.pid}/children").read().split()[0])
        s0, c0 = counters(pid); t0 = time.monotonic()
        time.sleep(SECONDS)
        s1, c1 = counters(pid); t1 = time.monotonic()
        rss, threads = resident_and_threads(pid)
        client.close()
        return switches_between(s0, s1)[0] / (t1 - t0), (c1 - c0) / (t1 - t0) * 1000, rss, threads
    finally:
        os.killpg(runner.pid, 15); runner.wait()

def resident_and_threads(pid):
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))
    return rss / 1024, len(os.listdir(f"/proc/{pid}/task"))

def private_bus(tmp):
    """A dbus-daemon configured like Debian's system bus, with only the project's policy."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    config = open("/usr/share/dbus-1/system.conf").read()
    for pattern in ("<user>messagebus</user>", "<standard_system_servicedirs/>", "<includedir>system.d</includedir>",
                    "<includedir>/etc/dbus-1/system.d</includedir>"):
        config = config.replace(pattern, "")
    config = re.sub(r"<include ignore_missing=\"yes\">[^<]*</include>", "", config)
    config = re.sub(r"<pidfile>[^<]*</pidfile>", "", config)
    config = re.sub(r"<listen>[^<]*</listen>", f"<listen>unix:path={tmp}/bus</listen>", config)
    config = config.replace("</busconfig>", f"<include>{repo}/config/net.hadess.SensorProxy.conf</include>\n</busconfig>")
    with open(f"{tmp}/bus.conf", "w") as f: f.write(config)
    bus = subprocess.Popen(["dbus-daemon", f"--config-file={tmp}/bus.conf", "--nofork", "--nopidfile"],
                           stderr=subprocess.DEVNULL)
    for _ in range(500):
        if os.path.exists(f"{tmp}/bus"): break
        time.sleep(0.01)
    return bus, f"unix:path={tmp}/bus"

def evict_from_page_cache(path):
    """Drops `path`'s clean pages from the page cache, so that the daemon starts as an installed
    binary does after boot, read from disk. A binary just linked or copied sits in the page cache
    as it was written, and the kernel's fault-around then mapped up to 0.6 MiB more of it
    (issue 28: the same binary read 9.5 and 9.0 MiB idle, docs/PERFORMANCE.md)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)  # dirty pages cannot be dropped
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    except OSError:
        pass
    finally:
        os.close(fd)

def typed(description, kind):
    """A fixture with the udev property the peer's rule would give it."""
    head, rest = description.split("\n", 1)
    return head + "\n" + PEER_TYPES[kind] + "\n" + rest

def measure_idle(tmp, seconds=20, dbus=False, peer=False):
    """The daemon (orientationd, or with `peer` Debian's iio-sensor-proxy) with sensors present
    (accelerometer, light, proximity) and nobody subscribed (nor claiming): it should sleep."""
    program = PEER if peer else daemon
    evict_from_page_cache(program)
    with open(f"{tmp}/accel.umockdev", "w") as f: f.write(typed(DESCRIPTION, "accel") + typed(AUXILIARY, "aux"))
    sock = f"{tmp}/idle.sock"
    env = {"PATH": "/usr/bin:/bin"}
    extra, bus = [], None
    if dbus or peer:
        bus, address = private_bus(tmp)
        env["DBUS_SYSTEM_BUS_ADDRESS"] = address
        extra = ["--dbus"]
    argv = [PEER] if peer else [daemon, "--socket", sock, "--log-level", "warning"] + extra
    runner = subprocess.Popen(["umockdev-run", "-d", f"{tmp}/accel.umockdev", "--"] + argv,
                              env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL if peer else None)
    try:
        if peer:
            time.sleep(1)  # the peer makes no socket file; its name on the bus is not awaited here
        else:
            for _ in range(500):
                if os.path.exists(sock): break
                time.sleep(0.01)
        time.sleep(WARMUP)
        pid = int(open(f"/proc/{runner.pid}/task/{runner.pid}/children").read().split()[0])
        s0, c0 = counters(pid)
        time.sleep(seconds)
        s1, c1 = counters(pid)
        _, threads = resident_and_threads(pid)
        switched, ended = switches_between(s0, s1)
        return switched, ended, (c1 - c0) * 1000, memory(pid), threads
    finally:
        os.killpg(runner.pid, 15); runner.wait()
        if bus: bus.terminate(); bus.wait()

def measure_topics(tmp, seconds=20):
    """Issue 17: one socket client subscribed to light and proximity only (the accelerometer
    stays closed): the daemon should wake at the sensors' own rates (light every 0.8 s,
    proximity every 0.7 s, each wake-up one read) and not otherwise."""
    with open(f"{tmp}/accel.umockdev", "w") as f: f.write(DESCRIPTION + AUXILIARY)
    sock = f"{tmp}/topics.sock"
    runner = subprocess.Popen(["umockdev-run", "-d", f"{tmp}/accel.umockdev", "--", daemon, "--socket", sock,
                               "--log-level", "warning"], env={"PATH": "/usr/bin:/bin"}, start_new_session=True)
    try:
        for _ in range(500):
            if os.path.exists(sock): break
            time.sleep(0.01)
        client = socket.socket(socket.AF_UNIX)
        client.connect(sock)
        client.sendall(b'{"op":"subscribe","topics":["light","proximity"]}\n')
        time.sleep(WARMUP)
        pid = int(open(f"/proc/{runner.pid}/task/{runner.pid}/children").read().split()[0])
        s0, c0 = counters(pid)
        time.sleep(seconds)
        s1, c1 = counters(pid)
        rss, threads = resident_and_threads(pid)
        switched, ended = switches_between(s0, s1)
        client.close()
        return switched / seconds, (c1 - c0) * 1000 / seconds, rss, threads
    finally:
        os.killpg(runner.pid, 15); runner.wait()

def main():
    global daemon
    args = [a for a in sys.argv[1:] if a != "--idle"]
    daemon = args[0] if args else daemon
    if "--topics" in sys.argv[1:]:
        args = [a for a in args if a != "--topics"]
        daemon = args[0] if args else daemon
        with tempfile.TemporaryDirectory() as tmp:
            wakeups, cpu, rss, threads = measure_topics(tmp)
        print(f"orientationd ({daemon}), one client subscribed to light and proximity, 20 s measured")
        print("| wake-ups/s (context switches, all threads) | CPU ms/s | resident memory | threads |")
        print("|---:|---:|---:|---:|")
        print(f"| {wakeups:.1f} | {cpu:.1f} | {rss:.1f} MiB | {threads} |")
        return
    if "--idle" in sys.argv[1:]:
        print(f"orientationd ({daemon}), a umockdev accelerometer, light and proximity sensor present, no subscriber, 20 s measured")
        print(f"| daemon | wake-ups in 20 s (context switches, all threads) | threads that ended meanwhile | CPU ms in 20 s | {MEMORY_HEADER} | threads |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        runs = [("orientationd, socket only", False, False), ("orientationd --dbus (private system bus)", True, False)]
        if os.access(PEER, os.X_OK):
            runs.append(("iio-sensor-proxy (Debian's, same bus and sensors)", True, True))
        for name, dbus, peer in runs:
            with tempfile.TemporaryDirectory() as tmp:
                wakeups, ended, cpu, mem, threads = measure_idle(tmp, dbus=dbus, peer=peer)
                print(f"| {name} | {wakeups} | {ended} | {cpu:.0f} | {memory_columns(mem)} | {threads} |")
        if not os.access(PEER, os.X_OK):
            print(f"({PEER} is not installed: make setup brings Debian's iio-sensor-proxy to measure beside)")
        return

    with tempfile.TemporaryDirectory() as tmp:
        print(f"orientationd ({daemon}), one subscriber, accelerometer at {RATE} Hz, {SECONDS} s measured")
        print("| batch | wake-ups/s (context switches, all threads) | CPU ms/s | resident memory | threads |")
        print("|---:|---:|---:|---:|---:|")
        for batch in (1, 5, 10, 25):
            wakeups, cpu, rss, threads = measure(batch, tmp)
            print(f"| {batch} | {wakeups:.0f} | {cpu:.1f} | {rss:.1f} MiB | {threads} |")

if __name__ == "__main__":
    main()
