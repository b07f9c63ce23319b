#!/usr/bin/python3
"""Wake-ups and CPU time per second of orientationd with one subscriber and a 100 Hz
accelerometer, for several buffer batch sizes (`[sensor] batch`).

The sensor is a umockdev fixture (accel_3d, le:s16/32>>0 plus a timestamp) whose
/dev/iio:device0 is a PTY fed by a umockdev script at 100 samples/s. Counts come from
/proc: context switches summed over every thread of the daemon, and utime+stime.
Usage: Benchmarks/iio-wakeups.py [path/to/orientationd]   (make bench-iio)
       Benchmarks/iio-wakeups.py --idle [path/to/orientationd]   (make bench-idle: the sensor
       present, nobody subscribed, 20 s: wake-ups, threads and resident memory)
"""
import os, socket, struct, subprocess, sys, tempfile, time

args = [a for a in sys.argv[1:] if a != "--idle"]
idle = "--idle" in sys.argv[1:]
daemon = args[0] if args else ".build/release/orientationd"
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

def script_line(delay_ms, data):
    out = bytearray(f"r {delay_ms} ".encode())
    for b in data:
        if b < 32: out += bytes([ord("^"), b + 64])
        elif b == ord("^"): out += b"^`"
        else: out.append(b)
    return bytes(out) + b"\n"

def counters(pid):
    switches = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/status") as f:
            for line in f:
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    switches += int(line.split()[1])
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return switches, cpu

def measure(batch, tmp):
    with open(f"{tmp}/accel.umockdev", "w") as f: f.write(DESCRIPTION)
    with open(f"{tmp}/feed.script", "wb") as f:
        for k in range(RATE * (SECONDS + WARMUP + 3)):
            f.write(script_line(1000 // RATE, struct.pack("<iiiiq", 0, -100, 0, 0, k * 10_000_000)))
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
        client.close()
        return (s1 - s0) / (t1 - t0), (c1 - c0) / (t1 - t0) * 1000
    finally:
        os.killpg(runner.pid, 15); runner.wait()

def resident_and_threads(pid):
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))
    return rss / 1024, len(os.listdir(f"/proc/{pid}/task"))

def measure_idle(tmp, seconds=20):
    """The daemon with a sensor present and nobody subscribed: it should sleep."""
    with open(f"{tmp}/accel.umockdev", "w") as f: f.write(DESCRIPTION)
    sock = f"{tmp}/idle.sock"
    runner = subprocess.Popen(["umockdev-run", "-d", f"{tmp}/accel.umockdev",
                               "--", daemon, "--socket", sock, "--log-level", "warning"],
                              env={"PATH": "/usr/bin:/bin"}, start_new_session=True)
    try:
        for _ in range(500):
            if os.path.exists(sock): break
            time.sleep(0.01)
        time.sleep(WARMUP)
        pid = int(open(f"/proc/{runner.pid}/task/{runner.pid}/children").read().split()[0])
        s0, c0 = counters(pid)
        time.sleep(seconds)
        s1, c1 = counters(pid)
        rss, threads = resident_and_threads(pid)
        return s1 - s0, (c1 - c0) * 1000, rss, threads
    finally:
        os.killpg(runner.pid, 15); runner.wait()

if idle:
    with tempfile.TemporaryDirectory() as tmp:
        wakeups, cpu, rss, threads = measure_idle(tmp)
        print(f"orientationd ({daemon}), a umockdev accelerometer present, no subscriber, 20 s measured")
        print("| wake-ups in 20 s (context switches, all threads) | CPU ms in 20 s | resident memory | threads |")
        print("|---:|---:|---:|---:|")
        print(f"| {wakeups} | {cpu:.0f} | {rss:.1f} MiB | {threads} |")
    sys.exit(0)

with tempfile.TemporaryDirectory() as tmp:
    print(f"orientationd ({daemon}), one subscriber, accelerometer at {RATE} Hz, {SECONDS} s measured")
    print("| batch | wake-ups/s (context switches, all threads) | CPU ms/s |")
    print("|---:|---:|---:|")
    for batch in (1, 5, 10, 25):
        wakeups, cpu = measure(batch, tmp)
        print(f"| {batch} | {wakeups:.0f} | {cpu:.1f} |")
