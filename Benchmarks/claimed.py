#!/usr/bin/python3
"""Issue 28: what a daemon costs while a desktop holds its claim, orientationd beside Debian's
iio-sensor-proxy, on the same umockdev fixtures and a private system-like bus.

    Benchmarks/claimed.py [--seconds 20] [--turns 8] [--report FILE] [--peer PATH]
                          [--fixture polled|buffered ...] path/to/orientationd      (make bench-claimed)

For each fixture and daemon (orientationd as `orientationd --dbus --socket T/d.sock --log-level
warning`, the peer as it is), one D-Bus client claims the accelerometer (and, in one more run on
the polled fixture, the light sensor too), then:
  1. still: the device lies in portrait for --seconds (after a warm-up): wake-ups/s (context
     switches, voluntary + nonvoluntary, summed over every thread, and per thread by the name in
     /proc/PID/task/TID/comm), CPU ms/s (utime + stime), memory as the kernel counts it (RSS, PSS,
     private USS and anonymous, from /proc/PID/smaps_rollup: process_memory.py), thread count;
  2. turns: --turns gestures, each after 3.5 s still plus a spread (k × 0.618 s modulo 1 s, so
     the turns end at different phases of any sampling period): gravity rotated portrait <-> landscape
     (right edge up) in 12 steps over 0.6 s. For each, the delay from the turn's end (the last
     step written) to the client's PropertiesChanged carrying the new AccelerometerOrientation
     (negative: published before the turn ended); a turn is unpublished if nothing came before
     the next one started.

Fixtures (umockdev testbeds made in the measuring process through gi's UMockdev, so the
benchmark writes the sensor itself and knows when each step happened):
  polled:   accel_3d without a buffer, sampling_frequency 10, IIO_SENSOR_PROXY_TYPE=iio-poll-accel;
            the steps are written into the testbed's in_accel_{x,y,z}_raw files.
  buffered: accel_3d at 100 Hz with a timestamp channel, a trigger (iio-sensor-proxy 3.0 needs one
            for its buffer driver), IIO_SENSOR_PROXY_TYPE=iio-buffer-accel; /dev/iio:device0 is the
            testbed's PTY, fed live by a thread here at the rate its sampling_frequency says (100
            scans/s unless a daemon lowers it, as a sensor would), the steps carried by the scans.
  Both have a vcnl4000-like light and proximity sensor (IIO_SENSOR_PROXY_TYPE as the peer's udev
  rule 80-iio-sensor-proxy.rules would set it).

Nothing here assumes a daemon's sample rate: wake-ups, CPU and delays are what /proc and the
client see. Every measurement runs in a child process of its own (`measure`, JSON on stdout),
because umockdev's state is per process (and a /dev name cannot be added twice in one); that
child ends its own children (bus, daemon, client) and removes its directories however it ends,
short of SIGKILL (a testbed's finaliser trap: docs/TESTING.md, "A Python testbed").

/usr/bin/python3 on purpose: Debian's, with python3-dbus, python3-gi and gir1.2-umockdev-1.0.
Internal subcommands: `measure ...` (one run; with --breakdown it also prints, on stderr, where the
measured daemon's memory is by mapping: Benchmarks/rss-breakdown.py's first table) and
`client --address A [--light]` (the claimer).
"""
import argparse, gc, importlib.util, json, math, os, re, shutil, signal, statistics, struct, subprocess, sys, tempfile, threading, time, traceback
from process_memory import memory, columns as memory_columns, HEADER as MEMORY_HEADER

HERE = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.dirname(HERE)
NAME, PATH, IFACE = "net.hadess.SensorProxy", "/net/hadess/SensorProxy", "net.hadess.SensorProxy"
PEER = "/usr/sbin/iio-sensor-proxy"
PEER_POLICY = "/etc/dbus-1/system.d/net.hadess.SensorProxy.conf"
OUR_POLICY = os.path.join(REPOSITORY, "config", "net.hadess.SensorProxy.conf")
PRELOAD = "libumockdev-preload.so.0"

