import ArgumentParser
import Glibc
import Logging
import OrientationCore
import OrientationProtocol
import OrientationDaemon
import OrientationServer
import SensorIIO
import SensorLog
import SensorPipeline
import ServiceLifecycle

/// `orientationd`: publishes device-orientation changes over a Unix socket.
///
/// Wiring only: configuration, the sensor pipeline, the socket server, signals. SIGTERM and
/// SIGINT shut down gracefully (clients get `goodbye`, the socket file is removed). SIGHUP
/// re-reads the configuration file; a bad one is refused and the running settings stay.
/// Started by ``OrientationdMain``, which runs Swift concurrency on SwiftNIO's event loops.
struct Orientationd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orientationd",
        abstract: "Publish device-orientation events over a Unix socket.",
        discussion: "Reads the display accelerometer (IIO, through libiio and libudev) while a client subscribes, turns its samples into device orientations, and publishes every change on a Unix socket in newline-delimited JSON (PROTOCOL.md, installed in /usr/share/doc/orientationd); orientationctl is a client. With --dbus it also serves iio-sensor-proxy's D-Bus API.",
        version: ServerConfiguration(socketPath: OrientationProtocol.defaultSocketPath).serverVersion
    )

    @Option(help: ArgumentHelp("Replay a recorded sensor log instead of reading a sensor (a convertible's log, v3, also serves its posture).", valueName: "log"))
    var replay: String?

    @Flag(help: "List the sensors found (accelerometers and gyroscopes; light, proximity and compass), which would be used and why, then exit.")
    var listSensors = false

    @Option(help: ArgumentHelp("Use this sensor: an id (iio:device0), a name (bmc150_accel), a sysfs path or a udev property KEY=VALUE.", valueName: "selector"))
    var sensor: String?

    @Option(help: ArgumentHelp("Record the sensor into a v1 log at this path (- for standard output) instead of serving, then exit.", valueName: "log"))
    var record: String?

    @Option(help: ArgumentHelp("With --record: stop after this many seconds (default: until interrupted).", valueName: "seconds"))
    var duration: Double?

    @Option(help: ArgumentHelp("Replay speed: a multiple of real time, or max.", valueName: "N|max"))
    var speed: String = "1"

    @Flag(help: "Replay the log in a loop.")
    var loop = false

    @Flag(help: "Shut down once a non-looping replay has ended. The replay starts with the first subscriber (or claim), as always.")
    var exitWhenDone = false

    @Option(help: ArgumentHelp("The socket path (default $ORIENTATIOND_SOCKET, else [server] socket, else /run/orientationd/orientationd.sock; the clients read the same variable).", valueName: "path"))
    var socket: String?

    @Option(help: ArgumentHelp("Permission bits of the socket file, octal (default 0666).", valueName: "mode"))
    var socketMode: String?

    @Option(help: ArgumentHelp("Group owning the socket file.", valueName: "group"))
    var socketGroup: String?

    @Option(help: ArgumentHelp("Members of this group may lock and unlock rotation (root always may; by default no group may).", valueName: "group"))
    var privilegedGroup: String?

    @Option(name: .customLong("privileged-uid"), help: ArgumentHelp("A user id that may lock and unlock rotation (repeatable).", valueName: "uid"))
    var privilegedUIDs: [UInt32] = []

    @Flag(help: "Also serve iio-sensor-proxy's D-Bus API (net.hadess.SensorProxy) on the system bus, for GNOME, KDE and phosh (docs/DBUS.md).")
    var dbus = false

    @Option(help: ArgumentHelp("Configuration file with [server], [dbus], [sensor], [light], [proximity], [compass], [detector] and [posture] sections, orientationd.conf(5).", valueName: "file"))
    var config: String?

    @Option(name: [.customLong("set"), .customShort("s")], help: ArgumentHelp("Override a detector parameter.", valueName: "name=value"))
    var assignments: [String] = []

    @Flag(help: "Check the configuration file (FILE, else --config, else /etc/orientationd/orientationd.conf) and the options, print the result, and exit: 0 when valid.")
    var checkConfig = false

    @Argument(help: ArgumentHelp("With --check-config: the file to check.", valueName: "FILE"))
    var checkConfigFile: String?

    /// The installed configuration, which --check-config checks when no file is named.
    static let defaultConfigPath = "/etc/orientationd/orientationd.conf"

    @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error, critical.", valueName: "level"))
    var logLevel: String = "info"

    func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let journal = JournalLogHandler.standardErrorIsJournal
        LoggingSystem.bootstrap { label in
            if journal {
                var handler = JournalLogHandler()
                handler.logLevel = level
                return handler
            }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "orientationd")
        if checkConfig {
            let path = checkConfigFile ?? config ?? Self.defaultConfigPath
            do {
                let checked = try DaemonSettings(command: self, configPath: path)
                print("\(path): valid (socket \(checked.server.socketPath), D-Bus \(checked.dbus ? "on" : "off"))")
                return
            } catch {
                // Every problem on its own line, in file order, then the verdict.
                let problems = "\(error)".split(separator: "\n")
                for problem in problems { Self.printToStandardError("\(problem)") }
                Self.printToStandardError("\(path): not valid (\(problems.count) problem\(problems.count == 1 ? "" : "s"))")
                throw ExitCode.failure
            }
        }
        guard checkConfigFile == nil else { throw ValidationError("a FILE argument is only accepted with --check-config") }
        let settings = try DaemonSettings(command: self)
        Self.raiseFileLimit(logger: logger)

        let iio = DiscoveringAccelerometerSource(settings: settings.sensor, logger: logger)
        if listSensors {
            try await Self.printSensors(iio)
            try await Self.printAuxiliarySensors(settings.auxiliary)
            return
        }
        if let record {
            try await Recorder.record(source: iio, auxiliary: settings.auxiliary, to: record, duration: duration, logger: logger)
            return
        }
        let source: any SensorSource
        if let replayPath = replay {
            let replaySource: ReplaySource
            do {
                replaySource = try ReplaySource(path: replayPath, speed: settings.speed, loop: loop, sleeper: .onEventLoops)
            } catch {
                throw DaemonFailure("\(error)")
            }
            logger.info("replaying", metadata: ["log": "\(replayPath)", "samples": "\(replaySource.samples.count)",
                                                "speed": "\(speed)", "loop": "\(loop)"])
            source = replaySource
        } else {
            source = iio
        }

        // First of all: from here on SIGTERM and SIGINT are kept for a graceful shutdown, even
        // one that arrives before the service group runs.
        let shutdownSignals = ProcessSignals.stream(SIGTERM, SIGINT)
        // A shutdown has an end: a second SIGTERM/SIGINT, or 15 s (ServiceGroup escalates to
        // cancellation after 10 s), exits at once; systemd's own stop timeout is 90 s.
        ProcessSignals.forceExit(afterShutdownTakesLongerThan: OrientationService.shutdownLimit) { logger.critical("\($0)") }
        // Signals a service manager or a user may send that would otherwise kill the daemon
        // without goodbye and leave its socket behind (issue 9): SIGHUP reloads, the others
        // are logged and ignored. Trapped now, so that one arriving during startup is kept.
        let reloadSignals = ProcessSignals.stream(SIGHUP)
        let ignoredSignals = ProcessSignals.stream(SIGUSR1, SIGUSR2)
        if exitWhenDone {
            if replay == nil {
                logger.warning("--exit-when-done only applies to --replay; ignoring it")
            } else {
                logger.notice("waiting for the first subscriber to start the replay; orientationd exits once the log has been replayed")
            }
        }
        let service: OrientationService
        do {
            service = try await OrientationService.start(source: source, detector: settings.detector, server: settings.server,
                                                         listeningSocket: SystemdIntegration.takeListeningSocket(),
                                                         exitWhenDone: exitWhenDone, watchHotplug: replay == nil,
                                                         dbus: settings.dbus, auxiliarySensors: replay == nil ? settings.auxiliary : nil,
                                                         posture: settings.posture.detector,
                                                         tabletModeSwitch: settings.posture.tabletModeSwitch,
                                                         dbusHoldsInLaptop: settings.posture.dbusHoldsInLaptop,
                                                         sleeper: .onEventLoops, logger: logger)
        } catch let error as ServerError {
            throw DaemonFailure(error.description + Self.hint(for: error))
        }
        let command = self
        let reload: @Sendable () async -> Void = {
            await Self.reload(command: command, service: service, running: settings, readsSensor: replay == nil, logger: logger)
        }
        let watchdog = SystemdIntegration.watchdogInterval()
        if let watchdog { logger.info("systemd watchdog on", metadata: ["interval": "\(watchdog)s"]) }
        // A shutdown that never ends, for ShutdownBoundTests only: debug builds (what the tests
        // run) read the variable; the release build (what is installed) has no such behaviour.
        #if DEBUG
        let stallsShutdown = getenv("ORIENTATIOND_TEST_STALL_SHUTDOWN") != nil
        #else
        let stallsShutdown = false
        #endif
        let group = service.serviceGroup(logger: logger, shutdownSignals: shutdownSignals, ignoredSignals: ignoredSignals,
                                         reloadSignals: reloadSignals, reload: reload, watchdogInterval: watchdog,
                                         stallsShutdownForTesting: stallsShutdown)
        SystemdIntegration.notify("READY=1\nSTATUS=\(await service.statusLine())")
        try await group.run()
        SystemdIntegration.notify("STOPPING=1")
    }

    /// What to do about a socket the daemon may not create (issue 27: an ordinary user got
    /// `mkdir /run/orientationd: Permission denied` and no hint): empty for other errors.
    static func hint(for error: ServerError) -> String {
        let denied: Bool
        switch error {
        case let .system(_, _, code): denied = code == EACCES || code == EPERM || code == EROFS
        case let .cannotListen(_, reason): denied = reason.contains("ermission denied") || reason.contains("ead-only")
        default: denied = false
        }
        guard denied else { return "" }
        return "; run orientationd as root (the systemd service does), or as yourself choose a socket you may create: "
            + "--socket \"$XDG_RUNTIME_DIR/orientationd.sock\", or ORIENTATIOND_SOCKET=… exported for the daemon and its clients alike"
    }

    static func printToStandardError(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
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
