#!/usr/bin/python3
"""Issue 18's D-Bus and claim loads, as other users, against orientationd --dbus.

    Benchmarks/dbus-load.py bench [--seconds 10] [--report FILE] path/to/orientationd
        Starts a private system-like bus (Debian's system.conf plus config/net.hadess.SensorProxy.conf)
        and `orientationd --dbus --replay <bundled recording> --loop --speed 4`, then runs, as uid 65534 and 33:
          1. claim flood: one connection alternating ClaimAccelerometer/ReleaseAccelerometer, 64 in
             flight, with no other claimer: sensor opens, log lines, CPU;
          2. the same flood while a legitimate client (root) claims over D-Bus and subscribes on the
             socket: PropertiesChanged latency after each socket event;
          3. 512 claimers (two uids, 256 connections each): claims granted/refused, whether the
             daemon kept its bus connection, whether the legitimate claimer still gets changes;
          4. 64 socket connections toggling subscribe/unsubscribe at 20/s: sensor opens, log lines;
        and issue 26's, with Benchmarks/polkit-standin.py as polkit:
          5. polkit never answers uid 65534, which opens 2 × 200 connections that claim and leave;
          6. polkit answers one check per 0.2 s, uids 65534 and 33 claim and leave in a loop;
             in both, uid 1000 claims every 0.5 s during the attack and once after it;
          7. a claim/release loop of uid 65534 (64 in flight): the checks polkit got;
          8. malformed calls with a 30 MB `ay`, three times: the daemon's RSS; 1,500 SIGHUPs: log lines.
        Prints a Markdown report (quoted in docs/PERFORMANCE.md). Needs root (setuid children).

    The loads alone, for the integration tests (JSON on stdout):
      dbus-load.py claim-flood --address A --seconds S [--in-flight 64] [--sensor Accelerometer|Light|Proximity|Compass]
      dbus-load.py claimers --address A --count N --hold S
      dbus-load.py socket-toggle --socket P --seconds S [--connections 64] [--rate 20]
      dbus-load.py watch --address A --socket P --seconds S   (a legitimate client: latencies)
      dbus-load.py claim-and-leave --address A --connections N [--hold S] [--seconds S]
          (issue 26: N connections each send ClaimAccelerometer without waiting for the answer and
          leave after --hold seconds; with --seconds, one connection after another, claiming and
          leaving at once, until the time is up)
      dbus-load.py claimer --address A --seconds S [--every E]
          (issue 26: a legitimate user claiming on a new connection every E seconds: how long
          each claim took to be answered, and how)
      dbus-load.py big-message --address A [--megabytes 30] [--calls 39]
          (issue 26: malformed calls, one of them carrying a large `ay`)
    Run them as the user to act as (setpriv); nothing is asserted here.

/usr/bin/python3 on purpose: it is Debian's, with python3-dbus and python3-gi.
"""
import argparse, json, os, re, signal, socket, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.dirname(HERE)
RECORDING = os.path.join(REPOSITORY, "data", "xio-fusion", "handheld.log")
NAME, PATH, IFACE = "net.hadess.SensorProxy", "/net/hadess/SensorProxy", "net.hadess.SensorProxy"


def glib():
    import dbus.mainloop.glib
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    return GLib


def connect_bus(address):
    import dbus
    bus = dbus.bus.BusConnection(address)
    return bus


# MARK: - The loads

def claim_flood(address, seconds, in_flight, sensor="Accelerometer"):
    """One connection, Claim<sensor>/Release<sensor> alternately, `in_flight` calls outstanding."""
    GLib = glib()
    bus = connect_bus(address)
    loop = GLib.MainLoop()
    counts = {"calls": 0, "errors": 0, "error_names": {}}
    state = {"next": 0}
    end = time.monotonic() + seconds

    def send():
        if time.monotonic() >= end:
            if counts["calls"] + counts["errors"] >= state["next"]:
                loop.quit()
            return
        member = ("Claim" if state["next"] % 2 == 0 else "Release") + sensor
        state["next"] += 1
        # The compass has an object and interface of its own (iio-sensor-proxy's API).
        path, iface = (PATH + "/Compass", IFACE + ".Compass") if sensor == "Compass" else (PATH, IFACE)
        bus.call_async(NAME, path, iface, member, "", (), reply, error, timeout=30)

    def reply(*_):
        counts["calls"] += 1
        send()

    def error(e):
        counts["errors"] += 1
        name = e.get_dbus_name() if hasattr(e, "get_dbus_name") else str(e)
        counts["error_names"][name] = counts["error_names"].get(name, 0) + 1
        send()

    for _ in range(in_flight):
        send()
    GLib.timeout_add(int(seconds * 1000) + 5000, loop.quit)
    loop.run()
    return counts