WARMUP = 5.0          # after the first orientation, before the still window (lets a rate governor settle)
STILL_BEFORE_TURN = 3.5   # seconds still before each turn, plus a spread of up to 1 s (PHI)
PHI = (math.sqrt(5) - 1) / 2
TURN_SECONDS, TURN_STEPS = 0.6, 12
RAW_G = 100           # raw units of 1 g (scale 0.0980665 m/s² per unit)
RATE = 100            # the buffered fixture's scans per second
PORTRAIT, LANDSCAPE = "normal", "right-up"   # gravity along -y, then along -x (right edge up)

SYSPATH = "/sys/devices/platform/fake-accel/iio:device0"

def accel_description(buffered):
    lines = ["P: /devices/platform/fake-accel/iio:device0"]
    if buffered:
        lines.append("N: iio:device0")
    lines += ["E: DEVNAME=/dev/iio:device0", "E: DEVTYPE=iio_device", "E: SUBSYSTEM=iio", "E: MAJOR=243", "E: MINOR=0",
              f"E: IIO_SENSOR_PROXY_TYPE={'iio-buffer-accel' if buffered else 'iio-poll-accel'}",
              "A: dev=243:0\\n", "A: name=accel_3d\\n", f"A: sampling_frequency={RATE if buffered else 10}\\n",
              "A: in_accel_x_raw=0\\n", f"A: in_accel_y_raw={-RAW_G}\\n", "A: in_accel_z_raw=0\\n",
              "A: in_accel_scale=0.0980665\\n"]
    if buffered:
        lines += [f"A: scan_elements/in_accel_{a}_{k}={v}\\n" for i, a in enumerate("xyz")
                  for k, v in (("en", 0), ("index", i), ("type", "le:s16/32>>0"))]
        lines += ["A: scan_elements/in_timestamp_en=0\\n", "A: scan_elements/in_timestamp_index=3\\n",
                  "A: scan_elements/in_timestamp_type=le:s64/64>>0\\n", "A: buffer/enable=0\\n", "A: buffer/length=0\\n",
                  # iio-sensor-proxy 3.0's buffer driver needs a trigger named <name>-dev<N>; without
                  # one it polls the raw attributes instead.
                  "A: trigger/current_trigger=\\n"]
    text = "\n".join(lines) + "\n\n"
    if buffered:
        text += "P: /devices/platform/fake-accel/trigger0\nE: SUBSYSTEM=iio\nA: name=accel_3d-dev0\\n\n\n"
    return text

# Issue 30, `measure --posture`: the base of a convertible, polled, lying flat (laptop with the
# display upright: hinge about 90°), udev's location for it as systemd's hwdb would set it.
BASE = "\n".join([
    "P: /devices/platform/fake-base/iio:device2", "E: DEVTYPE=iio_device", "E: SUBSYSTEM=iio", "E: ACCEL_LOCATION=base",
    "A: name=bmc150_accel\\n", "A: sampling_frequency=10\\n", "A: in_accel_x_raw=0\\n", "A: in_accel_y_raw=0\\n",
    f"A: in_accel_z_raw={RAW_G}\\n", "A: in_accel_scale=0.0980665\\n",
]) + "\n\n"

# Issue 37, `measure --posture --hinge`: a Chromebook-like convertible, whose hinge angle is
# cros-ec's lid angle (an EC host command per read) instead of a base accelerometer; 90°: a laptop.
HINGE = "\n".join([
    "P: /devices/platform/cros-ec-lid-angle/iio:device2", "E: DEVTYPE=iio_device", "E: SUBSYSTEM=iio",
    "A: name=cros-ec-lid-angle\\n", "A: in_angl_raw=90\\n",
]) + "\n\n"


class PostureSubscriber(threading.Thread):
    """A socket client subscribed to the `posture` topic, keeping the posture lines it reads."""
    def __init__(self, path):
        super().__init__(daemon=True)
        import socket
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        deadline = time.monotonic() + 15
        while True:
            try:
                self.sock.connect(path)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.sock.sendall(b'{"op":"subscribe","topics":["posture"]}\n')
        self.postures = []

    def run(self):
        buffer = b""
        while True:
            data = self.sock.recv(4096)
            if not data:
                return
            buffer += data
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                message = json.loads(line)
                if message.get("type") == "posture":
                    self.postures.append(message.get("posture"))

