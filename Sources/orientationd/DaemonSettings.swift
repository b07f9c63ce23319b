import AmbientSensorCore
import ArgumentParser
import ConfigFileFormat
import Glibc
import OrientationCore
import OrientationProtocol
import OrientationServer
import PostureCore
import SensorIIO
import SensorLog
import SensorPipeline

/// The daemon's settings: defaults, then the configuration file, then the command line.
struct DaemonSettings {
    var detector = OrientationDetector.Configuration()
    var server = ServerConfiguration(socketPath: OrientationProtocol.defaultSocketPath)
    var speed = ReplaySource.Speed.multiple(1)
    var sensor = IIOSettings()
    /// `[light]`, `[proximity]`, `[compass]`.
    var auxiliary = AuxiliarySettings()
    /// Serve net.hadess.SensorProxy on the system bus (`--dbus`, `[dbus] enable`).
    var dbus = false
    /// `[posture]`: a convertible's posture detector and the virtual tablet-mode switch.
    var posture = PostureSettings()

    static let serverSection = "server"

    /// `$ORIENTATIOND_SOCKET` when set and not empty: above `[server] socket`, below `--socket`.
    static var environmentSocket: String? {
        guard let value = getenv("ORIENTATIOND_SOCKET").map({ String(cString: $0) }), !value.isEmpty else { return nil }
        return value
    }

    /// The settings from `command`'s configuration file (or `configPath` instead), then its
    /// options, which win. A reload calls this again, so the file is re-read and the options
    /// still win.
    init(command: Orientationd, configPath: String? = nil) throws {
        if let path = configPath ?? command.config {
            // Every problem of the file, in file order, in one run (issue 21: one per run, and
            // not in file order, sent a user round the loop once per mistake).
            let bytes: [UInt8]
            do { bytes = try ConfigurationFileReader.read(path) } catch { throw DaemonFailure("\(error)") }
            var problems: [ConfigFileError] = []
            let file = ConfigFile(parsing: String(decoding: bytes, as: UTF8.self), source: path,
                                  knownSections: ConfigFile.orientationdSections, problems: &problems)
            detector.apply(file, problems: &problems)
            posture.apply(file, problems: &problems)
            Self.apply(file, to: &server, problems: &problems)
            for entry in file.entries(in: "dbus") {
                switch (entry.name, entry.value) {
                case ("enable", "true"), ("enable", "yes"), ("enable", "1"): dbus = true
                case ("enable", "false"), ("enable", "no"), ("enable", "0"): dbus = false
                case ("enable", _): problems.append(ConfigFileError(source: path, line: entry.line, message: "enable: must be true or false, not \"\(ControlCharacters.quoted(entry.value))\""))
                default: problems.append(ConfigFileError(source: path, line: entry.line, message: ConfigFile.unknown("dbus setting", entry.name, among: ["enable"])))
                }
            }
            for entry in file.entries(in: "sensor") {
                if let problem = sensor.apply(name: entry.name, value: entry.value, location: "\(path):\(entry.line)") {
                    problems.append(ConfigFileError(source: path, line: entry.line, message: problem))
                }
            }
            for kind in AuxiliarySensorKind.allCases {
                for entry in file.entries(in: kind.rawValue) {
                    if let problem = auxiliary.apply(kind, name: entry.name, value: entry.value) {
                        problems.append(ConfigFileError(source: path, line: entry.line, message: problem))
                    }
                }
            }
            if !problems.isEmpty { throw DaemonFailure(ConfigFileErrors(problems).description) }
        }
        do { try detector.apply(assignments: command.assignments) } catch { throw ValidationError("--set \(error)") }

        if command.dbus { dbus = true }
        if let selector = command.sensor { sensor.selector = selector }
        // The clients' variable too (issue 27: orientationctl obeyed it, orientationd did not, so
        // a daemon and its clients silently used different sockets). The option wins.
        if let socket = command.socket ?? Self.environmentSocket { server.socketPath = socket }
        if let text = command.socketMode {
            guard let mode = UInt32(text, radix: 8), mode <= 0o777 else { throw ValidationError("--socket-mode must be octal such as 0660, not \(ControlCharacters.quoted(text))") }
            server.socketMode = mode
        }
        for (option, group) in [("--socket-group", command.socketGroup), ("--privileged-group", command.privilegedGroup)] {
            if let group, ServerConfiguration.groupID(named: group) == nil { throw ValidationError("\(option): no group named \"\(group)\"") }
        }
        if let group = command.socketGroup { server.socketGroup = group }
        if let group = command.privilegedGroup { server.privilegedGroup = group }
        server.privilegedUIDs.formUnion(command.privilegedUIDs)
        if command.speed == "max" {
            speed = .maximum
        } else if let factor = Double(command.speed), Self.speeds.contains(factor) {
            speed = .multiple(factor)
        } else {
            throw ValidationError("--speed must be a multiple of real time from 0.001 to 1000000, or max; not \(command.speed)")
        }
        if let duration = command.duration, !(duration > 0 && duration <= SecondsConversion.maximum) {
            throw ValidationError("--duration must be a number of seconds above 0 and at most 1e9, not \(duration)")
        }
    }

