import Glibc
import OrientationCore
import OrientationDaemon
import OrientationProtocol
import Testing
import TestSupport
import AmbientSensorCore

/// Issue 29: light, proximity and compass open and close as the accelerometer does. A client
/// looping claim/release (over D-Bus or the socket) used to start a reader thread per claim
/// (3,338 threads in 10 s from one D-Bus connection); with the release delay a loop costs one
/// open per kind, and the sensor closes once the loop stops.
extension SensorIIOIntegrationTests {
    static func allThreeKinds() -> (description: String, syspath: String) {
        FakeAuxiliaryDevice.iio(0, name: "als-prox-magn", attributes: [
            "in_illuminance_input": "312", "in_proximity_raw": "10", "in_proximity_nearlevel": "1000",
            "in_rot_from_north_magnetic_tilt_comp_raw": "90",
        ])
    }

    @Test func aClaimReleaseLoopOpensEachKindOnceAndClosesAfterTheDelay() async throws {
        let testbed = Testbed()
        try testbed.add(Self.allThreeKinds().description)
        let (service, run, client) = try await Self.startAuxiliaryDaemon()
        defer { close(client) }
        let auxiliary = try #require(service.auxiliary)
        for kind in AuxiliarySensorKind.allCases {
            let sensor = auxiliary.service(kind)
            #expect(sensor.state.present, "\(kind)")
            for round in 0..<2000 {
                sensor.setClaimed("dbus", true)
                sensor.setClaimed("dbus", false)
                if round % 2 == 0 { sensor.setClaimed("socket", true) } else { sensor.setClaimed("socket", false) }
            }
            sensor.setClaimed("socket", false)
            #expect(sensor.opens == 1, "\(kind): \(sensor.opens) opens for 2000 claim/release pairs")
            #expect(sensor.isReading, "\(kind): released less than the delay ago, still open")
            // Closed once the delay (1 s) has passed with nobody claiming.
            #expect(waitUntil(timeout: 5) { !sensor.isReading }, "\(kind) never closed")
        }
        // A claim after the close opens again (the sensor's loop opens it at once, on its own
        // task: issue 36): one more open, no more.
        auxiliary.light.setClaimed("dbus", true)
        #expect(waitUntil(timeout: 5) { auxiliary.light.isReading } && auxiliary.light.opens == 2, "\(auxiliary.light.opens) opens")
        auxiliary.light.setClaimed("dbus", false)
        try await run.stop()
    }

    /// The same over the socket: 60 connections subscribing and unsubscribing the three topics.
    @Test func socketSubscribeLoopsOpenEachKindOnce() async throws {
        let testbed = Testbed()
        try testbed.add(Self.allThreeKinds().description)
        let (service, run, client) = try await Self.startAuxiliaryDaemon()
        defer { close(client) }
        let auxiliary = try #require(service.auxiliary)
        let path = service.server.configuration.socketPath
        var clients: [Int32] = []
        for _ in 0..<60 {
            let fd = connectUnix(path)
            #expect(fd >= 0)
            _ = readLine(fd, timeout: 5)  // hello
            clients.append(fd)
        }
        for round in 0..<5 {
            for fd in clients {
                sendLine(fd, "{\"op\":\"subscribe\",\"topics\":[\"light\",\"proximity\",\"compass\"],\"id\":\(round)}")
                sendLine(fd, "{\"op\":\"unsubscribe\",\"id\":\(round + 100)}")
            }
        }
        // Every client's last unsubscribe answered: the loop is over.
        for fd in clients {
            #expect(Self.awaitMessage(fd, type: "unsubscribed", containing: "\"id\":104") != nil)
        }
        for kind in AuxiliarySensorKind.allCases {
            #expect(auxiliary.service(kind).opens == 1, "\(kind): \(auxiliary.service(kind).opens) opens")
        }
        #expect(waitUntil(timeout: 5) { AuxiliarySensorKind.allCases.allSatisfy { !auxiliary.service($0).isReading } })
        for fd in clients { close(fd) }
        try await run.stop()
    }
}