def claimers(address, count, hold):
    """`count` connections each claiming the accelerometer, held `hold` seconds."""
    import dbus
    held, granted, refused, failed = [], 0, {}, 0
    for _ in range(count):
        try:
            bus = dbus.bus.BusConnection(address)
        except dbus.exceptions.DBusException as e:
            failed += 1
            continue
        held.append(bus)
        try:
            bus.call_blocking(NAME, PATH, IFACE, "ClaimAccelerometer", "", (), timeout=10)
            granted += 1
        except dbus.exceptions.DBusException as e:
            refused[e.get_dbus_name()] = refused.get(e.get_dbus_name(), 0) + 1
    time.sleep(hold)  # holding the claims is the load
    return {"granted": granted, "refused": refused, "connect_failed": failed}


def socket_toggle(path, seconds, connections, rate):
    """`connections` socket clients each sending subscribe/unsubscribe alternately, `rate` per second."""
    sockets = []
    for _ in range(connections):
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            s.setblocking(False)
            sockets.append(s)
        except OSError:
            pass
    sent, end, k = 0, time.monotonic() + seconds, 0
    while time.monotonic() < end:
        start = time.monotonic()
        line = b'{"op":"subscribe"}\n' if k % 2 == 0 else b'{"op":"unsubscribe"}\n'
        k += 1
        for s in sockets:
            try:
                s.send(line)
                sent += 1
            except OSError:
                pass
            try:
                while s.recv(65536):
                    pass
            except OSError:
                pass
        time.sleep(max(0, 1 / rate - (time.monotonic() - start)))
    return {"connections": len(sockets), "sent": sent}


def watch(address, path, seconds):
    """A legitimate client: claims over D-Bus and subscribes on the socket; for every orientation
    event on the socket, the delay until the D-Bus PropertiesChanged of the same change (ms), and
    how stale `Get` was."""
    GLib = glib()
    bus = connect_bus(address)
    loop = GLib.MainLoop()
    socket_times, dbus_times = [], []

    def changed(interface, props, invalidated):
        if "AccelerometerOrientation" in props or "AccelerometerTilt" in props:
            dbus_times.append(time.monotonic())

    bus.add_signal_receiver(changed, "PropertiesChanged", "org.freedesktop.DBus.Properties", NAME, PATH)
    t0 = time.monotonic()
    bus.call_blocking(NAME, PATH, IFACE, "ClaimAccelerometer", "", (), timeout=30)
    claim_ms = (time.monotonic() - t0) * 1000
    first = str(bus.call_blocking(NAME, PATH, "org.freedesktop.DBus.Properties", "Get", "ss", (IFACE, "AccelerometerOrientation")))
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.sendall(b'{"op":"subscribe"}\n')
    buffer = [b"", 0]

    def readable(*_):
        try:
            chunk = s.recv(65536)
        except OSError:
            return True
        if not chunk:
            return False
        buffer[0] += chunk
        while b"\n" in buffer[0]:
            line, _, buffer[0] = buffer[0].partition(b"\n")
            if b'"type":"orientation"' in line:
                socket_times.append(time.monotonic())
        return True

    GLib.io_add_watch(s.fileno(), GLib.IO_IN, readable)
    GLib.timeout_add(int(seconds * 1000), loop.quit)
    loop.run()
    # Let late signals arrive (counted as late, not lost), up to 12 s as the issue did.
    end = time.monotonic() + 12
    context = loop.get_context()
    while len(dbus_times) < len(socket_times) and time.monotonic() < end:
        context.iteration(False)
        time.sleep(0.01)
    latencies = [max(0.0, (d - t) * 1000) for t, d in zip(socket_times, dbus_times)]
    return {"socket_events": len(socket_times), "dbus_signals": len(dbus_times), "latencies_ms": latencies,
            "max_latency_ms": max(latencies) if latencies else -1, "never": len(socket_times) - len(latencies),
            "claim_reply_ms": claim_ms, "orientation_after_claim": first}


def claim_message():
    import dbus.lowlevel
    return dbus.lowlevel.MethodCallMessage(NAME, PATH, IFACE, "ClaimAccelerometer")


