import ArgumentParser
import Glibc
import OrientationCore
import OrientationProtocol
import OrientationServer
import SensorIIO
import SensorPipeline

/// The daemon's settings: defaults, then the configuration file, then the command line.
struct DaemonSettings {
    var detector = OrientationDetector.Configuration()
    var server = ServerConfiguration(socketPath: OrientationProtocol.defaultSocketPath)
    var speed = ReplaySource.Speed.multiple(1)
    var sensor = IIOSettings()

    static let serverSection = "server"

    init(command: Orientationd) throws {
        if let path = command.config {
            let bytes = try Self.read(path)
            do {
                let file = try ConfigFile(parsing: bytes, source: path,
                                          knownSections: ConfigFile.orientationdSections)
                try detector.apply(file)
                try Self.apply(file, to: &server)
                for entry in file.entries(in: "sensor") {
                    if let problem = sensor.apply(name: entry.name, value: entry.value, location: "\(path):\(entry.line)") {
                        throw ConfigFileError(source: path, line: entry.line, message: problem)
                    }
                }
            } catch {
                throw DaemonFailure("\(error)")
            }
        }
        var pairs: [(name: String, value: String)] = []
        for assignment in command.assignments {
            guard let equals = assignment.firstIndex(of: "=") else { throw ValidationError("--set expects name=value, got \"\(assignment)\"") }
            pairs.append((String(assignment[..<equals]), String(assignment[assignment.index(after: equals)...])))
        }
        do { try detector.apply(pairs) } catch { throw ValidationError("--set \(error)") }

        if let selector = command.sensor { sensor.selector = selector }
        if let socket = command.socket { server.socketPath = socket }
        if let text = command.socketMode {
            guard let mode = UInt32(text, radix: 8), mode <= 0o777 else { throw ValidationError("--socket-mode must be octal such as 0660, not \(text)") }
            server.socketMode = mode
        }
        if let group = command.socketGroup { server.socketGroup = group }
        if let group = command.privilegedGroup { server.privilegedGroup = group }
        server.privilegedUIDs.formUnion(command.privilegedUIDs)
        if command.speed == "max" {
            speed = .maximum
        } else if let factor = Double(command.speed), factor > 0, factor.isFinite {
            speed = .multiple(factor)
        } else {
            throw ValidationError("--speed must be a positive number or max, not \(command.speed)")
        }
    }

    /// The `[server]` section.
    static func apply(_ file: ConfigFile, to server: inout ServerConfiguration) throws(ConfigFileError) {
        for entry in file.entries(in: serverSection) {
            func fail(_ message: String) -> ConfigFileError { ConfigFileError(source: file.source, line: entry.line, message: "\(entry.name): \(message)") }
            func positive() throws(ConfigFileError) -> Int {
                guard let v = Int(entry.value), v > 0 else { throw fail("must be a positive whole number, not \"\(entry.value)\"") }
                return v
            }
            switch entry.name {
            case "socket": server.socketPath = entry.value
            case "socket-mode":
                guard let mode = UInt32(entry.value, radix: 8), mode <= 0o777 else { throw fail("must be octal such as 0660, not \"\(entry.value)\"") }
                server.socketMode = mode
            case "socket-group": server.socketGroup = entry.value
            case "privileged-group": server.privilegedGroup = entry.value
            case "max-clients": server.maximumClients = try positive()
            case "max-line-length": server.maximumLineLength = try positive()
            case "requests-per-second":
                guard let v = Double(entry.value), v > 0 else { throw fail("must be a positive number, not \"\(entry.value)\"") }
                server.requestsPerSecond = v
            case "request-burst":
                guard let v = Double(entry.value), v >= 1 else { throw fail("must be at least 1, not \"\(entry.value)\"") }
                server.requestBurst = v
            default:
                throw ConfigFileError(source: file.source, line: entry.line, message: "unknown server setting \(entry.name); known: socket, socket-mode, socket-group, privileged-group, max-clients, max-line-length, requests-per-second, request-burst")
            }
        }
    }

    static func read(_ path: String) throws -> String {
        guard let file = fopen(path, "r") else {
            throw DaemonFailure("\(path): cannot open: \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n == 0 { break }
            bytes.append(contentsOf: buffer[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
