import ArgumentParser
import Glibc
import OrientationCore
import SensorLog

/// `orientationctl import`: converts a CSV export from another tool (a data logger, a phone app,
/// a research data set) into an orientationd v1 log in the canonical frame.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a foreign CSV of accelerometer (and gyroscope) readings into an orientationd log.",
        discussion: """
        Columns are numbered from 1. Acceleration is converted to m/s², negated when the input is \
        proper acceleration (+1 g upward at rest, as the kernel's IIO ABI, Android and most IMUs \
        report), and multiplied by --mount-matrix if given; angular rates become rad/s. \
        Example (the bundled recording): orientationctl import --preset xio-fusion sensor_data.csv -o handheld.log
        """
    )

    enum Preset: String, ExpressibleByArgument, CaseIterable {
        /// x-io Technologies Fusion example data: time (s), gyro x/y/z (deg/s), accel x/y/z (g), magnetometer.
        case xioFusion = "xio-fusion"
        /// The Oxford step-counter data set (and any Android `SensorEvent` dump of this shape):
        /// no header; time (ns since boot), accel x/y/z (m/s², proper acceleration in Android's
        /// device axes, which are the screen axes), then columns this import ignores.
        case oxfordStepCounter = "oxford-step-counter"
        /// The same data set's `optimisation/data/*/accelerometer.csv`: no header; time (ns since
        /// boot), Android's accuracy (ignored), accel x/y/z (m/s², proper acceleration).
        case oxfordStepCounterOptimisation = "oxford-step-counter-optimisation"
    }

    enum AccelerationUnit: String, ExpressibleByArgument, CaseIterable {
        case g, metresPerSecondSquared = "m/s2"
    }

    enum RateUnit: String, ExpressibleByArgument, CaseIterable {
        case degreesPerSecond = "deg/s", radiansPerSecond = "rad/s"
    }

    /// What separates the cells of a row.
    enum Delimiter: String, ExpressibleByArgument, CaseIterable {
        case comma, semicolon, tab
        /// Any run of spaces and tabs (fixed-width and space-separated exports).
        case whitespace

        func split(_ line: String) -> [Substring] {
            switch self {
            case .comma: line.split(separator: ",", omittingEmptySubsequences: false)
            case .semicolon: line.split(separator: ";", omittingEmptySubsequences: false)
            case .tab: line.split(separator: "\t", omittingEmptySubsequences: false)
            case .whitespace: line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            }
        }
    }

    enum TimeUnit: String, ExpressibleByArgument, CaseIterable {
        case s, ms, us, ns
        var seconds: Double { switch self { case .s: 1; case .ms: 1e-3; case .us: 1e-6; case .ns: 1e-9 } }
    }

    @Argument(help: "The CSV file to convert.")
    var input: String

    @Option(name: .shortAndLong, help: "The log to write (- for standard output).")
    var output: String

    @Option(help: "Column layout and units of a known source.")
    var preset: Preset?

    @Option(help: "Column of the timestamp.") var timeColumn: Int?
    @Option(help: "The input has no timestamps: row k is at k / RATE seconds (Hz).") var rate: Double?
    @Option(help: "Cell separator: \(Delimiter.allCases.map(\.rawValue).joined(separator: ", ")).") var delimiter: Delimiter?
    @Option(help: "Unit of the timestamp.") var timeUnit: TimeUnit?
    @Option(help: "Columns of acceleration x,y,z, e.g. 5,6,7.") var accelColumns: String?
    @Option(help: "Unit of acceleration.") var accelUnit: AccelerationUnit?
    @Flag(help: "The input is proper acceleration (+g upward at rest); negate it into the gravity vector.")
    var properAcceleration = false
    @Option(help: "Columns of angular rate x,y,z (optional).") var gyroColumns: String?
    @Option(help: "Unit of angular rate.") var gyroUnit: RateUnit?
    @Option(help: "Mount matrix taking the input's axes to screen axes, \"a, b, c; d, e, f; g, h, i\".")
    var mountMatrix: String?
    @Option(help: "Lines to skip at the top (column titles).") var headerLines: Int?
    @Option(help: "Metadata for the log, key=value (repeatable).") var meta: [String] = []

    struct Layout {
        /// Column of the time, or `nil` when the time comes from ``rate``.
        var time: Int? = 1, timeUnit = TimeUnit.s
        var rate: Double? = nil
        var delimiter = Delimiter.comma
        var accel: [Int] = [], accelScale = 1.0
        var gyro: [Int]? = nil, gyroScale = 1.0
        var headerLines = 1
    }

    func layout() throws -> Layout {
        var layout = Layout()
        var proper = properAcceleration
        switch preset {
        case .xioFusion:
            layout = Layout(time: 1, accel: [5, 6, 7], accelScale: 9.80665, gyro: [2, 3, 4], gyroScale: Double.pi / 180)
            proper = true
        case .oxfordStepCounter:
            layout = Layout(time: 1, timeUnit: .ns, accel: [2, 3, 4], headerLines: 0)
            proper = true
        case .oxfordStepCounterOptimisation:
            layout = Layout(time: 1, timeUnit: .ns, accel: [3, 4, 5], headerLines: 0)
            proper = true
        case nil:
            break
        }
        if let timeColumn { layout.time = timeColumn }
        if let rate {
            guard rate.isFinite, rate > 0, rate <= 100_000 else { throw ValidationError("--rate must be above 0 and at most 100000 Hz, not \(rate)") }
            guard timeColumn == nil else { throw ValidationError("give --time-column or --rate, not both") }
            layout.rate = rate
            layout.time = nil
        }
        if let delimiter { layout.delimiter = delimiter }
        if let timeUnit { layout.timeUnit = timeUnit }
        if let accelColumns { layout.accel = try Self.columns(accelColumns, option: "--accel-columns") }
        if let accelUnit { layout.accelScale = accelUnit == .g ? 9.80665 : 1 }
        if let gyroColumns { layout.gyro = try Self.columns(gyroColumns, option: "--gyro-columns") }
        if let gyroUnit { layout.gyroScale = gyroUnit == .degreesPerSecond ? Double.pi / 180 : 1 }
        if let headerLines { layout.headerLines = headerLines }
        guard !layout.accel.isEmpty else { throw ValidationError("give --accel-columns (or a --preset)") }
        guard (layout.time ?? 1) >= 1 else { throw ValidationError("--time-column counts from 1") }
        if proper { layout.accelScale = -layout.accelScale }
        return layout
    }

    static func columns(_ text: String, option: String) throws -> [Int] {
        let columns = text.split(separator: ",").compactMap { Int($0.trimmingBlanks()) }
        guard columns.count == 3, columns.allSatisfy({ $0 >= 1 }) else {
            throw ValidationError("\(option) expects three column numbers from 1, such as 5,6,7; got \"\(text)\"")
        }
        return columns
    }

    func run() throws {
        let layout = try layout()
        var matrix = MountMatrix.identity
        if let mountMatrix {
            do { matrix = try MountMatrix(parsing: mountMatrix) } catch {
                throw ValidationError("--mount-matrix: \(error)")
            }
        }
        var metadata = SensorLogMetadata()
        metadata.append(key: "source", value: "imported from \(Self.baseName(input))")
        if !matrix.isIdentity { metadata.append(key: "mount-matrix", value: matrix.description) }
        for entry in meta {
            guard let equals = entry.firstIndex(of: "="), SensorLogMetadata.isValidKey(String(entry[..<equals])) else {
                throw ValidationError("--meta expects key=value with a key of lower-case letters, digits and dashes; got \"\(entry)\"")
            }
            metadata.append(key: String(entry[..<equals]), value: String(entry[entry.index(after: equals)...]))
        }

        let bytes = try readFile(input)
        var writer = try SensorLogWriter(path: output, metadata: metadata, includesGyroscope: layout.gyro != nil)
        var lineNumber = 0
        var previousTime = -Double.infinity
        var count = 0
        var row = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if lineNumber <= layout.headerLines { continue }
            var text = String(decoding: line, as: UTF8.self)
            if text.hasSuffix("\r") { text.removeLast() }
            if text.trimmingBlanks().isEmpty { continue }
            let cells = layout.delimiter.split(text)
            func value(_ column: Int, _ what: String) throws -> Double {
                guard column <= cells.count else {
                    throw ValidationError("\(input):\(lineNumber): \(what) column \(column) is missing (the line has \(cells.count) cells)")
                }
                let cell = cells[column - 1].trimmingBlanks()
                guard let v = Double(cell), v.isFinite else {
                    throw ValidationError("\(input):\(lineNumber): \(what) column \(column): \"\(cell)\" is not a number")
                }
                return v
            }
            let time = try layout.time.map { try value($0, "time") * layout.timeUnit.seconds } ?? Double(row) / layout.rate!
            row += 1
            guard time > previousTime else {
                throw ValidationError("\(input):\(lineNumber): time \(time) does not increase (previous \(previousTime))")
            }
            previousTime = time
            let a = Vector3(try value(layout.accel[0], "accel x"), try value(layout.accel[1], "accel y"),
                            try value(layout.accel[2], "accel z")) * layout.accelScale
            var rate: Vector3? = nil
            if let g = layout.gyro {
                rate = matrix.apply(Vector3(try value(g[0], "gyro x"), try value(g[1], "gyro y"), try value(g[2], "gyro z")) * layout.gyroScale)
            }
            try writer.write(Sample(time: time, acceleration: matrix.apply(a), angularRate: rate))
            count += 1
        }
        try writer.finish()
        if output != "-" { printError("wrote \(count) samples to \(output)") }
    }

    static func baseName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
