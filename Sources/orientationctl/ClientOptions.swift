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
        members += extra
        return JSONWriter.serialize(.object(members))
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
