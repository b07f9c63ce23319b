import Glibc
import OrientationCore
import SensorProxyBus
import Testing
import TestSupport
import SensorProxyModel

/// Issue 7: orientationd as net.hadess.SensorProxy on a private system bus, against real clients
/// written by others (Debian's `monitor-sensor`, `gdbus`) and the real iio-sensor-proxy 3.0 on
/// the same umockdev sensor.
extension SensorIIOIntegrationTests {
    static var facadeToolsAvailable: Bool {
        PrivateSystemBus.available && access("/usr/bin/monitor-sensor", X_OK) == 0 && access("/usr/sbin/iio-sensor-proxy", X_OK) == 0
            && access("/usr/bin/gdbus", X_OK) == 0
    }

    /// Waits (polling a file: its growth is not awaitable) until `predicate` holds for its text.
    static func waitForText(_ path: String, timeout: Double = 15, _ predicate: (String) -> Bool) -> Bool {
        waitUntil(timeout: timeout, every: 0.02) { predicate(readText(path)) }
    }

    /// The orientations monitor-sensor printed, `undefined` left out.
    static func orientationChanges(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            guard let range = Substring(line).range(ofText: "Accelerometer orientation changed: ") else { return nil }
            let value = String(line[range.upperBound...])
            return value == "undefined" ? nil : value
        }
    }

    /// Members of net.hadess.SensorProxy as `gdbus introspect` prints them (one per line).
    static func members(_ introspection: String) -> Set<String> {
        var inside = false
        var result: Set<String> = []
        for line in introspection.split(separator: "\n").map({ $0.trimmingCharacters() }) {
            if line.hasPrefix("interface ") { inside = line == "interface net.hadess.SensorProxy {" }
            guard inside, line.hasSuffix(";") || line.hasSuffix(")"), !line.hasPrefix("interface") else { continue }
            // "readonly s AccelerometerOrientation = 'normal';" → "readonly s AccelerometerOrientation"
            let member = line.split(separator: "=").first.map { String($0).trimmingCharacters() } ?? line
            result.insert(member.hasSuffix(";") ? String(member.dropLast()) : member)
        }
        return result
    }

    // MARK: - The real peer and orientationd, same sensor, same strings

    /// A polled accelerometer (iio-sensor-proxy's `iio-poll-accel`, which its udev rule would
    /// tag), turned through the four in-plane orientations by rewriting its raw attributes; each
    /// daemon in turn, with `monitor-sensor` as the claiming client. Both must publish the same
    /// AccelerometerOrientation strings, and orientationd's interface must have every member of
    /// the real one, with the same signatures (plus AccelerometerTilt from iio-sensor-proxy 3.6).
    @Test(.enabled(if: facadeToolsAvailable, "needs dbus-daemon, gdbus and Debian's iio-sensor-proxy (make setup)"))
    func orientationdPublishesWhatTheRealIioSensorProxyPublishes() throws {
        let testbed = Testbed()
        var device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        device.buffered = false
        device.udev = ["IIO_SENSOR_PROXY_TYPE": "iio-poll-accel"]
        device.raw = (0, -100, 0)
        try testbed.add(device.description)
        let poses: [(Int, Int, Int)] = [(-100, 0, 0), (0, 100, 0), (100, 0, 0)]  // after the first, portrait
        var published: [String: [String]] = [:]
        var introspection: [String: String] = [:]
        for daemon in ["iio-sensor-proxy", "orientationd"] {
            for (axis, value) in zip(["x", "y", "z"], [0, -100, 0]) { testbed.setAttribute(device.syspath, "in_accel_\(axis)_raw", "\(value)\n") }
            let bus = try PrivateSystemBus()
            let dir = bus.directory
            let command = daemon == "orientationd"
                ? [Self.productsDirectory + "/orientationd", "--dbus", "--socket", dir + "/d.sock", "--log-level", "debug"]
                : ["/usr/sbin/iio-sensor-proxy"]
            let server = try spawn(command, environment: bus.inheritedEnvironment + ["G_MESSAGES_DEBUG=all"], stderr: dir + "/daemon.err", newProcessGroup: true)
            defer { _ = stopProcess(server) }
            let monitor = try spawn(["/usr/bin/monitor-sensor"], environment: bus.clientEnvironment, stderr: dir + "/monitor.err",
                                    stdout: dir + "/monitor.out", newProcessGroup: true)
            defer { _ = stopProcess(monitor, SIGKILL) }
            // The peer announces "undefined" when claimed, before its first reading; orientationd
            // publishes its first orientation directly. Compared: the orientations themselves.
            #expect(Self.waitForText(dir + "/monitor.out") { Self.orientationChanges($0).count == 1 },
                    "\(daemon): no first orientation: \(readText(dir + "/monitor.out")) \(readText(dir + "/daemon.err"))")
            for (k, pose) in poses.enumerated() {
                for (axis, value) in zip(["x", "y", "z"], [pose.0, pose.1, pose.2]) { testbed.setAttribute(device.syspath, "in_accel_\(axis)_raw", "\(value)\n") }
                #expect(Self.waitForText(dir + "/monitor.out") { Self.orientationChanges($0).count == k + 2 },
                        "\(daemon): pose \(pose): \(readText(dir + "/monitor.out"))")
            }
            published[daemon] = Self.orientationChanges(readText(dir + "/monitor.out"))
            let introspect = try spawn(["/usr/bin/gdbus", "introspect", "--system", "--dest", "net.hadess.SensorProxy",
                                        "--object-path", "/net/hadess/SensorProxy"],
                                       environment: bus.clientEnvironment, stderr: dir + "/introspect.err", stdout: dir + "/introspect.out", newProcessGroup: true)
            var status: Int32 = 0
            waitpid(introspect, &status, 0)
            introspection[daemon] = readText(dir + "/introspect.out")
        }
        #expect(published["iio-sensor-proxy"] == ["normal", "right-up", "bottom-up", "left-up"], "the peer: \(published)")
        #expect(published["orientationd"] == published["iio-sensor-proxy"])
        let upstream = Self.members(introspection["iio-sensor-proxy"] ?? ""), ours = Self.members(introspection["orientationd"] ?? "")
        #expect(upstream.count >= 14, "\(upstream)")
        #expect(upstream.subtracting(ours).isEmpty, "missing: \(upstream.subtracting(ours))")
        #expect(ours.subtracting(upstream) == ["readonly s AccelerometerTilt"], "extra: \(ours.subtracting(upstream))")
    }

    // MARK: - A replay through monitor-sensor

    /// `orientationd --dbus --replay` with no socket subscriber: monitor-sensor's claim starts
    /// the replay, and it prints the replay's changes as iio-sensor-proxy's names, flat states
    /// keeping the last in-plane one.
    @Test(.enabled(if: facadeToolsAvailable, "needs dbus-daemon and Debian's iio-sensor-proxy (make setup)"))
    func monitorSensorPrintsAReplaysChanges() throws {
        let bus = try PrivateSystemBus()
        let dir = bus.directory
        let log = PrivateSystemBus.repository + "/data/xio-fusion/handheld.log"
        // What the detector publishes for this log, mapped as the facade maps it.
        let replay = try spawn([Self.productsDirectory + "/orientationctl", "replay", log], environment: ["PATH=/usr/bin:/bin"],
                               stderr: dir + "/replay.err", stdout: dir + "/replay.out", newProcessGroup: true)
        var status: Int32 = 0
        waitpid(replay, &status, 0)
        var state = SensorProxyState(hasAccelerometer: true)
        var expected: [String] = []
        for line in readText(dir + "/replay.out").split(separator: "\n") {
            guard let name = line.split(separator: " ").last, let device = DeviceOrientationName(rawValue: String(name)) else { continue }
            state.update(device: device.orientation, locked: false)
            if state.orientation != (expected.last ?? "undefined") { expected.append(state.orientation) }
        }
        #expect(expected.count >= 4, "\(readText(dir + "/replay.out"))")
        let server = try spawn([Self.productsDirectory + "/orientationd", "--dbus", "--replay", log, "--speed", "max", "--exit-when-done",
                                "--socket", dir + "/d.sock"], environment: bus.clientEnvironment, stderr: dir + "/daemon.err", newProcessGroup: true)
        defer { _ = stopProcess(server) }
        #expect(Self.waitForText(dir + "/daemon.err") { $0.contains("serving net.hadess.SensorProxy") }, "\(readText(dir + "/daemon.err"))")
        let monitor = try spawn(["/usr/bin/monitor-sensor"], environment: bus.clientEnvironment, stderr: dir + "/monitor.err",
                                stdout: dir + "/monitor.out", newProcessGroup: true)
        defer { _ = stopProcess(monitor, SIGKILL) }
        #expect(Self.waitForText(dir + "/monitor.out") { $0.contains("iio-sensor-proxy vanished") },
                "the replay ran to its end and the daemon left: \(readText(dir + "/monitor.out")) \(readText(dir + "/daemon.err"))")
        let text = readText(dir + "/monitor.out")
        #expect(text.contains("=== Has accelerometer (orientation: undefined)"), "\(text)")
        #expect(Self.orientationChanges(text) == expected.filter { $0 != "undefined" }, "\(text)")

        // `monitor-sensor --format 3.0` as orientationctl's name for it, on the socket of the same
        // replay: the same text, line for line, as Debian's monitor-sensor (3.0) over D-Bus.
        let link = dir + "/monitor-sensor"
        #expect(symlink(Self.productsDirectory + "/orientationctl", link) == 0)
        let second = try spawn([Self.productsDirectory + "/orientationd", "--replay", log, "--speed", "max", "--exit-when-done",
                                "--socket", dir + "/second.sock"], environment: ["PATH=/usr/bin:/bin"], stderr: dir + "/second.err", newProcessGroup: true)
        defer { _ = stopProcess(second) }
        let ours = try spawn([link, "--format", "3.0", "--socket", dir + "/second.sock"], environment: ["PATH=/usr/bin:/bin"],
                             stderr: dir + "/ours.err", stdout: dir + "/ours.out", newProcessGroup: true)
        defer { _ = stopProcess(ours, SIGKILL) }
        #expect(Self.waitForText(dir + "/ours.out") { $0.contains("iio-sensor-proxy vanished") },
                "\(readText(dir + "/ours.out")) \(readText(dir + "/ours.err")) \(readText(dir + "/second.err"))")
        #expect(readText(dir + "/ours.out") == text)
    }

    // MARK: - The policy file: anyone may call, only root may own the name

    static var canActAsAnotherUser: Bool { getuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0 }

    /// config/net.hadess.SensorProxy.conf on a bus that denies by default: an unprivileged user
    /// reads the properties, claims, pings and introspects; an unprivileged orientationd may not
    /// own the name and says why.
    @Test(.enabled(if: facadeToolsAvailable && canActAsAnotherUser, "needs root, setpriv, dbus-daemon and gdbus (make setup)"))
    func thePolicyLetsAnyoneCallAndOnlyRootOwnTheName() throws {
        let bus = try PrivateSystemBus()
        let dir = bus.directory
        chmod(dir, 0o755)  // the other user must reach the bus socket
        // Everything the other user's processes open lives here too: the checkout may sit in a
        // directory only root can enter (a fresh clone under `mktemp -d` is 0700), where nobody
        // could read the log or reach the binary. The binary's RUNPATH is absolute, so a copy runs.
        let log = dir + "/handheld.log", daemon = dir + "/orientationd"
        try copyFile(PrivateSystemBus.repository + "/data/xio-fusion/handheld.log", to: log)
        try copyFile(Self.productsDirectory + "/orientationd", to: daemon, mode: 0o755)
        let server = try spawn([Self.productsDirectory + "/orientationd", "--dbus", "--replay", log, "--socket", dir + "/d.sock"],
                               environment: bus.clientEnvironment, stderr: dir + "/daemon.err", newProcessGroup: true)
        defer { _ = stopProcess(server) }
        #expect(Self.waitForText(dir + "/daemon.err") { $0.contains("serving net.hadess.SensorProxy") }, "\(readText(dir + "/daemon.err"))")
        let nobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        func gdbusAsNobody(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
            let pid = try spawn(nobody + ["/usr/bin/gdbus", "call", "--system", "--dest", "net.hadess.SensorProxy"] + arguments,
                                environment: bus.clientEnvironment, stderr: dir + "/\(name).err", stdout: dir + "/\(name).out", newProcessGroup: true)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            return (status, readText(dir + "/\(name).out") + readText(dir + "/\(name).err"))
        }
        let path = ["--object-path", "/net/hadess/SensorProxy", "--method"]
        let getAll = try gdbusAsNobody("getall", path + ["org.freedesktop.DBus.Properties.GetAll", "net.hadess.SensorProxy"])
        #expect(getAll.status == 0 && getAll.output.contains("'HasAccelerometer': <true>"), "\(getAll.output)")
        let claim = try gdbusAsNobody("claim", path + ["net.hadess.SensorProxy.ClaimAccelerometer"])
        #expect(claim.status == 0, "\(claim.output)")
        let ping = try gdbusAsNobody("ping", path + ["org.freedesktop.DBus.Peer.Ping"])
        #expect(ping.status == 0, "\(ping.output)")
        let introspect = try gdbusAsNobody("introspect", path + ["org.freedesktop.DBus.Introspectable.Introspect"])
        #expect(introspect.status == 0 && introspect.output.contains("AccelerometerOrientation"), "\(introspect.output)")
        // The compass is open to every user too (iio-sensor-proxy 3.6+; no longer GeoClue only).
        let compass = ["--object-path", "/net/hadess/SensorProxy/Compass", "--method"]
        let claimCompass = try gdbusAsNobody("claimcompass", compass + ["net.hadess.SensorProxy.Compass.ClaimCompass"])
        #expect(claimCompass.status == 0, "\(claimCompass.output)")
        let hasCompass = try gdbusAsNobody("hascompass", compass + ["org.freedesktop.DBus.Properties.Get", "net.hadess.SensorProxy.Compass", "HasCompass"])
        #expect(hasCompass.status == 0 && hasCompass.output.contains("<"), "\(hasCompass.output)")
        // Anything else is denied by the bus, not by orientationd.
        let other = try gdbusAsNobody("other", path + ["org.example.Nope.Call"])
        #expect(other.status != 0 && other.output.contains("AccessDenied"), "\(other.output)")

        // An unprivileged orientationd: the bus refuses the name; the log says what to do, and
        // its socket serves anyway.
        let userDir = dir + "/user"
        mkdir(userDir, 0o777)
        chmod(userDir, 0o777)
        let user = try spawn(nobody + [daemon, "--dbus", "--replay", log, "--socket", userDir + "/d.sock"],
                             environment: bus.clientEnvironment, stderr: dir + "/user.err", newProcessGroup: true)
        defer { _ = stopProcess(user) }
        #expect(Self.waitForText(dir + "/user.err") { $0.contains("does not let this user own net.hadess.SensorProxy") },
                "\(readText(dir + "/user.err"))")
        let client = connectUnix(userDir + "/d.sock")
        #expect(client >= 0 && readLine(client, timeout: 5)?.contains("hello") == true, "the socket serves without the bus")
        if client >= 0 { close(client) }
    }

    // MARK: - Claims, Get without a claim, bad calls, the lock, the bus going away

    /// Claims count like socket subscribers, per unique name: the replay runs while any claimer
    /// remains, a claimer that leaves without releasing is released, `GetAll` needs no claim, a
    /// call with wrong argument types is an error and nothing else, the system lock holds
    /// AccelerometerOrientation, and when the bus goes away the socket keeps serving.
    @Test(.enabled(if: facadeToolsAvailable, "needs dbus-daemon and gdbus (make setup)"))
    func claimsLockBadCallsAndALostBus() throws {
        let bus = try PrivateSystemBus()
        let dir = bus.directory
        let log = PrivateSystemBus.repository + "/data/xio-fusion/handheld.log"
        let socket = dir + "/d.sock"
        let server = try spawn([Self.productsDirectory + "/orientationd", "--dbus", "--replay", log, "--loop", "--speed", "4",
                                "--socket", socket], environment: bus.clientEnvironment, stderr: dir + "/daemon.err", newProcessGroup: true)
        defer { _ = stopProcess(server) }
        #expect(Self.waitForText(dir + "/daemon.err") { $0.contains("serving net.hadess.SensorProxy") }, "\(readText(dir + "/daemon.err"))")
        func sensorActive() -> Bool? {
            let client = connectUnix(socket)
            guard client >= 0 else { return nil }
            defer { close(client) }
            _ = readLine(client, timeout: 5)
            sendLine(client, "{\"op\":\"get\"}")
            return readLine(client, timeout: 5).map { $0.contains("\"sensor-active\":true") }
        }
        func awaitActive(_ wanted: Bool) -> Bool {
            let deadline = monotonicNow() + 10
            repeat {
                if sensorActive() == wanted { return true }
                usleep(20_000)
            } while monotonicNow() < deadline
            return false
        }

        // GetAll without a claim, from a real client.
        let getAll = try spawn(["/usr/bin/gdbus", "call", "--system", "--dest", "net.hadess.SensorProxy", "--object-path",
                                "/net/hadess/SensorProxy", "--method", "org.freedesktop.DBus.Properties.GetAll", "net.hadess.SensorProxy"],
                               environment: bus.clientEnvironment, stderr: dir + "/getall.err", stdout: dir + "/getall.out", newProcessGroup: true)
        var status: Int32 = 0
        waitpid(getAll, &status, 0)
        #expect(readText(dir + "/getall.out").contains("'HasAccelerometer': <true>"), "\(readText(dir + "/getall.out")) \(readText(dir + "/getall.err"))")
        #expect(readText(dir + "/getall.out").contains("'AccelerometerOrientation': <'undefined'>"))
        #expect(sensorActive() == false, "Get does not claim")

        // Two claimers; one releases, the replay runs on; the other leaves without releasing.
        let a = try BusClient(address: bus.address), b = try BusClient(address: bus.address)
        #expect(a.call("ClaimAccelerometer") == nil)
        #expect(awaitActive(true), "a D-Bus claim alone starts the replay")
        #expect(b.call("ClaimAccelerometer") == nil)
        #expect(a.call("ClaimAccelerometer") == nil, "claiming twice is one claim")
        #expect(a.call("ReleaseAccelerometer") == nil)
        #expect(sensorActive() == true, "b still claims")
        #expect(b.call("ClaimLight") == nil && b.call("ReleaseLight") == nil && b.call("ClaimProximity") == nil, "no-op claims succeed")
        // Wrong argument types: an error for that call; the daemon and the claim live on.
        #expect(b.call("ClaimAccelerometer", stringArgument: "please") == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(b.string("AccelerometerTilt") != nil)
        b.close()
        #expect(awaitActive(false), "a claimer that left the bus is released")

        // The lock holds AccelerometerOrientation while the detector goes on.
        let c = try BusClient(address: bus.address)
        #expect(c.call("ClaimAccelerometer") == nil)
        let waitForInPlane = monotonicNow() + 20
        while monotonicNow() < waitForInPlane, c.string("AccelerometerOrientation") == "undefined" { usleep(50_000) }
        let held = c.string("AccelerometerOrientation")
        #expect(held != "undefined" && held != nil)
        let admin = connectUnix(socket)
        _ = readLine(admin, timeout: 5)
        sendLine(admin, "{\"op\":\"lock\"}")
        _ = readLine(admin, timeout: 5)
        sendLine(admin, "{\"op\":\"subscribe\"}")
        // Until the detector has turned to an in-plane orientation other than the held one
        // (the replay at 4× does within seconds; 30 s is only a deadline). `mirror` follows
        // the events as an unlocked facade would; exact once an in-plane event has been seen.
        var mirror = SensorProxyState(hasAccelerometer: true)
        func orientationEvent(_ line: String) -> DeviceOrientation? {
            guard line.contains("\"type\":\"orientation\""),
                  let name = line.split(separator: "\"").dropFirst().first(where: { DeviceOrientation(rawValue: String($0)) != nil })
            else { return nil }
            return DeviceOrientation(rawValue: String(name))
        }
        var changesWhileLocked = 0
        var turned = false
        let deadline = monotonicNow() + 30
        while !turned, monotonicNow() < deadline, let line = readLine(admin, timeout: max(0, deadline - monotonicNow())) {
            guard let device = orientationEvent(line) else { continue }
            changesWhileLocked += 1
            mirror.update(device: device, locked: false)
            #expect(c.string("AccelerometerOrientation") == held, "held while locked: \(line)")
            turned = mirror.orientation != "undefined" && mirror.orientation != held
        }
        #expect(turned, "the detector went on while locked (\(changesWhileLocked) changes)")
        #expect(c.string("AccelerometerOrientation") == held)
        // Unlocking publishes the current orientation at once, and it follows the detector again.
        sendLine(admin, "{\"op\":\"unlock\"}")
        let released = monotonicNow() + 10
        while monotonicNow() < released, c.string("AccelerometerOrientation") != mirror.orientation {
            if let line = readLine(admin, timeout: 0.05), let device = orientationEvent(line) { mirror.update(device: device, locked: false) }
        }
        #expect(c.string("AccelerometerOrientation") == mirror.orientation, "unlock releases the held value")
        close(admin)

        // The bus goes away: logged, and the socket keeps serving.
        bus.stop()
        #expect(Self.waitForText(dir + "/daemon.err") { $0.contains("lost the system bus") }, "\(readText(dir + "/daemon.err"))")
        #expect(sensorActive() != nil, "the socket still answers")
        c.close()
        a.close()
    }
}

/// `orientationctl replay`'s orientation names.
private struct DeviceOrientationName {
    let orientation: DeviceOrientation
    init?(rawValue: String) {
        guard let value = DeviceOrientation(rawValue: rawValue) else { return nil }
        orientation = value
    }
}

extension StringProtocol {
    func trimmingCharacters() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
