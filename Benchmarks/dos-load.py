#!/usr/bin/env python3
"""Issue 9's three denial-of-service loads at once, against the real daemon; what root still gets.

    Benchmarks/dos-load.py [--seconds 30] [--report FILE] path/to/orientationd

Runs orientationd (replaying the bundled recording in a loop) in a temporary directory and, as
other users (forked children that drop to uids 60001-60016; needs root), starts at the same time:

  1. slot hogging: 8 users each try to open 600 idle connections and hold them;
  2. requests without reading: 200 connections (4 users x 50) each sending {"op":"get"} 19 times
     a second and never reading;
  3. blank-line flood: 40 connections (one user) sending newlines as fast as they can,
     reconnecting whenever the daemon closes them.

Meanwhile root (this process) sends `get` every 20 ms on one connection and measures the reply
time, opens a fresh connection (connect, hello, get) every 250 ms, and samples the daemon's
resident memory and CPU once a second. A quiet phase of the same length comes first, for
comparison. Prints a Markdown report (quoted in docs/PERFORMANCE.md). Nothing is asserted: the
acceptance bounds are read off the report.
"""
import argparse, json, os, signal, socket, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDING = os.path.join(HERE, "..", "data", "xio-fusion", "handheld.log")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def connect(path, timeout=5.0):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(timeout)
    s.connect(path)
    return s


def read_line(s, buffer):
    while b"\n" not in buffer[0]:
        chunk = s.recv(65536)
        if not chunk:
            raise EOFError
        buffer[0] += chunk
    line, _, rest = buffer[0].partition(b"\n")
    buffer[0] = rest
    return line


def as_user(uid, work):
    """Forks a child that runs `work()` as `uid`; returns its pid."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
            work()
        finally:
            os._exit(0)
    return pid


def hog(path, count):
    held = []
    for _ in range(count):
        try:
            s = connect(path, 2)
            if b"hello" in s.recv(4096):
                held.append(s)
            else:
                s.close()
        except OSError:
            pass
    while True:
        time.sleep(60)


def greedy_getter(path, count, rate):
    sockets = []
    for _ in range(count):
        try:
            s = connect(path, 2)
            s.setblocking(False)
            sockets.append(s)
        except OSError:
            pass
    request = b'{"op":"get"}\n'
    while True:
        start = time.monotonic()
        for s in list(sockets):
            try:
                s.send(request)
            except BlockingIOError:
                pass
            except OSError:
                sockets.remove(s)  # dropped by the daemon: that is the point
        time.sleep(max(0, 1 / rate - (time.monotonic() - start)))


def flooder(path, count):
    blank = b"\n" * 65536
    sockets = [None] * count
    while True:
        for i in range(count):
            try:
                if sockets[i] is None:
                    sockets[i] = connect(path, 2)
                    sockets[i].setblocking(False)
                sockets[i].send(blank)
            except BlockingIOError:
                pass
            except OSError:
                try:
                    sockets[i].close()
                except Exception:
                    pass
                sockets[i] = None


def percentile(values, p):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def measure(path, daemon, seconds):
    """Root's view for `seconds`: get latencies, fresh connections, memory, CPU."""
    latencies, connects, refused = [], [], 0
    rss, cpu0, start = [], cpu_seconds(daemon.pid), time.monotonic()
    client, buffer = None, [b""]
    next_fresh, next_sample = start, start
    while time.monotonic() - start < seconds:
        now = time.monotonic()
        if client is None:
            try:
                client, buffer = connect(path), [b""]
                read_line(client, buffer)
            except (OSError, EOFError):
                client = None
        if client is not None:
            try:
                t0 = time.monotonic()
                client.sendall(b'{"op":"get","id":1}\n')
                while b'"state"' not in read_line(client, buffer):
                    pass
                latencies.append((time.monotonic() - t0) * 1000)
            except (OSError, EOFError):
                client = None
        if now >= next_fresh:
            next_fresh += 0.25
            try:
                t0 = time.monotonic()
                fresh, fresh_buffer = connect(path), [b""]
                hello = read_line(fresh, fresh_buffer)
                if b'"hello"' in hello:
                    fresh.sendall(b'{"op":"get"}\n')
                    read_line(fresh, fresh_buffer)
                    connects.append((time.monotonic() - t0) * 1000)
                else:
                    refused += 1
                fresh.close()
            except (OSError, EOFError):
                refused += 1
        if now >= next_sample:
            next_sample += 1
            rss.append(rss_kib(daemon.pid))
        time.sleep(0.02)
    cpu = (cpu_seconds(daemon.pid) - cpu0) / seconds * 100
    return latencies, connects, refused, rss, cpu


def row(label, result):
    latencies, connects, refused, rss, cpu = result
    return (f"| {label} | {len(latencies)} | {percentile(latencies, 50):.2f} | {percentile(latencies, 99):.2f} | "
            f"{max(latencies) if latencies else float('nan'):.2f} | {len(connects)}/{len(connects) + refused} | "
            f"{percentile(connects, 99):.2f} | {max(rss) / 1024:.1f} | {cpu:.0f} |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("daemon")
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--report")
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("dos-load.py: needs root, to run the loads as other users")
    directory = tempfile.mkdtemp(prefix="orientationd-dos-")
    os.chmod(directory, 0o755)
    path = os.path.join(directory, "d.sock")
    daemon = subprocess.Popen([args.daemon, "--replay", RECORDING, "--loop", "--socket", path, "--log-level", "warning"],
                              stderr=open(os.path.join(directory, "daemon.log"), "w"))
    deadline = time.monotonic() + 20
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    subscriber = connect(path)
    subscriber.sendall(b'{"op":"subscribe"}\n')  # the sensor (replay) runs throughout

    quiet = measure(path, daemon, args.seconds / 3)
    children = []
    for k in range(8):
        children.append(as_user(60001 + k, lambda: hog(path, 600)))
    for k in range(4):
        children.append(as_user(60009 + k, lambda: greedy_getter(path, 50, 19)))
    children.append(as_user(60013, lambda: flooder(path, 40)))
    time.sleep(2)  # let the loads build up
    loaded = measure(path, daemon, args.seconds)
    for pid in children:
        os.kill(pid, signal.SIGTERM)
    for pid in children:
        os.waitpid(pid, 0)
    daemon.send_signal(signal.SIGTERM)
    status = daemon.wait(timeout=20)
    with open(os.path.join(directory, "daemon.log")) as f:
        warnings = [line for line in f if "warning" in line or "notice" in line]

    lines = [
        "## Under three denial-of-service loads at once (issue 9)",
        "",
        f"`Benchmarks/dos-load.py` ({args.seconds:.0f} s loaded, {args.seconds / 3:.0f} s quiet first): 8 users hogging slots (600 "
        "attempts each), 200 connections sending `get` 19/s without reading (4 users), 40 blank-line flooders "
        "(one user, reconnecting); root sends `get` every 20 ms on one connection and opens a fresh one every 250 ms.",
        "",
        "| phase | root gets | p50 ms | p99 ms | max ms | root fresh connections | connect+get p99 ms | daemon RSS max MiB | daemon CPU % |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        row("quiet", quiet),
        row("all three loads", loaded),
        "",
        f"Daemon exit status after SIGTERM: {status}. Log lines at warning/notice during the run: {len(warnings)}.",
    ]
    text = "\n".join(lines)
    print(text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
