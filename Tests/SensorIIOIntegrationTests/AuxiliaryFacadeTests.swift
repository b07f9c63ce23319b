import Glibc
import Testing
import TestSupport

/// Issue 17 on the D-Bus facade: light and proximity served as iio-sensor-proxy serves them, to
/// clients that do what gnome-settings-daemon's power plugin (claim the light sensor, read
/// `LightLevel`, follow its changes) and phosh (claim proximity during a call, react to
/// `ProximityNear`) do. The claiming client that follows changes is Debian's real
/// `monitor-sensor` (it claims light and proximity, and prints each PropertiesChanged).
extension SensorIIOIntegrationTests {
    @Test(.enabled(if: facadeToolsAvailable, "needs dbus-daemon and Debian's iio-sensor-proxy (make setup)"))
    func lightAndProximityServeGsdPowerAndPhoshOverDBus() throws {
        let testbed = Testbed()
        let light = FakeAuxiliaryDevice.iio(1, name: "als", attributes: ["in_illuminance_input": "10"])
        let proximity = FakeAuxiliaryDevice.iio(2, name: "prox", attributes: ["in_proximity_raw": "0", "in_proximity_nearlevel": "128"])
        try testbed.add(light.description)
        try testbed.add(proximity.description)
        let bus = try PrivateSystemBus()
        let log = bus.directory + "/daemon.err"
        let daemon = try spawn([Self.productsDirectory + "/orientationd", "--dbus", "--socket", bus.directory + "/d.sock", "--log-level", "info"],
                               environment: bus.inheritedEnvironment, stderr: log, newProcessGroup: true)
        defer { _ = stopProcess(daemon) }
        #expect(Self.waitForText(log) { $0.contains("serving net.hadess.SensorProxy") }, "\(readText(log))")
        let client = try BusClient(address: bus.address)
        defer { client.close() }
        // What GNOME Settings reads before it shows "Automatic Screen Brightness": no claim needed.
        #expect(client.bool("HasAmbientLight") == true)
        #expect(client.bool("HasProximity") == true)
        #expect(client.bool("HasAccelerometer") == false)
        #expect(client.string("LightLevelUnit") == "lux")
        // gsd-power: ClaimLight, then LightLevel at once; the claim is answered with a reading.
        #expect(client.call("ClaimLight") == nil)
        #expect(client.double("LightLevel") == 10, "the claim's reply came before the first reading")
        // phosh: ClaimProximity when a call starts; far now.
        #expect(client.call("ClaimProximity") == nil)
        #expect(client.bool("ProximityNear") == false)

        // A client that follows PropertiesChanged: Debian's monitor-sensor.
        let output = bus.directory + "/monitor.out"
        let monitor = try spawn(["/usr/bin/monitor-sensor"], environment: bus.clientEnvironment, stderr: bus.directory + "/monitor.err",
                                stdout: output, newProcessGroup: true)
        defer { _ = stopProcess(monitor, SIGKILL) }
        #expect(Self.waitForText(output) { $0.contains("=== Has proximity sensor") }, "\(readText(output))")
        testbed.setAttribute(light.syspath, "in_illuminance_input", "300\n")
        #expect(Self.waitForText(output) { $0.contains("Light changed: 300.000000 (lux)") }, "\(readText(output))")
        #expect(waitUntil(timeout: 5, every: 0.05) { client.double("LightLevel") == 300 })
        // A cheek: near at once above the near level; a wobble just under it stays near.
        testbed.setAttribute(proximity.syspath, "in_proximity_raw", "200\n")
        #expect(Self.waitForText(output) { $0.contains("Proximity value changed: 1") }, "\(readText(output))")
        #expect(waitUntil(timeout: 5, every: 0.05) { client.bool("ProximityNear") == true })
        testbed.setAttribute(proximity.syspath, "in_proximity_raw", "120\n")
        testbed.setAttribute(proximity.syspath, "in_proximity_raw", "0\n")
        #expect(Self.waitForText(output) { $0.contains("Proximity value changed: 0") }, "\(readText(output))")
        #expect(Self.count("Proximity value changed", in: readText(output)) == 2, "\(readText(output))")
        // Every claim released (monitor-sensor leaves the bus, the client releases): the sensors
        // close, and the log says each was opened once.
        _ = stopProcess(monitor, SIGKILL)
        #expect(client.call("ReleaseLight") == nil && client.call("ReleaseProximity") == nil)
        #expect(Self.count("opened ambient light sensor", in: readText(log)) == 1, "\(readText(log))")
        #expect(Self.count("opened proximity sensor", in: readText(log)) == 1, "\(readText(log))")
    }
}