# As in Benchmarks/iio-wakeups.py (AUXILIARY), with the type the peer's udev rule gives it.
AUXILIARY = "\n".join([
    "P: /devices/platform/fake-vcnl4000/iio:device1", "E: DEVTYPE=iio_device", "E: SUBSYSTEM=iio",
    "E: IIO_SENSOR_PROXY_TYPE=iio-poll-als iio-poll-proximity",
    "A: name=vcnl4000\\n", "A: in_illuminance_raw=400\\n", "A: in_illuminance_scale=0.25\\n",
    "A: in_proximity_raw=10\\n", "A: in_proximity_nearlevel=1000\\n",
]) + "\n\n"


def fail(message):
    print(f"claimed.py: {message}", file=sys.stderr)
    sys.exit(2)


def raw_pose(degrees):
    """Gravity rotated from portrait (0°: along -y) to landscape, right edge up (90°: along -x)."""
    r = math.radians(degrees)
    return (round(-RAW_G * math.sin(r)), round(-RAW_G * math.cos(r)), 0)


def turn_angle(elapsed, start_angle, end_angle):
    """The angle `elapsed` seconds after a turn began: step i of 12 lands at i × 0.05 s."""
    step = min(TURN_STEPS, max(0, math.floor(elapsed / (TURN_SECONDS / TURN_STEPS) + 1e-9)))
    return start_angle + (end_angle - start_angle) * step / TURN_STEPS


# MARK: - /proc

def thread_counters(pid):
    """{tid: (comm, context switches)} and the process's CPU seconds."""
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                switches = sum(int(line.split()[1]) for line in f
                               if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")))
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                threads[tid] = (f.read().strip(), switches)
        except (FileNotFoundError, ProcessLookupError):
            pass  # the thread ended while we listed
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return threads, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def per_thread(before, after):
    """Switches per thread name in the window: threads alive at both ends, plus every switch of
    threads born in it (as Benchmarks/iio-wakeups.py counts); threads that ended meanwhile took
    their counters with them and are counted apart."""
    names = {}
    for tid, (comm, count) in after.items():
        name = names.setdefault(comm, [0, 0])
        name[0] += count - before.get(tid, (comm, 0))[1]
        name[1] += 1
    return names, sum(1 for tid in before if tid not in after)


def resident_and_threads(pid):
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))
    return rss / 1024, len(os.listdir(f"/proc/{pid}/task"))


# MARK: - One measurement (its own process)

class Children:
    """Every process this measurement started, each in its own process group, ended on exit."""

    def __init__(self):
        self.processes = []

    def start(self, argv, **kwargs):
        process = subprocess.Popen(argv, start_new_session=True, **kwargs)
        self.processes.append(process)
        return process

    def stop_all(self):
        for process in reversed(self.processes):
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
        self.processes = []


def private_bus(children, tmp, policy):
    """A dbus-daemon configured like Debian's system bus with only `policy` (as
    Benchmarks/iio-wakeups.py's private_bus)."""
    config = open("/usr/share/dbus-1/system.conf").read()
    for pattern in ("<user>messagebus</user>", "<standard_system_servicedirs/>", "<includedir>system.d</includedir>",
                    "<includedir>/etc/dbus-1/system.d</includedir>", "<syslog/>", "<fork/>"):
        config = config.replace(pattern, "")
    config = re.sub(r"<include ignore_missing=\"yes\">[^<]*</include>", "", config)
    config = re.sub(r"<pidfile>[^<]*</pidfile>", "", config)
    config = re.sub(r"<servicehelper>[^<]*</servicehelper>", "", config)
    config = re.sub(r"<listen>[^<]*</listen>", f"<listen>unix:path={tmp}/bus</listen>", config)
    config = config.replace("</busconfig>", f"<include>{policy}</include>\n</busconfig>")
    with open(f"{tmp}/bus.conf", "w") as f:
        f.write(config)
    bus = children.start(["dbus-daemon", f"--config-file={tmp}/bus.conf", "--nofork", "--nopidfile"],
                         stdout=subprocess.DEVNULL, stderr=open(f"{tmp}/bus.err", "w"))
    deadline = time.monotonic() + 10
    while not os.path.exists(f"{tmp}/bus"):
        if bus.poll() is not None or time.monotonic() > deadline:
            fail(f"the private dbus-daemon did not start: {open(f'{tmp}/bus.err').read()[-2000:]}")
        time.sleep(0.01)
    return f"unix:path={tmp}/bus"