def claim_and_leave(address, connections, hold, seconds):
    """Connections that claim and leave without waiting for the answer: at once (`connections`
    of them, left after `hold` s), or one after another for `seconds`."""
    import dbus
    opened, failed = 0, 0
    if seconds > 0:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                bus = dbus.bus.BusConnection(address)
            except dbus.exceptions.DBusException:
                failed += 1
                time.sleep(0.01)
                continue
            bus.send_message(claim_message())
            bus.flush()
            bus.close()
            opened += 1
        return {"connections": opened, "connect_failed": failed}
    held = []
    for _ in range(connections):
        try:
            bus = dbus.bus.BusConnection(address)
        except dbus.exceptions.DBusException:
            failed += 1
            continue
        bus.send_message(claim_message())
        bus.flush()
        held.append(bus)
    time.sleep(hold)  # holding the connections is the load
    for bus in held:
        bus.close()
    return {"connections": len(held), "connect_failed": failed}


def claimer(address, seconds, every):
    """A legitimate user: a new connection every `every` s claims the accelerometer, releases it
    and leaves; how long each claim took, and the errors."""
    import dbus
    latencies, errors, end = [], {}, time.monotonic() + seconds
    while True:
        start = time.monotonic()
        try:
            bus = dbus.bus.BusConnection(address)
            try:
                bus.call_blocking(NAME, PATH, IFACE, "ClaimAccelerometer", "", (), timeout=30)
                latencies.append((time.monotonic() - start) * 1000)
                bus.call_blocking(NAME, PATH, IFACE, "ReleaseAccelerometer", "", (), timeout=30)
            finally:
                bus.close()
        except dbus.exceptions.DBusException as e:
            name = e.get_dbus_name() or "connect"
            errors[name] = errors.get(name, 0) + 1
            errors.setdefault("first_message", e.get_dbus_message())
            latencies.append((time.monotonic() - start) * 1000)
        if time.monotonic() >= end:
            break
        time.sleep(max(0, every - (time.monotonic() - start)))
    return {"claims": len(latencies), "allowed": len(latencies) - sum(v for k, v in errors.items() if k != "first_message"),
            "errors": errors, "latencies_ms": [round(x) for x in latencies], "max_ms": round(max(latencies)) if latencies else -1}


def big_message(address, megabytes, calls):
    """Malformed calls (wrong arguments, unknown members), one carrying a `megabytes` MB `ay`."""
    import dbus
    bus = dbus.bus.BusConnection(address)
    errors = {}
    for k in range(calls):
        if k == calls // 2:
            args, signature = (dbus.ByteArray(b"\0" * int(megabytes * 1024 * 1024)),), "ay"
        else:
            args, signature = ("x" * 1024 * (k % 8),), "s"
        member = "ClaimAccelerometer" if k % 3 else "NoSuchMember"
        try:
            bus.call_blocking(NAME, PATH, IFACE, member, signature, args, timeout=30)
            errors["none"] = errors.get("none", 0) + 1
        except dbus.exceptions.DBusException as e:
            errors[e.get_dbus_name()] = errors.get(e.get_dbus_name(), 0) + 1
    bus.close()
    return {"calls": calls, "answers": errors}


# MARK: - The benchmark

class Bus:
    def __init__(self, directory):
        socket_path = os.path.join(directory, "system_bus_socket")
        with open("/usr/share/dbus-1/system.conf") as f:
            config = f.read()
        for pattern in ["<user>messagebus</user>", "<standard_system_servicedirs/>", "<includedir>system.d</includedir>",
                        "<includedir>/etc/dbus-1/system.d</includedir>",
                        '<include ignore_missing="yes">/etc/dbus-1/system.conf</include>',
                        '<include ignore_missing="yes">/etc/dbus-1/system-local.conf</include>']:
            config = config.replace(pattern, "")
        config = re.sub(r"<listen>.*?</listen>", f"<listen>unix:path={socket_path}</listen>", config)
        config = re.sub(r"<pidfile>.*?</pidfile>", "", config)
        policy = os.path.join(REPOSITORY, "config", "net.hadess.SensorProxy.conf")
        # polkit's own bus policy, for the stand-in polkit of issue 26's loads (root owns the name,
        # everyone may call it); with nobody owning the name, claims are unchecked as before.
        polkit = os.path.join(directory, "polkit.conf")
        with open(polkit, "w") as f:
            f.write('<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN" '
                    '"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">\n<busconfig>'
                    '<policy user="root"><allow own="org.freedesktop.PolicyKit1"/></policy>'
                    '<policy context="default"><allow send_destination="org.freedesktop.PolicyKit1"/></policy></busconfig>\n')
        config = config.replace("</busconfig>", f"<include>{policy}</include>\n<include>{polkit}</include>\n</busconfig>")
        with open(os.path.join(directory, "system.conf"), "w") as f:
            f.write(config)
        self.process = subprocess.Popen(["/usr/bin/dbus-daemon", f"--config-file={directory}/system.conf", "--nofork", "--nopidfile"])
        self.address = "unix:path=" + socket_path
        deadline = time.monotonic() + 10
        while not os.path.exists(socket_path) and time.monotonic() < deadline:
            time.sleep(0.02)

    def stop(self):
        self.process.terminate()
        self.process.wait()


