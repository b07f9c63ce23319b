import ArgumentParser
import OrientationClient
import OrientationCore
import OrientationProtocol

/// `orientationctl monitor`: live events from the daemon.
struct Monitor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Subscribe and print every orientation change (and rotation-lock change) as it happens.",
        discussion: """
        Prints the current state at once, then one line per change: `time orientation`, or `lock on`/`lock off`, \
        or `sensor absent: why` / `sensor failed: why` when the daemon has no working sensor (and `sensor open` once it has). \
        With --light, --proximity or --compass, also `light 312.5 lux`, `proximity near`/`far` and `compass 271.0` \
        (those sensors are open while it runs). \
        Reconnects when the daemon restarts (the current state is printed again). With --once, exits \
        when the daemon closes the connection instead.
        """
    )

    @OptionGroup var connection: ClientOptions
    @OptionGroup var sensors: TopicOptions

    @Flag(help: "Print one JSON object per line.")
    var json = false

    @Flag(help: "Do not reconnect: exit (status 0) when the daemon closes the connection.")
    var once = false

    @Option(help: "Wait up to this many seconds for the daemon's socket to appear first.")
    var wait: Double = 0

    func validate() throws {
        guard wait >= 0, wait <= SecondsConversion.maximum else {
            throw ValidationError("--wait must be a number of seconds from 0 to 1e9, not \(wait)")
        }
    }

    func run() async throws {
        let client = connection.client
        if wait > 0, !(await waitForDaemon(client, seconds: wait)) {
            throw CleanExit.message("no daemon answered on \(connection.socketPath) within \(wait) s", failing: true)
        }
        var output = OutputBuffer()
        var connectedOnce = false
        var lastFailure: String? = nil
        var sensor: SensorStatus? = nil
        let topics = sensors.topics
        for await update in client.updates(reconnect: once ? .never : .default, sensorChanges: true, topics: topics) {
            switch update {
            case .connected(let state):
                connectedOnce = true
                output.appendLine(json ? UpdateFormat.json(type: "current", state)
                                       : "\(UpdateFormat.time(state)) \(state.orientation.rawValue)\(state.locked ? " (rotation locked)" : "")")
                if !json, let line = UpdateFormat.sensorLine(state, after: nil) { output.appendLine(line) }
                sensor = state.sensor
            case .orientation(let state):
                output.appendLine(json ? UpdateFormat.json(type: "orientation", state) : "\(UpdateFormat.time(state)) \(state.orientation.rawValue)")
            case .lock(let state):
                output.appendLine(json ? UpdateFormat.json(type: "lock", state) : "lock \(state.locked ? "on" : "off")")
            case .sensor(let state):
                if json {
                    output.appendLine(UpdateFormat.json(type: "sensor", state))
                } else if let line = UpdateFormat.sensorLine(state, after: sensor) {
                    output.appendLine(line)
                }
                sensor = state.sensor
            case .reading(let sensor):
                output.appendLine(json ? ReadingFormat.json(sensor) : ReadingFormat.text(sensor))
            case .posture(let posture):
                output.appendLine(json ? ServerMessage.posture(posture).line : "posture \(PostureEventFormat.describe(posture))")
            case .disconnected(let reason):
                // Never connected with --once: said once, with the reason, below (issue 27: the
                // error came twice, the second time without why).
                if connectedOnce || !once { printError("orientationctl: disconnected: \(reason)\(once ? "" : "; reconnecting")") }
                lastFailure = String(describing: reason)
            }
            output.flush()
        }
        if !connectedOnce {
            throw CleanExit.message(lastFailure ?? "cannot connect to \(connection.socketPath)", failing: true)
        }
    }
}
