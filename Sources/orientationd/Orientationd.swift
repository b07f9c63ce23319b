import ArgumentParser
import Glibc
import Logging
import OrientationCore
import OrientationProtocol
import OrientationServer
import SensorPipeline
import ServiceLifecycle

/// `orientationd`: publishes device-orientation changes over a Unix socket.
///
/// Wiring only: configuration, the sensor pipeline, the socket server, signals. SIGTERM and
/// SIGINT shut down gracefully (clients get `goodbye`, the socket file is removed).
@main
struct Orientationd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orientationd",
        abstract: "Publish device-orientation events over a Unix socket.",
        discussion: "Clients connect to the socket and speak newline-delimited JSON (docs/PROTOCOL.md); orientationctl is one."
    )

    @Option(help: "Replay a recorded sensor log instead of reading a sensor.")
    var replay: String?

    @Option(help: "Replay speed: a multiple of real time, or max.")
    var speed: String = "1"

    @Flag(help: "Replay the log in a loop.")
    var loop = false

    @Flag(help: "Shut down once a non-looping replay has ended.")
    var exitWhenDone = false

    @Option(help: "The socket path.")
    var socket: String?

    @Option(help: "Permission bits of the socket file, octal (default 0666).")
    var socketMode: String?

    @Option(help: "Group owning the socket file.")
    var socketGroup: String?

    @Option(help: "Members of this group may lock and unlock rotation (root always may).")
    var privilegedGroup: String?

    @Option(name: .customLong("privileged-uid"), help: "A user id that may lock and unlock rotation (repeatable).")
    var privilegedUIDs: [UInt32] = []

    @Option(help: "Configuration file with [detector] and [server] sections.")
    var config: String?

    @Option(name: [.customLong("set"), .customShort("s")], help: ArgumentHelp("Override a detector parameter.", valueName: "name=value"))
    var assignments: [String] = []

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "orientationd")
        let settings = try DaemonSettings(command: self)
        Self.raiseFileLimit(logger: logger)

        guard let replayPath = replay else {
            throw ValidationError("no sensor source: reading IIO sensors arrives with the SensorIIO module; use --replay FILE")
        }
        let source: ReplaySource
        do {
            source = try ReplaySource(path: replayPath, speed: settings.speed, loop: loop)
        } catch {
            throw ValidationError("\(error)")
        }
        logger.info("replaying", metadata: ["log": "\(replayPath)", "samples": "\(source.samples.count)",
                                            "speed": "\(speed)", "loop": "\(loop)"])

        let claims = ClaimRelay()
        let server: OrientationSocketServer
        do {
            server = try await OrientationSocketServer.start(configuration: settings.server, logger: logger,
                                                             listeningSocket: SystemdIntegration.takeListeningSocket(),
                                                             onClaimChange: { claims.forward($0) })
        } catch let error as ServerError {
            throw ValidationError(error.description)
        }
        let hub = server.hub
        let exitWhenDone = self.exitWhenDone
        let pipeline = try SensorPipeline(source: source, configuration: settings.detector, logger: logger) { event in
            switch event {
            case .orientation(let change):
                logger.info("orientation", metadata: ["orientation": "\(change.orientation)", "previous": "\(change.previous)",
                                                      "time": "\(change.time)"])
                hub.publish(orientation: change.orientation, time: change.time)
            case .sensorActive(let active):
                hub.setSensorActive(active)
            case .sensorFailed:
                hub.publish(orientation: .unknown, time: nil)
            case .sourceFinished:
                if exitWhenDone { claims.finishPipeline() }
            }
        }
        claims.connect(pipeline)

        let group = ServiceGroup(configuration: .init(
            services: [
                .init(service: SocketServerService(server: server)),
                .init(service: PipelineService(pipeline: pipeline), successTerminationBehavior: .gracefullyShutdownGroup),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        ))
        SystemdIntegration.notify("READY=1\nSTATUS=serving \(settings.server.socketPath)")
        try await group.run()
        SystemdIntegration.notify("STOPPING=1")
    }

    /// 1,000 clients need more than the common soft limit of 1,024 descriptors.
    static func raiseFileLimit(logger: Logger) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 {
            logger.warning("could not raise the open-file limit", metadata: ["errno": "\(errno)"])
        }
    }
}