class ClientLines:
    """The claiming client's JSON lines, read by a thread, stamped by the client itself."""

    def __init__(self, process):
        self.process, self.lines, self.lock = process, [], threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            with self.lock:
                self.lines.append(json.loads(line))
                self.lock.notify_all()
        with self.lock:
            self.lines.append({"event": "eof"})
            self.lock.notify_all()

    def wait_for(self, predicate, timeout):
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                found = next((l for l in self.lines if predicate(l)), None)
                if found or time.monotonic() >= deadline:
                    return found
                self.lock.wait(deadline - time.monotonic())

    def snapshot(self):
        with self.lock:
            return list(self.lines)


class BufferFeeder(threading.Thread):
    """Writes scans to the testbed's PTY master at the rate the fixture's `sampling_frequency`
    says (as the sensor would: a daemon that slows it while still gets fewer scans, issue 37;
    RATE until it is readable), at the angle the turn schedule gives for the scan's time;
    remembers when the first scan of each turn's last step went out."""

    def __init__(self, fd, frequency_path=None):
        super().__init__(daemon=True)
        self.fd, self.lock, self.stopping = fd, threading.Lock(), False
        self.frequency_path = frequency_path
        self.rates = {}           # sampling_frequency seen -> scans written at it
        self.turn = None          # (start, from_angle, to_angle)
        self.angle = 0.0
        self.turn_end = None      # time the last step's first scan was written
        self.dropped = 0
        os.set_blocking(fd, False)

    def run(self):
        next_tick = time.monotonic()
        while not self.stopping:
            now = time.monotonic()
            with self.lock:
                if self.turn:
                    start, a, b = self.turn
                    angle = turn_angle(now - start, a, b)
                    if angle == b and self.turn_end is None:
                        self.turn_end = now
                    self.angle = angle
                angle = self.angle
            x, y, z = raw_pose(angle)
            try:
                os.write(self.fd, struct.pack("<iiiiq", x, y, z, 0, time.monotonic_ns()))
            except BlockingIOError:
                self.dropped += 1  # nobody reads yet (no claim): a full kernel FIFO drops too
            rate = self.rate()
            self.rates[rate] = self.rates.get(rate, 0) + 1
            next_tick += 1 / rate
            time.sleep(max(0.0, next_tick - time.monotonic()))

    def rate(self):
        try:
            # libiio writes the attribute with a NUL after the text (a real sysfs file keeps
            # only the number; umockdev's keeps what was written).
            with open(self.frequency_path) as f:
                value = float(f.read().replace("\0", "").strip())
            return value if 0.1 <= value <= 10000 else RATE
        except (OSError, TypeError, ValueError):
            return RATE

    def begin_turn(self, start, a, b):
        with self.lock:
            self.turn, self.turn_end = (start, a, b), None

    def wait_turn_end(self):
        while True:
            with self.lock:
                if self.turn_end is not None:
                    return self.turn_end
            time.sleep(0.005)


# Testbed directories made by measure(). umockdev removes one when its testbed is finalised (and
# aborts the process if it is gone by then); main() removes whatever is left after that.
TESTBED_ROOTS = []