    /// Replay speeds that make sense: slower than 1/1000 a 10 s log takes three hours, and a
    /// factor of 10⁻³⁰ overflowed the sleep (issue 9); faster than 10⁶, use max.
    static let speeds = 0.001...1_000_000.0

    /// The `[server]` section. Every value is checked here, so a mistake is named with its line
    /// (a group that does not exist too, not later when the socket is set up).
    static func apply(_ file: ConfigFile, to server: inout ServerConfiguration, problems: inout [ConfigFileError]) {
        var reservedLine: Int? = nil
        for entry in file.entries(in: serverSection) {
            do {
                try apply(entry, of: file, to: &server)
                if entry.name == "reserved-clients" { reservedLine = entry.line }
            } catch {
                problems.append(error)
            }
        }
        if let reservedLine, server.reservedClients >= server.maximumClients {
            problems.append(ConfigFileError(source: file.source, line: reservedLine,
                                            message: "reserved-clients: must be below max-clients (\(server.maximumClients)), not \(server.reservedClients)"))
        }
    }

    /// One `[server]` entry.
    static func apply(_ entry: ConfigFile.Entry, of file: ConfigFile, to server: inout ServerConfiguration) throws(ConfigFileError) {
            func fail(_ message: String) -> ConfigFileError { ConfigFileError(source: file.source, line: entry.line, message: "\(ControlCharacters.quoted(entry.name)): \(message)") }
            func positive() throws(ConfigFileError) -> Int {
                guard let v = Int(entry.value), v > 0 else { throw fail("must be a positive whole number, not \"\(ControlCharacters.quoted(entry.value))\"") }
                return v
            }
            func positiveNumber() throws(ConfigFileError) -> Double {
                guard let v = ConfigNumber.decimal(entry.value), v.isFinite, v > 0 else { throw fail("must be a positive, finite number, not \"\(ControlCharacters.quoted(entry.value))\"") }
                return v
            }
            func group() throws(ConfigFileError) -> String {
                guard ServerConfiguration.groupID(named: entry.value) != nil else { throw fail("no group named \"\(ControlCharacters.quoted(entry.value))\"") }
                return entry.value
            }
            switch entry.name {
            case "socket":
                // What binding would refuse at startup, said now (a Unix socket path holds 107 bytes).
                guard !entry.value.isEmpty else { throw fail("must be a path, not empty") }
                guard entry.value.utf8.count <= 107 else { throw fail("is \(entry.value.utf8.count) bytes long; a Unix socket path holds at most 107") }
                server.socketPath = entry.value
            case "socket-mode":
                guard let mode = UInt32(entry.value, radix: 8), mode <= 0o777 else { throw fail("must be octal such as 0660, not \"\(ControlCharacters.quoted(entry.value))\"") }
                server.socketMode = mode
            // An empty value is the default, none (the sample configuration's uncommented line).
            case "socket-group": server.socketGroup = entry.value.isEmpty ? nil : try group()
            case "privileged-group": server.privilegedGroup = entry.value.isEmpty ? nil : try group()
            case "max-clients": server.maximumClients = try positive()
            case "max-clients-per-user": server.maximumClientsPerUser = try positive()
            case "reserved-clients":
                guard let v = Int(entry.value), v >= 0 else { throw fail("must be a whole number, 0 or more, not \"\(ControlCharacters.quoted(entry.value))\"") }
                server.reservedClients = v
            case "idle-timeout":
                let v = try positiveNumber()
                guard v <= SecondsConversion.maximum else { throw fail("must be at most 1e9 seconds, not \"\(ControlCharacters.quoted(entry.value))\"") }
                server.idleTimeout = v
            case "max-output-buffer": server.maximumOutputBytes = try positive()
            case "max-line-length": server.maximumLineLength = try positive()
            case "requests-per-second": server.requestsPerSecond = try positiveNumber()
            case "request-burst":
                guard let v = ConfigNumber.decimal(entry.value), v.isFinite, v >= 1 else { throw fail("must be a finite number, at least 1, not \"\(ControlCharacters.quoted(entry.value))\"") }
                server.requestBurst = v
            default:
                throw ConfigFileError(source: file.source, line: entry.line, message: ConfigFile.unknown("server setting", entry.name, among: knownServerSettings))
            }
    }

    static let knownServerSettings = ["socket", "socket-mode", "socket-group", "privileged-group", "max-clients", "max-clients-per-user",
                                      "reserved-clients", "idle-timeout", "max-output-buffer", "max-line-length", "requests-per-second",
                                      "request-burst"]
}
