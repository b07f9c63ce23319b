import AmbientSensorCore
import ArgumentParser
import OrientationClient
import OrientationCore
import OrientationProtocol
import SensorProxyModel

/// `orientationctl monitor-sensor` (also run as `monitor-sensor`): iio-sensor-proxy's
/// `monitor-sensor` output for the accelerometer, from orientationd's socket, for the scripts
/// that parse it.
///
/// The lines are those of iio-sensor-proxy's monitor-sensor, byte for byte: 3.9's by default
/// (the accelerometer with its tilt, every sensor watched without flags), 3.0's (Debian
/// bookworm's) with `--format 3.0`; with the values the D-Bus facade would publish
/// (``SensorProxyState``: face-up and face-down keep the last in-plane orientation; the system
/// rotation lock holds it). The socket carries the seven orientations, not the samples' tilt:
/// the tilt printed here is `vertical`, `face-up` or `face-down` from the orientation (the
/// facade's `AccelerometerTilt` also says `tilted-up` and `tilted-down`). Unlike the original,
/// each line is flushed as it is printed, so `monitor-sensor | while read …` needs no `stdbuf`.
struct MonitorSensor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor-sensor",
        abstract: "Print sensor changes as iio-sensor-proxy's monitor-sensor does (for scripts that parse it).",
        discussion: """
        Prints "    Accelerometer orientation changed: left-up", "    Light changed: 312.500000 (lux)", \
        "    Proximity value changed: 1", "    Compass heading changed: 271.000000" and the other lines of \
        iio-sensor-proxy's monitor-sensor, with its names (normal, bottom-up, left-up, right-up, \
        undefined), from orientationd's socket instead of D-Bus. Without flags it watches \
        every sensor (as monitor-sensor 3.9 does); --accel, --light, --proximity and --compass \
        choose, --all takes every one. The accelerometer's lines carry its tilt ("Tilt changed: \
        face-up"; from the orientation: vertical, face-up, face-down), as 3.9's do; --format 3.0 \
        prints Debian bookworm's monitor-sensor (3.0) lines instead, without the tilt, and \
        without flags watches all but the compass, as it did. Runs until interrupted, \
        reconnecting when the daemon restarts. Installed as `monitor-sensor`, it is that command.
        """,
        // Run as `monitor-sensor`, this is the root command: --version must answer (issue 27: it
        // exited 64, unknown option).
        version: "monitor-sensor (orientationd \(OrientationProtocol.softwareVersion))"
    )

    @OptionGroup var connection: ClientOptions

    @Flag(name: [.short, .long], help: "Monitor every sensor.")
    var all = false
    @Flag(help: "Monitor the accelerometer.")
    var accel = false
    @Flag(help: "Monitor the ambient light sensor.")
    var light = false
    @Flag(help: "Monitor the proximity sensor.")
    var proximity = false
    @Flag(help: "Monitor the compass.")
    var compass = false
    @Option(help: "The monitor-sensor whose lines to print: 3.9 (the newest) or 3.0 (Debian bookworm's).")
    var format: MonitorSensorLines.Format = .v3_9

    /// The sensors watched: the flags, or monitor-sensor's default (3.9: all; 3.0: all but the compass).
    var watched: MonitorSensorLines.Watched {
        if all { return .init(accel: true, kinds: AuxiliarySensorKind.allCases) }
        if !accel && !light && !proximity && !compass {
            return .init(accel: true, kinds: format == .v3_0 ? [.light, .proximity] : AuxiliarySensorKind.allCases)
        }
        return .init(accel: accel, kinds: [(light, AuxiliarySensorKind.light), (proximity, .proximity), (compass, .compass)].compactMap { $0.0 ? $0.1 : nil })
    }

    func run() async throws {
        var output = OutputBuffer()
        let watched = self.watched
        var lines = MonitorSensorLines(watched: watched, format: format)
        output.appendLine(MonitorSensorLines.waiting)
        output.flush()
        let topics = (watched.accel ? [SubscriptionTopic.orientation] : []) + watched.kinds.map(SubscriptionTopic.init)
        for await update in connection.client.updates(reconnect: .default, sensorChanges: true, topics: topics) {
            for line in lines.lines(for: update) { output.appendLine(line) }
            output.flush()
        }
    }
}

/// The pure part of ``MonitorSensor``: which monitor-sensor lines an update prints.
///
/// On connecting, the `=== Has …`/`=== No …` line of each watched sensor, in monitor-sensor's
/// order (accelerometer, light, proximity, compass); a light, proximity or compass sensor that
/// is present but has no reading yet waits for its first one (the peer answers a claim with a
/// reading already taken), or for the first change line, whichever comes first (then it shows
/// 3.0's placeholder). Then one line per change, and `+++`/`---` lines when a sensor appears
/// or disappears. Values print as C's `%lf` (six decimals) and `%d`, as the peer's do.
struct MonitorSensorLines {
    struct Watched: Sendable {
        var accel: Bool
        var kinds: [AuxiliarySensorKind]
    }

    /// Whose monitor-sensor: 3.9's lines carry the accelerometer's tilt.
    enum Format: String, ExpressibleByArgument, Sendable {
        case v3_9 = "3.9"
        case v3_0 = "3.0"
    }

    static let waiting = "    Waiting for iio-sensor-proxy to appear"
    let watched: Watched
    let format: Format
    private var state = SensorProxyState(hasAccelerometer: true)
    /// Connected now: a failed reconnect attempt is not another "vanished".
    private var appeared = false
    /// Whether the daemon finds an accelerometer (`nil`: it does not say, a replay or an older daemon).
    private var accelerometerPresent: Bool? = nil
    /// The last state of each watched sensor, and those whose initial line is still due.
    private var sensors: [AuxiliarySensorKind: AuxiliarySensorState] = [:]
    private var initialDue: [AuxiliarySensorKind] = []

