import ArgumentParser
import OrientationClient
import OrientationCore

/// `orientationctl monitor-sensor` (also run as `monitor-sensor`): iio-sensor-proxy's
/// `monitor-sensor` output for the accelerometer, from orientationd's socket, for the scripts
/// that parse it.
///
/// The lines are those of Debian's monitor-sensor (iio-sensor-proxy 3.0), byte for byte, with
/// the values the D-Bus facade would publish (``SensorProxyState``: face-up and face-down keep
/// the last in-plane orientation; the system rotation lock holds it). Unlike the original, each
/// line is flushed as it is printed, so `monitor-sensor | while read …` needs no `stdbuf`.
struct MonitorSensor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor-sensor",
        abstract: "Print orientation changes as iio-sensor-proxy's monitor-sensor does (for scripts that parse it).",
        discussion: """
        Prints "    Accelerometer orientation changed: left-up" and the other lines of \
        iio-sensor-proxy's monitor-sensor, with its names (normal, bottom-up, left-up, right-up, \
        undefined), from orientationd's socket instead of D-Bus. Runs until interrupted, \
        reconnecting when the daemon restarts. Installed as `monitor-sensor`, it is that command.
        """
    )

    @OptionGroup var connection: ClientOptions

    func run() async throws {
        var output = OutputBuffer()
        var lines = MonitorSensorLines()
        output.appendLine(MonitorSensorLines.waiting)
        output.flush()
        for await update in connection.client.updates(reconnect: .default) {
            for line in lines.lines(for: update) { output.appendLine(line) }
            output.flush()
        }
    }
}

/// The pure part of ``MonitorSensor``: which monitor-sensor lines an update prints.
struct MonitorSensorLines {
    static let waiting = "    Waiting for iio-sensor-proxy to appear"
    private var state = SensorProxyState(hasAccelerometer: true)
    /// Connected now: a failed reconnect attempt is not another "vanished".
    private var appeared = false

    mutating func lines(for update: OrientationUpdate) -> [String] {
        switch update {
        case .connected(let current):
            // The facade's state starts afresh with the daemon's (it may have restarted).
            state = SensorProxyState(hasAccelerometer: true)
            appeared = true
            state.update(device: current.orientation, locked: current.locked)
            return ["+++ iio-sensor-proxy appeared", "=== Has accelerometer (orientation: \(state.orientation))",
                    "=== No ambient light sensor", "=== No proximity sensor"]
        case .orientation(let current), .lock(let current):
            let before = state.orientation
            state.update(device: current.orientation, locked: current.locked)
            return state.orientation == before ? [] : ["    Accelerometer orientation changed: \(state.orientation)"]
        case .sensor:
            // iio-sensor-proxy's monitor-sensor prints nothing for these.
            return []
        case .disconnected:
            defer { appeared = false }
            return appeared ? ["--- iio-sensor-proxy vanished, waiting for it to appear"] : []
        }
    }
}
