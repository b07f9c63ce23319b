import ArgumentParser
import Glibc
import OrientationClient
import OrientationCore

/// `--socket`, shared by every command that talks to the daemon.
struct ClientOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The daemon's socket (default: $ORIENTATIOND_SOCKET, else \(OrientationProtocol.defaultSocketPath)).",
                               valueName: "path"))
    var socket: String?

    var socketPath: String {
        socket ?? getenv("ORIENTATIOND_SOCKET").map { String(cString: $0) } ?? OrientationProtocol.defaultSocketPath
    }

    var client: OrientationClient { OrientationClient(socketPath: socketPath) }
}

/// The JSON form of a state update printed by `monitor --json` and `follow --json`.
enum UpdateFormat {
    static func json(type: String, _ state: OrientationState, extra: [(String, JSONValue)] = []) -> String {
        var members: [(String, JSONValue)] = [("type", .string(type)), ("orientation", .string(state.orientation.rawValue)),
                                              ("previous", .string(state.previous.rawValue)),
                                              ("time", state.time.map { .number($0) } ?? .null),
                                              ("seq", .number(Double(state.seq))), ("locked", .bool(state.locked))]
        if let sensor = state.sensor {
            members += [("sensor", .string(sensor.state.rawValue)), ("sensor-reason", sensor.reason.map { .string($0) } ?? .null)]
        }
        members += extra
        return JSONWriter.serialize(.object(members))
    }

    /// `sensor absent: no display accelerometer found; see orientationd --list-sensors`, for the
    /// states a user must hear about (absent, failed), and for `open` after one of them; `nil`
    /// otherwise (an old server, or a sensor opening and closing as clients come and go).
    static func sensorLine(_ state: OrientationState, after previous: SensorStatus?) -> String? {
        guard let sensor = state.sensor else { return nil }
        switch sensor.state {
        case .absent, .failed: return sensor == previous ? nil : "sensor \(sensor.summary)"
        case .open: return previous.map { [.absent, .failed].contains($0.state) } == true ? "sensor open" : nil
        case .closed, .opening, .ended: return nil
        }
    }

    static func time(_ state: OrientationState) -> String {
        state.time.map { EventFormat.seconds($0) } ?? "-"
    }
}

/// Waits for the daemon's socket to accept a connection, up to `seconds`.
func waitForDaemon(_ client: OrientationClient, seconds: Double) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: .clampedSeconds(seconds))
    while true {
        if let connection = try? await client.connect() {
            await connection.close()
            return true
        }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(50))
    }
}