    init(watched: Watched = Watched(accel: true, kinds: [.light, .proximity]), format: Format = .v3_0) {
        self.watched = watched
        self.format = format
    }

    mutating func lines(for update: OrientationUpdate) -> [String] {
        switch update {
        case .connected(let current):
            // The facade's state starts afresh with the daemon's (it may have restarted).
            state = SensorProxyState(hasAccelerometer: true)
            appeared = true
            sensors = [:]
            initialDue = watched.kinds
            state.update(device: current.orientation, locked: current.locked)
            accelerometerPresent = current.sensor?.present
            guard watched.accel else { return ["+++ iio-sensor-proxy appeared"] }
            // The peer's line for a machine without one (issue 29: we said "Has" whatever).
            if accelerometerPresent == false { return ["+++ iio-sensor-proxy appeared", "=== No accelerometer"] }
            let tilt = format == .v3_9 ? ", tilt: \(state.tilt)" : ""
            return ["+++ iio-sensor-proxy appeared", "=== Has accelerometer (orientation: \(state.orientation)\(tilt))"]
        case .orientation(let current), .lock(let current):
            let before = state
            state.update(device: current.orientation, locked: current.locked)
            guard watched.accel else { return [] }
            // In the order of the peer's PropertiesChanged handler: orientation, then tilt.
            var lines: [String] = []
            if state.orientation != before.orientation { lines.append("    Accelerometer orientation changed: \(state.orientation)") }
            if format == .v3_9, state.tilt != before.tilt { lines.append("    Tilt changed: \(state.tilt)") }
            return lines.isEmpty ? [] : hold(lines)
        case .reading(let sensor):
            return reading(sensor)
        case .posture:
            return []  // the peer has no posture
        case .sensor(let current):
            // The accelerometer coming or going (hotplug), as the peer's HasAccelerometer change
            // prints it; the sensor's other states have no line in the peer's monitor-sensor.
            guard let present = current.sensor?.present, present != accelerometerPresent else { return [] }
            let before = accelerometerPresent
            accelerometerPresent = present
            guard watched.accel, before != nil else { return [] }
            return hold([present ? "+++ Accelerometer appeared" : "--- Accelerometer disappeared"])
        case .disconnected:
            defer { appeared = false }
            return appeared ? ["--- iio-sensor-proxy vanished, waiting for it to appear"] : []
        }
    }

    private mutating func reading(_ sensor: AuxiliarySensorState) -> [String] {
        guard watched.kinds.contains(sensor.kind) else { return [] }
        let before = sensors[sensor.kind]
        sensors[sensor.kind] = sensor
        if initialDue.contains(sensor.kind) {
            // Initial lines in order: one still due before this one holds it back.
            var lines: [String] = []
            while let next = initialDue.first, let current = sensors[next], !current.present || current.reading != nil {
                lines.append(Self.initialLine(current))
                initialDue.removeFirst()
            }
            return lines
        }
        var lines: [String] = []
        if before?.present != sensor.present {
            lines.append(Self.presenceLine(sensor))
        }
        if sensor.present, let reading = sensor.reading, reading != before?.reading {
            lines.append(Self.changeLine(reading))
        }
        return hold(lines)
    }

    /// `lines`, after any initial lines still due: a change never waits for a sensor that has
    /// not read yet (a broken light sensor must not silence rotation); such a sensor's initial
    /// line shows the peer's placeholder (value 0, far, heading unset), as 3.0 shows it.
    private mutating func hold(_ lines: [String]) -> [String] {
        let initial = initialDue.map { Self.initialLine(sensors[$0] ?? AuxiliarySensorState(kind: $0)) }
        initialDue = []
        return initial + lines
    }

    /// `%lf`: six decimals.
    private static func lf(_ value: Double) -> String { EventFormat.fixed(value, decimals: 6) }

    static func initialLine(_ sensor: AuxiliarySensorState) -> String {
        switch (sensor.kind, sensor.present, sensor.reading) {
        case (_, true, .light(let level, let unit)?): "=== Has ambient light sensor (value: \(lf(level)), unit: \(unit.rawValue))"
        case (_, true, .proximity(let near)?): "=== Has proximity sensor (near: \(near ? 1 : 0))"
        case (_, true, .compass(let heading)?): "=== Has compass (heading: \(lf(heading)))"
        case (.light, true, _): "=== Has ambient light sensor (value: \(lf(0)), unit: lux)"
        case (.proximity, true, _): "=== Has proximity sensor (near: 0)"
        case (.compass, true, _): "=== Has compass (heading: unset)"
        case (.light, false, _): "=== No ambient light sensor"
        case (.proximity, false, _): "=== No proximity sensor"
        case (.compass, false, _): "=== No compass"
        }
    }

    static func presenceLine(_ sensor: AuxiliarySensorState) -> String {
        let name = switch sensor.kind {
        case .light: "Light sensor"
        case .proximity: "Proximity sensor"
        case .compass: "Compass"
        }
        return sensor.present ? "+++ \(name) appeared" : "--- \(name) disappeared"
    }

    static func changeLine(_ reading: AuxiliaryReading) -> String {
        switch reading {
        case .light(let level, let unit): "    Light changed: \(lf(level)) (\(unit.rawValue))"
        case .proximity(let near): "    Proximity value changed: \(near ? 1 : 0)"
        case .compass(let heading): "    Compass heading changed: \(lf(heading))"
        }
    }
}
