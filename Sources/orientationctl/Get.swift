import ArgumentParser
import OrientationClient

/// `orientationctl get`: the current state without subscribing.
struct Get: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the current orientation without subscribing (the sensor stays closed if nobody listens).",
        discussion: """
        On a convertible whose posture someone is reading (a posture subscriber, the tablet-mode \
        switch), also the posture with the hinge angle of the last reading (not the one it was \
        decided at), and while the posture is held, for how long and why: \
        `posture: laptop (hinge 92°), held 12 s (hinge-vertical)`. --json: the `posture` member \
        object of docs/PROTOCOL.md (`hinge`, `hold`, `held_for`).
        """
    )

    @OptionGroup var connection: ClientOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        let snapshot: OrientationClient.Snapshot
        do {
            snapshot = try await connection.client.get()
        } catch {
            throw CleanExit.message("\(error)", failing: true)
        }
        let state = snapshot.state
        if json {
            print(UpdateFormat.json(type: "state", state, extra: [
                ("age", snapshot.age.map { .number($0) } ?? .null), ("sensor-active", .bool(snapshot.sensorActive)),
                ("subscribers", .number(Double(snapshot.subscribers))),
            ] + snapshot.sensors.map { ($0.kind.rawValue, .object($0.members)) }
              + (snapshot.posture.map { [("posture", .object($0.members))] } ?? [])))
            return
        }
        print("orientation: \(state.orientation.rawValue)")
        print("previous:    \(state.previous.rawValue)")
        print("locked:      \(state.locked ? "yes" : "no")")
        print("changed:     \(snapshot.age.map { "orientation \(EventFormat.fixed($0, decimals: 1)) s ago" } ?? "never")")
        // An older daemon says only whether the sensor is open.
        print("sensor:      \(state.sensor?.summary ?? (snapshot.sensorActive ? "open" : "closed (nobody subscribes)"))")
        print("subscribers: \(snapshot.subscribers)")
        // Last known values: `get` opens nothing, so a sensor nobody subscribes to shows its last reading.
        for sensor in snapshot.sensors { print("\("\(sensor.kind):".padding(to: 13))\(ReadingFormat.value(sensor))") }
        // A convertible's posture as the daemon measures it now (only while someone reads it).
        if let posture = snapshot.posture, posture.present { print("posture:     \(PostureEventFormat.describe(posture))") }
    }
}
