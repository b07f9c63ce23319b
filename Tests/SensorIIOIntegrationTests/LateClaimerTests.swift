import Glibc
import OrientationCore
@testable import SensorProxyBus
import Testing
import TestSupport
import SensorProxyModel
import AmbientSensorCore

/// Issue 42: a client whose GLib proxy was made while a sensor was closed, and that claims the
/// sensor after another client opened it, holds the sensor's values as `Get` returns them once
/// its claim has been answered — for every kind — and a client whose proxy is up to date is
/// sent nothing it already holds. The same for a claim that opens the sensor again, whose first
/// reading repeats the value kept while it was closed. The clients are real `GDBusProxy`s (Debian's python3-gi), the
/// way gsd-power, mutter and GeoClue hold one: the proxy loads every property when made and
/// then learns only from PropertiesChanged.
extension SensorIIOIntegrationTests {
    static var glibAvailable: Bool {
        access("/usr/bin/python3", X_OK) == 0
            && access("/usr/lib/python3/dist-packages/gi/__init__.py", R_OK) == 0
    }

    /// The clients, each on a connection of its own (its own unique name): `late` makes its
    /// proxies before anyone claims; `early` claims every sensor; then `late` claims each, and a
    /// `current` client (proxies made after the sensors opened) claims each. After each claim,
    /// one `Ping` round trip (signals sent after the claim's reply arrive before the ping's
    /// reply) and the main context drained; then the cache, what `Get` (and `GetAll`) return to a
    /// `reader` client, and how many PropertiesChanged the claim brought. One JSON line per
    /// (client, sensor). Before each claim the late client reads the sensor's properties by hand
    /// (`Get` on its own connection), which must not count as its proxy holding them.
    static let glibClaimers = #"""
        import json, sys
        import gi
        gi.require_version('Gio', '2.0')
        from gi.repository import Gio, GLib

        ADDRESS = sys.argv[1]
        NAME = 'net.hadess.SensorProxy'
        OBJECTS = {
            'Accelerometer': ('/net/hadess/SensorProxy', 'net.hadess.SensorProxy',
                              ['HasAccelerometer', 'AccelerometerOrientation', 'AccelerometerTilt']),
            'Light': ('/net/hadess/SensorProxy', 'net.hadess.SensorProxy', ['HasAmbientLight', 'LightLevel', 'LightLevelUnit']),
            'Proximity': ('/net/hadess/SensorProxy', 'net.hadess.SensorProxy', ['HasProximity', 'ProximityNear']),
            'Compass': ('/net/hadess/SensorProxy/Compass', 'net.hadess.SensorProxy.Compass', ['HasCompass', 'CompassHeading']),
        }
        context = GLib.MainContext.default()

        def drain():
            while context.pending():
                context.iteration(False)

        class Client:
            def __init__(self):
                flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
                self.connection = Gio.DBusConnection.new_for_address_sync(ADDRESS, flags, None, None)
                self.proxies = {}
                self.signals = {}
                for path, interface, _ in OBJECTS.values():
                    if path in self.proxies:
                        continue
                    proxy = Gio.DBusProxy.new_sync(self.connection, Gio.DBusProxyFlags.NONE, None, NAME, path, interface, None)
                    self.signals[path] = 0
                    proxy.connect('g-properties-changed', self.changed, path)
                    self.proxies[path] = proxy
                drain()

            def changed(self, proxy, changed, invalidated, path):
                self.signals[path] += 1

            def cached(self, sensor):
                path, _, names = OBJECTS[sensor]
                return {name: self.proxies[path].get_cached_property(name).unpack() for name in names}

            def get(self, sensor):
                path, interface, names = OBJECTS[sensor]
                values = {}
                for name in names:
                    reply = self.connection.call_sync(NAME, path, 'org.freedesktop.DBus.Properties', 'Get',
                                                      GLib.Variant('(ss)', (interface, name)), None, Gio.DBusCallFlags.NONE, 5000, None)
                    values[name] = reply.unpack()[0]
                return values

            def get_all(self, sensor):
                path, interface, names = OBJECTS[sensor]
                reply = self.connection.call_sync(NAME, path, 'org.freedesktop.DBus.Properties', 'GetAll',
                                                  GLib.Variant('(s)', (interface,)), None, Gio.DBusCallFlags.NONE, 5000, None)
                values = reply.unpack()[0]
                return {name: values[name] for name in names}

            def claim(self, sensor):
                path, interface, _ = OBJECTS[sensor]
                before = self.signals[path]
                self.connection.call_sync(NAME, path, interface, 'Claim' + sensor, None, None, Gio.DBusCallFlags.NONE, 5000, None)
                self.connection.call_sync(NAME, path, 'org.freedesktop.DBus.Peer', 'Ping', None, None, Gio.DBusCallFlags.NONE, 5000, None)
                drain()
                return self.signals[path] - before