def as_user(uid, arguments, output):
    """The load `arguments` of this script in a process of its own, as `uid` (None: root)."""
    user = [] if uid is None else ["/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    return subprocess.Popen(user + ["/usr/bin/python3", os.path.abspath(__file__)] + arguments, stdout=open(output, "w"),
                            stderr=subprocess.DEVNULL)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values, p):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def bench(args):
    if os.geteuid() != 0:
        sys.exit("dbus-load.py: needs root, to run the loads as other users")
    directory = tempfile.mkdtemp(prefix="orientationd-dbus-")
    os.chmod(directory, 0o755)
    bus = Bus(directory)
    sock = os.path.join(directory, "d.sock")
    log_path = os.path.join(directory, "daemon.log")
    env = {"PATH": "/usr/bin:/bin", "DBUS_SYSTEM_BUS_ADDRESS": bus.address}
    daemon = subprocess.Popen([args.daemon, "--dbus", "--replay", RECORDING, "--loop", "--speed", "4", "--socket", sock,
                               "--log-level", "info"],
                              env=env, stderr=open(log_path, "w"))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and "serving net.hadess.SensorProxy" not in open(log_path).read():
        time.sleep(0.05)
    results = {}

    def phase(name, loads, watcher=False):
        before = open(log_path).read()
        cpu0 = cpu_seconds(daemon.pid)
        children = [as_user(uid, load, os.path.join(directory, f"{name}-{k}.json")) for k, (uid, load) in enumerate(loads)]
        watched = None
        if watcher:
            # A process of its own, so that its claim and subscription end with the phase.
            output = os.path.join(directory, f"{name}-watch.json")
            as_user(None, ["watch", "--address", bus.address, "--socket", sock, "--seconds", str(args.seconds)], output).wait()
            try:
                watched = json.load(open(output))
            except Exception:
                watched = None
        for child in children:
            child.wait()
        after = open(log_path).read()
        added = after[len(before):]
        outputs = []
        for k in range(len(children)):
            try:
                outputs.append(json.load(open(os.path.join(directory, f"{name}-{k}.json"))))
            except Exception as e:
                outputs.append({"error": str(e)})
        results[name] = {"opens": added.count("sensor opened"), "closes": added.count("sensor closed"),
                         "log_lines": added.count("\n"), "log_bytes": len(added.encode()),
                         "cpu_percent": (cpu_seconds(daemon.pid) - cpu0) / args.seconds * 100,
                         "lost_bus": "lost the system bus" in added, "loads": outputs, "watch": watched}
        time.sleep(2)  # let the release delay run out between phases

    try:
        polkit_results = run_phases(args, phase, bus, sock, directory, daemon, log_path)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=20)
        bus.stop()
    report(args, results, polkit_results)


def run_phases(args, phase, bus, sock, directory, daemon, log_path):
    seconds = str(args.seconds)
    if args.only_polkit:
        return polkit_phases(args, directory, bus, daemon, log_path)
    phase("flood-alone", [(65534, ["claim-flood", "--address", bus.address, "--seconds", seconds])])
    phase("flood-and-legit", [(65534, ["claim-flood", "--address", bus.address, "--seconds", seconds])], watcher=True)
    phase("socket-toggle", [(65534, ["socket-toggle", "--socket", sock, "--seconds", seconds])])
    # Last: before issue 18 this one knocked the daemon off the bus.
    phase("512-claimers", [(65534, ["claimers", "--address", bus.address, "--count", "256", "--hold", seconds]),
                           (33, ["claimers", "--address", bus.address, "--count", "256", "--hold", seconds])], watcher=True)
    return polkit_phases(args, directory, bus, daemon, log_path)