def measure(args):
    import gi
    gi.require_version("UMockdev", "1.0")
    from gi.repository import UMockdev

    buffered = args.fixture == "buffered"
    children = Children()
    tmp = tempfile.mkdtemp(prefix="bench-claimed-")
    testbed, feeder = None, None
    # SIGTERM/SIGHUP from the parent end this process through the finally below.
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, lambda *_: sys.exit(143))
    try:
        testbed = UMockdev.Testbed.new()
        root = testbed.get_root_dir()
        TESTBED_ROOTS.append(root)
        testbed.add_from_string(accel_description(buffered) + AUXILIARY + ((HINGE if args.hinge else BASE) if args.posture else ""))
        if buffered:
            fd = testbed.get_dev_fd("/dev/iio:device0")
            if fd < 0:
                fail("umockdev gave no PTY for /dev/iio:device0")
            feeder = BufferFeeder(fd, f"{root}{SYSPATH}/sampling_frequency")
            feeder.start()

        def set_angle(angle):
            for axis, value in zip("xyz", raw_pose(angle)):
                # g_file_set_contents: a new file renamed into place, so no reader sees it half written.
                testbed.set_attribute(SYSPATH, f"in_accel_{axis}_raw", f"{value}\n")

        ours = args.daemon == "orientationd"
        address = private_bus(children, tmp, OUR_POLICY if ours else PEER_POLICY)
        env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "DBUS_SYSTEM_BUS_ADDRESS": address,
               "LD_PRELOAD": PRELOAD, "UMOCKDEV_DIR": root}
        argv = ([args.orientationd, "--dbus", "--socket", f"{tmp}/d.sock", "--log-level", "warning"] if ours else [args.peer])
        errors = f"{tmp}/daemon.err"
        daemon = children.start(argv, env=env, stdout=subprocess.DEVNULL, stderr=open(errors, "w"))

        def daemon_log():
            return open(errors, errors="replace").read()[-3000:]

        client_argv = [sys.executable, os.path.abspath(__file__), "client", "--address", address]
        if args.light:
            client_argv.append("--light")
        client = children.start(client_argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        lines = ClientLines(client)
        claimed = lines.wait_for(lambda l: l["event"] in ("claimed", "error", "eof"), 30)
        if not claimed or claimed["event"] != "claimed":
            if daemon.poll() is not None:
                fail(f"{args.daemon} exited with status {daemon.returncode} before the claim: {daemon_log()}")
            fail(f"{args.daemon}: the client could not claim ({claimed}); daemon: {daemon_log()}")
        if daemon.poll() is not None:
            fail(f"{args.daemon} exited ({daemon.returncode}): {daemon_log()}")
        first = lines.wait_for(lambda l: l.get("orientation") == PORTRAIT, 15)
        if not first:
            fail(f"{args.daemon}: no '{PORTRAIT}' within 15 s of the claim; client saw {lines.snapshot()}; daemon: {daemon_log()}")
        subscriber = None
        if args.posture:
            subscriber = PostureSubscriber(f"{tmp}/d.sock")
            subscriber.start()
        time.sleep(WARMUP)
        if subscriber and "laptop" not in subscriber.postures:
            fail(f"no laptop posture within the warm-up: {subscriber.postures}; daemon: {daemon_log()}")

        pid = daemon.pid
        dropped_before = feeder.dropped if feeder else 0
        t0 = time.monotonic()
        before, cpu0 = thread_counters(pid)
        time.sleep(args.seconds)
        after, cpu1 = thread_counters(pid)
        elapsed = time.monotonic() - t0
        rss, threads = resident_and_threads(pid)
        kernel_memory = memory(pid)
        if args.breakdown:  # where that memory is, by mapping (stderr; rss-breakdown.py's first table)
            spec = importlib.util.spec_from_file_location("rss_breakdown", os.path.join(HERE, "rss-breakdown.py"))
            rss_breakdown = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(rss_breakdown)
            rss_breakdown.breakdown(pid, os.path.realpath(f"/proc/{pid}/exe"), mappings_only=True, out=sys.stderr)
        names, ended = per_thread(before, after)
        result = {
            "daemon": args.daemon, "fixture": args.fixture, "light": args.light, "posture": args.posture, "hinge": args.hinge,
            "seconds": elapsed,
            "wakeups": sum(n for n, _ in names.values()) / elapsed, "cpu_ms": (cpu1 - cpu0) * 1000 / elapsed,
            "rss": rss, "memory": kernel_memory, "threads": threads, "ended": ended,
            "per_thread": {name: {"wakeups": n / elapsed, "threads": count} for name, (n, count) in names.items()},
        }

        turns = []
        angle = 0.0
        for k in range(args.turns):
            target_angle = 90.0 - angle
            target = LANDSCAPE if target_angle == 90.0 else PORTRAIT
            # Still since the last step at least this long, plus a spread: with a fixed cycle every
            # turn would end at the same phase of a daemon's sampling period (a 10 Hz poller's
            # delays then differ by 2 ms from turn to turn), and the median would be that phase's
            # luck. Golden-ratio fractions of a second spread the ends over any period.
            time.sleep(STILL_BEFORE_TURN + (k * PHI) % 1.0)
            start = time.monotonic()
            if feeder:
                feeder.begin_turn(start, angle, target_angle)
                end = feeder.wait_turn_end()
            else:
                for step in range(1, TURN_STEPS + 1):
                    time.sleep(max(0.0, start + step * TURN_SECONDS / TURN_STEPS - time.monotonic()))
                    set_angle(turn_angle(step * TURN_SECONDS / TURN_STEPS, angle, target_angle))
                end = time.monotonic()
            turns.append({"start": start, "end": end, "target": target})
            angle = target_angle
        time.sleep(STILL_BEFORE_TURN)
        seen = [l for l in lines.snapshot() if l["event"] == "orientation"]
        for k, turn in enumerate(turns):
            limit = turns[k + 1]["start"] if k + 1 < len(turns) else math.inf
            hit = next((l for l in seen if turn["start"] <= l["t"] < limit and l["orientation"] == turn["target"]), None)
            turn["delay_ms"] = (hit["t"] - turn["end"]) * 1000 if hit else None
            turn["others"] = [l["orientation"] for l in seen if turn["start"] <= l["t"] < limit and l["orientation"] != turn["target"]]
        result["turns"] = [{"target": t["target"], "delay_ms": t["delay_ms"], "others": t["others"]} for t in turns]
        if feeder:
            # Scans written while the daemon read nothing before the claim fill the PTY and are
            # dropped; any dropped from the still window on mean the daemon fell behind.
            result["dropped_scans"] = feeder.dropped - dropped_before
            result["scan_rates"] = {f"{rate:g}": count for rate, count in sorted(feeder.rates.items())}
        if daemon.poll() is not None:
            fail(f"{args.daemon} exited during the run ({daemon.returncode}): {daemon_log()}")
        result["daemon_log"] = daemon_log()[-600:]
        print(json.dumps(result), flush=True)
    finally:
        if feeder:
            feeder.stopping = True
        children.stop_all()
        shutil.rmtree(tmp, ignore_errors=True)


# MARK: - The claiming client (its own process)

def client(args):
    import dbus, dbus.mainloop.glib
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)

    def emit(**fields):
        print(json.dumps(fields), flush=True)

    try:
        bus = dbus.bus.BusConnection(args.address)
        proxy = bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus")
        deadline = time.monotonic() + 20
        while True:   # the daemon owns the name and has found the accelerometer
            try:
                if proxy.NameHasOwner(NAME, dbus_interface="org.freedesktop.DBus") and bool(
                        bus.call_blocking(NAME, PATH, "org.freedesktop.DBus.Properties", "Get", "ss", (IFACE, "HasAccelerometer"))):
                    break
            except dbus.exceptions.DBusException:
                pass
            if time.monotonic() > deadline:
                emit(event="error", message="no net.hadess.SensorProxy with HasAccelerometer within 20 s")
                return
            time.sleep(0.05)

        def changed(interface, props, invalidated):
            if "AccelerometerOrientation" in props:
                emit(event="orientation", t=time.monotonic(), orientation=str(props["AccelerometerOrientation"]))

        bus.add_signal_receiver(changed, "PropertiesChanged", "org.freedesktop.DBus.Properties", NAME, PATH)
        bus.call_blocking(NAME, PATH, IFACE, "ClaimAccelerometer", "", (), timeout=30)
        if args.light:
            bus.call_blocking(NAME, PATH, IFACE, "ClaimLight", "", (), timeout=30)
        value = str(bus.call_blocking(NAME, PATH, "org.freedesktop.DBus.Properties", "Get", "ss", (IFACE, "AccelerometerOrientation")))
        emit(event="claimed", t=time.monotonic())
        emit(event="orientation", t=time.monotonic(), orientation=value, read=True)
    except dbus.exceptions.DBusException as e:
        emit(event="error", message=str(e))
        return
    loop = GLib.MainLoop()
    GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_HUP | GLib.IO_IN, lambda *_: loop.quit())   # the parent went away
    loop.run()