        late = Client()
        held = Client()
        made = {sensor: late.cached(sensor) for sensor in OBJECTS}
        early = Client()
        reader = Client()
        for sensor in OBJECTS:
            early.claim(sensor)
        for sensor in OBJECTS:
            # Read by hand on the late client's own connection: its proxy's cache stays as it was.
            late.get(sensor)
            signals = late.claim(sensor)
            print(json.dumps({'client': 'late', 'sensor': sensor, 'made': made[sensor], 'cached': late.cached(sensor),
                              'get': reader.get(sensor), 'signals': signals}), flush=True)
        current = Client()
        for sensor in OBJECTS:
            now = current.cached(sensor)
            signals = current.claim(sensor)
            print(json.dumps({'client': 'current', 'sensor': sensor, 'made': now, 'cached': current.cached(sensor),
                              'get': reader.get_all(sensor), 'signals': signals}), flush=True)
        # Every claim goes with its connection; once the test has seen every sensor close, a client
        # whose proxy was made at the start opens each again: its claim is held until the first
        # reading, which repeats the value kept while closed (so no change is published).
        for client in (early, late, current):
            client.connection.close_sync(None)
        print('released', flush=True)
        with open(sys.argv[2]) as go:
            go.readline()
        for sensor in OBJECTS:
            signals = held.claim(sensor)
            print(json.dumps({'client': 'held', 'sensor': sensor, 'made': made[sensor], 'cached': held.cached(sensor),
                              'get': reader.get(sensor), 'signals': signals}), flush=True)
        """#

    @Test(.enabled(if: PrivateSystemBus.available && glibAvailable, "needs dbus-daemon and python3-gi (make setup)"))
    func aLateClaimerHoldsWhatGetReturnsForEveryKind() throws {
        let testbed = Testbed()
        var accelerometer = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        accelerometer.buffered = false
        accelerometer.raw = (0, -100, 0)  // portrait: "normal", tilt "vertical"
        try testbed.add(accelerometer.description)
        // Values that differ from what the facade shows before any reading (0 lux, far, 0°).
        try testbed.add(FakeAuxiliaryDevice.iio(1, name: "als-prox-magn", attributes: [
            "in_illuminance_input": "312", "in_proximity_raw": "200", "in_proximity_nearlevel": "128",
            "in_rot_from_north_magnetic_tilt_comp_raw": "90",
        ]).description)
        let bus = try PrivateSystemBus()
        let dir = bus.directory
        let daemon = try spawn([Self.productsDirectory + "/orientationd", "--dbus", "--socket", dir + "/d.sock", "--log-level", "debug"],
                               environment: bus.inheritedEnvironment, stderr: dir + "/daemon.err", newProcessGroup: true)
        defer { _ = stopProcess(daemon) }
        #expect(Self.waitForText(dir + "/daemon.err") { $0.contains("serving net.hadess.SensorProxy") }, "\(readText(dir + "/daemon.err"))")

        writeBytes(dir + "/claimers.py", Array(Self.glibClaimers.utf8))
        #expect(mkfifo(dir + "/go", 0o600) == 0)
        let clients = try spawn(["/usr/bin/python3", dir + "/claimers.py", bus.address, dir + "/go"], environment: bus.clientEnvironment,
                                stderr: dir + "/claimers.err", stdout: dir + "/claimers.out", newProcessGroup: true)
        defer { _ = stopProcess(clients, SIGKILL) }
        #expect(Self.waitForText(dir + "/claimers.out") { $0.contains("released") }, "\(readText(dir + "/claimers.err"))")
        // Every sensor closed (the release delay past): then the held client may claim.
        #expect(Self.waitForText(dir + "/daemon.err") { log in
            ["closed ambient light sensor", "closed proximity sensor", "closed compass", "sensor closed"].allSatisfy { log.contains($0) }
        }, "\(readText(dir + "/daemon.err"))")
        let go = open(dir + "/go", O_WRONLY)
        #expect(go >= 0)
        _ = write(go, "go\n", 3)
        close(go)
        var status: Int32 = 0
        waitpid(clients, &status, 0)
        let output = readText(dir + "/claimers.out")
        #expect(status == 0, "\(output) \(readText(dir + "/claimers.err")) \(readText(dir + "/daemon.err"))")
        let lines = output.split(separator: "\n").map(String.init).filter { $0 != "released" }
        #expect(lines.count == 12, "\(output)")
        for line in lines {
            let record = try JSONRecord(line)
            let what = "\(record.client) \(record.sensor): \(line)"
            // The cache holds what Get returns, once the claim is answered.
            #expect(record.cached == record.get, "\(what)")
            if record.client == "late" {
                // The proxy was made before the sensor opened: it held other values, and the
                // claim brought the new ones (one signal per object the sensor's properties are on).
                #expect(record.made != record.get, "the test's values must differ from the closed sensor's: \(what)")
                #expect(record.signals == 1, "\(what)")
            } else if record.client == "held" {
                // The claim opened the sensor and was answered at its first reading.
                #expect(record.made != record.get, "\(what)")
                #expect(record.signals >= 1, "\(what)")
            } else {
                // Made while open: nothing stale, nothing sent.
                #expect(record.made == record.get, "\(what)")
                #expect(record.signals == 0, "a claimer holding every value was sent them again: \(what)")
            }
        }
    }
}

extension SensorIIOIntegrationTests {
    /// ``SensorProxyProperties`` crosses to the shim as its raw value: each bit must be the
    /// shim's `OD_PROP_*` of the same property.
    @Test func sensorProxyPropertiesAreTheShimsBits() {
        for (property, bit) in SensorProxySession.shimBits {
            #expect(property.rawValue == UInt32(bit), "\(property)")
        }
        #expect(SensorProxySession.shimBits.reduce(SensorProxyProperties()) { $0.union($1.0) } == .all)
    }

    /// The socket's side of issue 42: a client that subscribes while the sensors are open (and
    /// their readings in, none changing since) gets each topic's current state at once, right
    /// after `subscribed`, as the first subscriber did.
    @Test func aLateSubscriberGetsEveryTopicsStateAtOnce() async throws {
        let testbed = Testbed()
        var accelerometer = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        accelerometer.buffered = false
        accelerometer.raw = (0, -100, 0)
        try testbed.add(accelerometer.description)
        try testbed.add(FakeAuxiliaryDevice.iio(1, name: "als-prox-magn", attributes: [
            "in_illuminance_input": "312", "in_proximity_raw": "200", "in_proximity_nearlevel": "128",
            "in_rot_from_north_magnetic_tilt_comp_raw": "90",
        ]).description)
        let (service, run, first) = try await Self.startAuxiliaryDaemon()
        defer { close(first) }
        let subscribe = "{\"op\":\"subscribe\",\"topics\":[\"orientation\",\"light\",\"proximity\",\"compass\"],\"id\":1}"
        sendLine(first, subscribe)
        #expect(Self.awaitMessages(first, [("orientation", "\"portrait\""), ("light", "\"level\":312"), ("proximity", "\"near\":true"),
                                           ("compass", "\"heading\":90")]))
        let late = connectUnix(service.server.configuration.socketPath)
        defer { close(late) }
        #expect(readLine(late, timeout: 5)?.contains("\"type\":\"hello\"") == true)
        sendLine(late, subscribe)
        // Nothing changes from here on: what the late client reads is what subscribing sent it.
        let answer = (0..<4).compactMap { _ in readLine(late, timeout: 5) }
        #expect(answer.count == 4, "\(answer)")
        #expect(answer.first?.contains("\"type\":\"subscribed\"") == true && answer.first?.contains("\"orientation\":\"portrait\"") == true,
                "\(answer)")
        for (type, fragment) in [("light", "\"level\":312"), ("proximity", "\"near\":true"), ("compass", "\"heading\":90")] {
            #expect(answer.contains { $0.contains("\"type\":\"\(type)\"") && $0.contains(fragment) }, "\(type): \(answer)")
        }
        try await run.stop()
    }
}

/// One line of the GLib claimers' output, read without Foundation: the values are compared as
/// the JSON text Python printed for them (same keys, same order, same formatting).
private struct JSONRecord {
    let client: String
    let sensor: String
    let made: String
    let cached: String
    let get: String
    let signals: Int

    init(_ line: String) throws {
        func field(_ key: String) throws -> String {
            guard let start = Substring(line).range(ofText: "\"\(key)\": ") else { throw TestbedError(description: "no \(key) in \(line)") }
            var depth = 0
            var inString = false
            var end = start.upperBound
            while end < line.endIndex {
                let c = line[end]
                if c == "\"" { inString.toggle() }
                if !inString {
                    if c == "{" { depth += 1 }
                    if c == "}" { if depth == 0 { break }; depth -= 1 }
                    if c == ",", depth == 0 { break }
                }
                end = line.index(after: end)
            }
            return String(line[start.upperBound..<end])
        }
        client = try field("client").replacingAll("\"", with: "")
        sensor = try field("sensor").replacingAll("\"", with: "")
        made = try field("made")
        cached = try field("cached")
        get = try field("get")
        signals = Int(try field("signals")) ?? -1
    }
}