def report(args, results, polkit_results):
    def latency_cells(r):
        w = r["watch"]
        if not w:
            return "—", "—"
        lat = w["latencies_ms"]
        lost = w["socket_events"] - len(lat)
        return (f"{w['socket_events']} / {len(lat)}" + (f" ({lost} never)" if lost else ""),
                f"{percentile(lat, 50):.0f} / {percentile(lat, 99):.0f} / {max(lat) if lat else float('nan'):.0f}")

    lines = [] if not results else [f"`Benchmarks/dbus-load.py bench` ({args.seconds:.0f} s per load, `{os.path.basename(args.daemon)}` replaying the "
             "bundled recording in a loop at 4×, log level info, private system-like bus):", "",
             "| load | sensor opens / closes | log lines (bytes) | daemon CPU % | lost the bus | socket events / PropertiesChanged seen | latency p50 / p99 / max ms | what the load got |",
             "|---|---:|---:|---:|---|---:|---:|---|"]
    for name, r in results.items():
        seen, latency = latency_cells(r)
        got = "; ".join(json.dumps(o, sort_keys=True) for o in r["loads"])
        lines.append(f"| {name} | {r['opens']} / {r['closes']} | {r['log_lines']} ({r['log_bytes']}) | {r['cpu_percent']:.0f} | "
                     f"{'yes' if r['lost_bus'] else 'no'} | {seen} | {latency} | {got} |")
    lines += ["", "Issue 26, with a stand-in polkit (`Benchmarks/polkit-standin.py`); uid 1000 claims on a new connection every 0.5 s "
              "during the attack, and once after it:", "",
              "| load | uid 1000 during: allowed / claims | during: p50 / max ms | after: answer, ms | polkit checks | what the load got |",
              "|---|---:|---:|---|---:|---|"]
    labels = {"hung-polkit": "polkit never answers uid 65534; 2 × 200 of its connections claim and leave",
              "slow-polkit": "polkit answers one check per 0.2 s; uids 65534 and 33 claim and leave in a loop",
              "claim-loop": "claim/release loop of uid 65534, 64 in flight"}
    for name, r in polkit_results["phases"].items():
        d, a = r["during"] or {}, r["after"] or {}
        lat = d.get("latencies_ms", [])
        during = f"{d.get('allowed', '—')} / {d.get('claims', '—')}" + (f" ({json.dumps(d['errors'])})" if d.get("errors") else "")
        after = ("allowed" if a.get("allowed") else json.dumps(a.get("errors"))) + f", {a.get('max_ms', '—')}" if a else "—"
        got = "; ".join(json.dumps(o, sort_keys=True) for o in r["loads"])
        lines.append(f"| {labels[name]} | {during} | {percentile(lat, 50):.0f} / {max(lat) if lat else float('nan'):.0f} | {after} | "
                     f"{r['checks']} | {got} |")
    m = polkit_results["memory"]
    lines += ["", f"Memory: RSS {m['before_kb']} kB before 3 × (39 malformed calls, one a 30 MB `ay`), {m['after_kb']} kB after "
              f"(peak {m['peak_kb']} kB). Reload log: {m['sighups']} SIGHUPs, {m['reload_lines']} \"configuration reloaded\" lines."]
    text = "\n".join(lines)
    print(text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text + "\n")