# MARK: - The report

def run_one(script_args, daemon, fixture, light):
    argv = [sys.executable, os.path.abspath(__file__), "measure", "--daemon", daemon, "--fixture", fixture,
            "--orientationd", script_args.orientationd, "--peer", script_args.peer,
            "--seconds", str(script_args.seconds), "--turns", str(script_args.turns)] + (["--light"] if light else [])
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, _ = process.communicate()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait()
    if process.returncode != 0:
        return {"daemon": daemon, "fixture": fixture, "light": light, "error": f"exit status {process.returncode} (see above)"}
    return json.loads(out.strip().splitlines()[-1])


def label(r):
    name = "orientationd" if r["daemon"] == "orientationd" else "iio-sensor-proxy"
    return name + (" + ClaimLight" if r["light"] else "")


def table(results):
    out = [f"| daemon | wake-ups/s still | CPU ms/s | {MEMORY_HEADER} | threads | turns published | median delay after turn end | delays (ms) |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in results:
        if "error" in r:
            out.append(f"| {label(r)} | failed: {r['error']} | | | | | | | | | |")
            continue
        delays = [t["delay_ms"] for t in r["turns"]]
        published = [d for d in delays if d is not None]
        median = f"{statistics.median(published):.0f} ms" if published else "–"
        shown = ", ".join("never" if d is None else f"{d:+.0f}" for d in delays) or "–"
        out.append(f"| {label(r)} | {r['wakeups']:.1f} | {r['cpu_ms']:.1f} | {memory_columns(r['memory'])} | {r['threads']} | "
                   f"{len(published)}/{len(delays)} | {median} | {shown} |")
    return out


def thread_table(results):
    out = ["| daemon | thread (comm) × count: wake-ups/s still |", "|---|---|"]
    for r in results:
        if "error" in r:
            continue
        parts = sorted(r["per_thread"].items(), key=lambda kv: -kv[1]["wakeups"])
        shown = "; ".join(f"`{name}`{' × ' + str(v['threads']) if v['threads'] > 1 else ''}: {v['wakeups']:.1f}" for name, v in parts)
        if r["ended"]:
            shown += f" ({r['ended']} thread(s) ended in the window, not counted)"
        out.append(f"| {label(r)} | {shown} |")
    return out


def notes(results):
    out = []
    for r in results:
        if "error" in r:
            continue
        others = [o for t in r["turns"] for o in t["others"]]
        if others:
            out.append(f"- {label(r)}: other orientations published during the turns: {', '.join(others)}")
        log = [line.strip() for line in r.get("daemon_log", "").splitlines() if line.strip()]
        if log:
            out.append(f"- {label(r)} wrote to stderr (last lines): " + " / ".join(f"`{line[:160]}`" for line in log[-2:]))
        if r.get("scan_rates"):
            out.append(f"- {label(r)}: scans written at each sampling_frequency the daemon set (Hz: scans): "
                       + ", ".join(f"{rate}: {count}" for rate, count in r["scan_rates"].items()))
        if r.get("dropped_scans"):
            out.append(f"- {label(r)}: {r['dropped_scans']} scans dropped by the feeder (PTY full: the daemon fell behind)")
    return out


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "client":
        parser = argparse.ArgumentParser(prog="claimed.py client")
        parser.add_argument("client")
        parser.add_argument("--address", required=True)
        parser.add_argument("--light", action="store_true")
        client(parser.parse_args())
        return
    if len(sys.argv) > 1 and sys.argv[1] == "measure":
        parser = argparse.ArgumentParser(prog="claimed.py measure")
        parser.add_argument("measure")
        parser.add_argument("--daemon", choices=["orientationd", "iio-sensor-proxy"], required=True)
        parser.add_argument("--fixture", choices=["polled", "buffered"], required=True)
        parser.add_argument("--orientationd", required=True)
        parser.add_argument("--peer", default=PEER)
        parser.add_argument("--seconds", type=float, default=20)
        parser.add_argument("--turns", type=int, default=8)
        parser.add_argument("--light", action="store_true")
        parser.add_argument("--posture", action="store_true",
                            help="orientationd only: add a convertible's base accelerometer and a socket subscriber of the posture topic")
        parser.add_argument("--hinge", action="store_true",
                            help="with --posture: cros-ec's lid angle instead of the base accelerometer")
        parser.add_argument("--breakdown", action="store_true",
                            help="also print where the memory is, by mapping (stacks, arenas, binary, libraries), on stderr")
        parsed = parser.parse_args()
        code = 0
        try:
            measure(parsed)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except BaseException:
            traceback.print_exc()
            code = 1
        gc.collect()   # measure()'s frame is gone: its testbed is finalised, which removes its directory
        for root in TESTBED_ROOTS:
            shutil.rmtree(root, ignore_errors=True)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)

    parser = argparse.ArgumentParser(description="orientationd and iio-sensor-proxy while a client holds a claim (issue 28)")
    parser.add_argument("orientationd", nargs="?", default=".build/release/orientationd")
    parser.add_argument("--peer", default=PEER)
    parser.add_argument("--seconds", type=float, default=20, help="the still window (default 20)")
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--fixture", action="append", choices=["polled", "buffered"], help="default: both")
    parser.add_argument("--report", help="also write the Markdown report here")
    args = parser.parse_args()
    args.orientationd = os.path.abspath(args.orientationd)
    # Ended by a signal, this process still ends its measuring child (run_one's finally), which
    # ends its own children and removes its directories.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: sys.exit(143))

    missing = [tool for tool in ("dbus-daemon",) if not shutil.which(tool)]
    if not os.access(args.orientationd, os.X_OK):
        missing.append(f"{args.orientationd} (build it: make release)")
    if not os.access(args.peer, os.X_OK):
        missing.append(f"{args.peer} (Debian's iio-sensor-proxy: make setup)")
    for module, package in (("dbus", "python3-dbus"), ("gi", "python3-gi")):
        try:
            __import__(module)
        except ImportError:
            missing.append(f"{package} for {sys.executable}")
    try:
        import gi
        gi.require_version("UMockdev", "1.0")
        from gi.repository import UMockdev  # noqa: F401
    except (ImportError, ValueError):
        missing.append("gir1.2-umockdev-1.0 (umockdev's GObject bindings)")
    if not any(os.path.exists(os.path.join(d, PRELOAD)) for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib", "/lib")) \
            and subprocess.run(["sh", "-c", f"ldconfig -p | grep -q {PRELOAD}"]).returncode != 0:
        missing.append(f"{PRELOAD} (package libumockdev0)")
    if not os.path.exists(PEER_POLICY):
        missing.append(f"{PEER_POLICY} (iio-sensor-proxy's D-Bus policy)")
    if missing:
        fail("missing: " + "; ".join(missing))

    fixtures = args.fixture or ["polled", "buffered"]
    report = [f"# While claimed (`Benchmarks/claimed.py`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})", "",
              f"orientationd: `{args.orientationd}`; peer: `{args.peer}`; still window {args.seconds:g} s after "
              f"{WARMUP:g} s of warm-up; {args.turns} turns of {TURN_SECONDS} s in {TURN_STEPS} steps, "
              f"each after {STILL_BEFORE_TURN}–{STILL_BEFORE_TURN + 1:g} s still. Wake-ups: context switches, all threads. "
              f"Load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs).", ""]
    for fixture in fixtures:
        runs = [("orientationd", False), ("iio-sensor-proxy", False)]
        if fixture == "polled":
            runs += [("orientationd", True), ("iio-sensor-proxy", True)]
        results = []
        for daemon, light in runs:
            print(f"claimed.py: {fixture}, {daemon}{' + ClaimLight' if light else ''}…", file=sys.stderr, flush=True)
            results.append(run_one(args, daemon, fixture, light))
        title = ("Polled: accel_3d without a buffer, sampling_frequency 10, plus light/proximity" if fixture == "polled"
                 else "Buffered: accel_3d at 100 Hz with a timestamp channel and a trigger, fed live on the PTY, plus light/proximity")
        section = [f"## {title}", ""] + table(results) + ["", "Per thread, still:", ""] + thread_table(results)
        extra = notes(results)
        if extra:
            section += [""] + extra
        report += section + [""]
        print("\n".join(section) + "\n", flush=True)
    if args.report:
        with open(args.report, "w") as f:
            f.write("\n".join(report))


if __name__ == "__main__":
    main()