def polkit_phases(args, directory, bus, daemon, log_path):
    """Issue 26's loads: a stand-in polkit per phase, uid 1000 claiming during and after."""
    standin = os.path.join(HERE, "polkit-standin.py")
    phases = {}

    def run(name, standin_args, loads, seconds):
        checks = os.path.join(directory, f"{name}-checks.log")
        ready = os.path.join(directory, f"{name}-standin.out")
        polkit = subprocess.Popen(["/usr/bin/python3", standin, "--address", bus.address, "--log", checks] + standin_args,
                                  stdout=open(ready, "w"), stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and "ready" not in open(ready).read():
            time.sleep(0.02)
        try:
            children = [as_user(uid, load, os.path.join(directory, f"{name}-{k}.json")) for k, (uid, load) in enumerate(loads)]
            during_path = os.path.join(directory, f"{name}-during.json")
            as_user(1000, ["claimer", "--address", bus.address, "--seconds", str(seconds), "--every", "0.5"], during_path).wait()
            for child in children:
                child.wait()
            after_path = os.path.join(directory, f"{name}-after.json")
            as_user(1000, ["claimer", "--address", bus.address, "--seconds", "0"], after_path).wait()
        finally:
            polkit.terminate()
            polkit.wait()

        def read(path):
            try:
                return json.load(open(path))
            except Exception:
                return None
        phases[name] = {"during": read(during_path), "after": read(after_path), "checks": sum(1 for _ in open(checks)),
                        "loads": [read(os.path.join(directory, f"{name}-{k}.json")) for k in range(len(children))]}
        time.sleep(6)  # past the verdicts' 5 s reuse: the next phase starts unanswered

    seconds = str(args.seconds)
    run("hung-polkit", ["--hang-uid", "65534"],
        [(65534, ["claim-and-leave", "--address", bus.address, "--connections", "200", "--hold", "5"])] * 2, 10)
    run("slow-polkit", ["--delay", "0.2"],
        [(uid, ["claim-and-leave", "--address", bus.address, "--seconds", seconds]) for uid in (65534, 33)], args.seconds)
    run("claim-loop", [],
        [(65534, ["claim-flood", "--address", bus.address, "--seconds", seconds])], args.seconds)

    def rss(key="VmRSS"):
        for line in open(f"/proc/{daemon.pid}/status"):
            if line.startswith(key + ":"):
                return int(line.split()[1])
        return -1
    as_user(65534, ["big-message", "--address", bus.address, "--megabytes", "0.1"], os.devnull).wait()
    before = rss()
    for _ in range(3):
        as_user(65534, ["big-message", "--address", bus.address], os.devnull).wait()
    time.sleep(1)
    memory = {"before_kb": before, "after_kb": rss(), "peak_kb": rss("VmHWM")}
    lines_before = open(log_path).read().count("configuration reloaded")
    for _ in range(1500):
        daemon.send_signal(signal.SIGHUP)
        time.sleep(0.001)
    time.sleep(2)
    memory.update(sighups=1500, reload_lines=open(log_path).read().count("configuration reloaded") - lines_before)
    return {"phases": phases, "memory": memory}


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("bench")
    b.add_argument("daemon")
    b.add_argument("--seconds", type=float, default=10)
    b.add_argument("--report")
    b.add_argument("--only-polkit", action="store_true", help="only issue 26's loads (5 to 8)")
    f = sub.add_parser("claim-flood")
    f.add_argument("--address", required=True)
    f.add_argument("--seconds", type=float, default=10)
    f.add_argument("--in-flight", type=int, default=64)
    f.add_argument("--sensor", choices=["Accelerometer", "Light", "Proximity", "Compass"], default="Accelerometer")
    c = sub.add_parser("claimers")
    c.add_argument("--address", required=True)
    c.add_argument("--count", type=int, default=256)
    c.add_argument("--hold", type=float, default=10)
    t = sub.add_parser("socket-toggle")
    t.add_argument("--socket", required=True)
    t.add_argument("--seconds", type=float, default=10)
    t.add_argument("--connections", type=int, default=64)
    t.add_argument("--rate", type=float, default=20)
    a = sub.add_parser("claim-and-leave")
    a.add_argument("--address", required=True)
    a.add_argument("--connections", type=int, default=200)
    a.add_argument("--hold", type=float, default=0)
    a.add_argument("--seconds", type=float, default=0)
    m = sub.add_parser("claimer")
    m.add_argument("--address", required=True)
    m.add_argument("--seconds", type=float, default=10)
    m.add_argument("--every", type=float, default=0.5)
    g = sub.add_parser("big-message")
    g.add_argument("--address", required=True)
    g.add_argument("--megabytes", type=float, default=30)
    g.add_argument("--calls", type=int, default=39)
    w = sub.add_parser("watch")
    w.add_argument("--address", required=True)
    w.add_argument("--socket", required=True)
    w.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    if args.command == "bench":
        return bench(args)
    if args.command == "claim-flood":
        result = claim_flood(args.address, args.seconds, args.in_flight, args.sensor)
    elif args.command == "claimers":
        result = claimers(args.address, args.count, args.hold)
    elif args.command == "claim-and-leave":
        result = claim_and_leave(args.address, args.connections, args.hold, args.seconds)
    elif args.command == "claimer":
        result = claimer(args.address, args.seconds, args.every)
    elif args.command == "big-message":
        result = big_message(args.address, args.megabytes, args.calls)
    elif args.command == "socket-toggle":
        result = socket_toggle(args.socket, args.seconds, args.connections, args.rate)
    else:
        result = watch(args.address, args.socket, args.seconds)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
