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
        Without a preset, times far too large for seconds (epoch milliseconds or nanoseconds) are read in the unit \
        that makes the rows 0.1 ms to 10 s apart, and said so (--time-unit decides); and the sign of the acceleration \
        is decided from the recording's steady stretches (upright or face up, against upside down or face down, as a \
        hand-held or table-top device is rarely held): an inverted one stops with the fix, --proper-acceleration \
        (--gravity-vector keeps it), and one that cannot tell (mostly landscape, or never steady) is imported as given \
        with a warning. With or without a preset, a steady device that reads about 1 m/s² for 1 g (input in g) or \
        96 (m/s² read as g) stops naming the --accel-unit that fits. \
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
    @Option(help: "Unit of the timestamp (default: s, or inferred from the times).") var timeUnit: TimeUnit?
    @Option(help: "Columns of acceleration x,y,z, e.g. 5,6,7.") var accelColumns: String?
    @Option(help: "Unit of acceleration (default: m/s2).") var accelUnit: AccelerationUnit?
    @Flag(help: "The input is proper acceleration (+g upward at rest); negate it into the gravity vector.")
    var properAcceleration = false
    @Flag(help: "The input already is the gravity vector (-g upward at rest): import it as it is, even when it reads mostly upside down or face down.")
    var gravityVector = false
    @Option(help: "Columns of angular rate x,y,z (optional).") var gyroColumns: String?
    @Option(help: "Unit of angular rate (default: rad/s).") var gyroUnit: RateUnit?
    @Option(help: "Mount matrix taking the input's axes to screen axes, \"a, b, c; d, e, f; g, h, i\".")
    var mountMatrix: String?
    @Option(help: "Lines to skip at the top (column titles).") var headerLines: Int?
    @Option(help: "Metadata for the log, key=value (repeatable).") var meta: [String] = []

    struct Layout {
        /// Column of the time, or `nil` when the time comes from ``rate``.
        var time: Int? = 1, timeUnit = TimeUnit.s
        /// Whether the time unit was stated (an option or a preset), or is only assumed.
        var timeUnitStated = false
        /// Whether the sign of the acceleration was stated (an option or a preset).
        var signStated = false
        /// What stated that the input is proper acceleration (--proper-acceleration or a preset), if anything.
        var properSource: String? = nil
        /// Whether the acceleration unit was stated (an option or a preset).
        var accelUnitStated = false
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
            layout = Layout(time: 1, timeUnitStated: true, signStated: true, accelUnitStated: true, accel: [5, 6, 7], accelScale: 9.80665,
                            gyro: [2, 3, 4], gyroScale: Double.pi / 180)
            proper = true
        case .oxfordStepCounter:
            layout = Layout(time: 1, timeUnit: .ns, timeUnitStated: true, signStated: true, accelUnitStated: true, accel: [2, 3, 4], headerLines: 0)
            proper = true
        case .oxfordStepCounterOptimisation:
            layout = Layout(time: 1, timeUnit: .ns, timeUnitStated: true, signStated: true, accelUnitStated: true, accel: [3, 4, 5], headerLines: 0)
            proper = true
        case nil:
            break
        }
        guard !(properAcceleration && gravityVector) else {
            throw ValidationError("give --proper-acceleration or --gravity-vector, not both")
        }
        if properAcceleration || gravityVector { layout.signStated = true }
        if proper && !gravityVector { layout.properSource = properAcceleration ? "--proper-acceleration" : preset.map { "the \($0.rawValue) preset" } }
        if gravityVector { proper = false }
        if let timeColumn { layout.time = timeColumn }
        if let rate {
            guard rate.isFinite, rate > 0, rate <= 100_000 else { throw ValidationError("--rate must be above 0 and at most 100000 Hz, not \(rate)") }
            guard timeColumn == nil else { throw ValidationError("give --time-column or --rate, not both") }
            layout.rate = rate
            layout.time = nil
        }
        if let delimiter { layout.delimiter = delimiter }
        if let timeUnit {
            layout.timeUnit = timeUnit
            layout.timeUnitStated = true
        }
        if let accelColumns { layout.accel = try Self.columns(accelColumns, option: "--accel-columns") }
        if let accelUnit {
            layout.accelScale = accelUnit == .g ? 9.80665 : 1
            layout.accelUnitStated = true
        }
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
            throw ValidationError("\(option) expects three column numbers from 1, such as 5,6,7; got \"\(ControlCharacters.quoted(text))\"")
        }
        return columns
    }

    func run() throws {
        var layout = try layout()
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
                throw ValidationError("--meta expects key=value with a key of lower-case letters, digits and dashes; got \"\(ControlCharacters.quoted(entry))\"")
            }
            metadata.append(key: String(entry[..<equals]), value: String(entry[entry.index(after: equals)...]))
        }

        // Bad input stops at the first bad row with its file and line, exit status 1 (as replay),
        // never the usage text; only the options are usage errors (64). The input is streamed
        // (one line of at most 64 KiB at a time), and the log goes to a temporary file beside
        // the output, renamed over it only when everything went well (issue 18: a failed import
        // replaced a precious log by a partial one that replayed as valid).
        var lines: LineSource
        do { lines = try LineSource(path: input) } catch { throw CleanExit.message("import: \(error)", failing: true) }
        let destination = try ImportDestination(output: output)
        do {
            // The first rows decide an unstated time unit; they are kept until it is known.
            var head: [Row] = []
            while head.count < Self.inferenceRows, let row = try readRow(&lines, layout: layout) { head.append(row) }
            if let inferred = try Self.inferTimeUnit(head, layout: layout, input: input) { layout.timeUnit = inferred }

            var writer: SensorLogWriter
            do {
                writer = try SensorLogWriter(path: destination.temporaryPath, metadata: metadata, includesGyroscope: layout.gyro != nil)
            } catch { throw CleanExit.message("import: \(output): \(Self.message(of: error))", failing: true) }
            var previousTime = -Double.infinity
            var evidence = GravitySignEvidence()
            var count = 0
            while true {
                let row: Row
                if count < head.count {
                    row = head[count]
                } else if let next = try readRow(&lines, layout: layout) {
                    row = next
                } else {
                    break
                }
                let time = row.time.map { $0 * layout.timeUnit.seconds } ?? Double(count) / layout.rate!
                guard time > previousTime else {
                    throw CleanExit.message("import: \(input):\(row.line): time \(time) does not increase (previous \(previousTime))", failing: true)
                }
                previousTime = time
                let acceleration = matrix.apply(row.accel * layout.accelScale)
                evidence.add(time: time, acceleration: acceleration)
                count += 1
                let rate = row.gyro.map { matrix.apply($0 * layout.gyroScale) }
                do {
                    try writer.write(Sample(time: time, acceleration: acceleration, angularRate: rate))
                } catch { throw CleanExit.message("import: \(output): \(Self.message(of: error))", failing: true) }
            }
            do { try writer.finish() } catch { throw CleanExit.message("import: \(output): \(Self.message(of: error))", failing: true) }
            try Self.checkScale(evidence, layout: layout, input: input)
            try Self.checkGravitySign(evidence, layout: layout, input: input)
            try destination.commit()
            if output != "-" { printError("wrote \(count) samples to \(output)") }
        } catch {
            destination.discard()
            throw error
        }
    }

    /// How many rows at the top decide an unstated time unit (see ``inferTimeUnit(_:layout:input:)``).
    static let inferenceRows = 201

    /// One data row as read: the time in the file's own unit, acceleration and rate unscaled.
    struct Row {
        var line: Int
        var time: Double?
        var accel: Vector3
        var gyro: Vector3?
    }

    /// The next data row, `nil` at the end of the input. A bad row (a missing or non-numeric
    /// cell, a line over the reader's 64 KiB) stops the import: its file, line and at most
    /// ``ControlCharacters/defaultQuoteLimit`` characters of the cell, control characters
    /// escaped (issue 18: a cell's ESC sequences reached the terminal, and a 100 MB line was
    /// read whole and quoted whole).
    func readRow(_ lines: inout LineSource, layout: Layout) throws -> Row? {
        while true {
            let bytes: UnsafeBufferPointer<UInt8>?
            do { bytes = try lines.nextLine() } catch { throw CleanExit.message("import: \(error)", failing: true) }
            guard let bytes else { return nil }
            let lineNumber = lines.lineNumber
            if lineNumber <= layout.headerLines { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            if text.trimmingBlanks().isEmpty { continue }
            let cells = layout.delimiter.split(text)
            func value(_ column: Int, _ what: String) throws -> Double {
                guard column <= cells.count else {
                    throw CleanExit.message("import: \(input):\(lineNumber): \(what) column \(column) is missing (the line has \(cells.count) cells)",
                                            failing: true)
                }
                let cell = cells[column - 1].trimmingBlanks()
                guard let v = Double(cell), v.isFinite else {
                    throw CleanExit.message("import: \(input):\(lineNumber): \(what) column \(column): \"\(ControlCharacters.quoted(cell))\" is not a number",
                                            failing: true)
                }
                return v
            }
            let time = try layout.time.map { try value($0, "time") }
            let a = Vector3(try value(layout.accel[0], "accel x"), try value(layout.accel[1], "accel y"), try value(layout.accel[2], "accel z"))
            var rate: Vector3? = nil
            if let g = layout.gyro {
                rate = Vector3(try value(g[0], "gyro x"), try value(g[1], "gyro y"), try value(g[2], "gyro z"))
            }
            return Row(line: lineNumber, time: time, accel: a, gyro: rate)
        }
    }

    /// The time unit when none was stated and seconds cannot be right: the typical step
    /// between rows (the median of the first 200) read in seconds is over 10 s, or the first
    /// time is epoch-scale in milliseconds or finer (issue 21: a Sensor Logger file with
    /// nanosecond epoch times came out as 1700000000009999872 s, and replay restarted its
    /// filters 999 times). The finest unit that makes the step between 0.1 ms and 10 s is
    /// chosen and announced; none fitting is an error that says to give --time-unit.
    static func inferTimeUnit(_ rows: [Row], layout: Layout, input: String) throws -> TimeUnit? {
        guard !layout.timeUnitStated, layout.time != nil, rows.count >= 2 else { return nil }
        let times = rows.prefix(201).compactMap(\.time)
        let steps = zip(times.dropFirst(), times).map { $0 - $1 }.filter { $0 > 0 }.sorted()
        guard let first = times.first, !steps.isEmpty else { return nil }
        let step = steps[steps.count / 2]
        guard step > 10 || abs(first) >= 1e11 else { return nil }
        let example = FixedPointFormatter.string(first, decimals: 0)
        for unit in [TimeUnit.ms, .us, .ns] where (1e-4...10).contains(step * unit.seconds) {
            printError("orientationctl: import: \(input): times such as \(example), \(significant(step)) apart, "
                       + "are not seconds; reading them as \(unit.rawValue) (rows \(EventFormat.fixed(step * unit.seconds * 1000, decimals: 1)) ms apart). "
                       + "Give --time-unit to choose otherwise.")
            return unit
        }
        throw CleanExit.message("import: \(input): times such as \(example), \(significant(step)) apart, are not seconds "
                                + "and fit no unit; give --time-unit (s, ms, us or ns)", failing: true)
    }

    /// The sign of the acceleration, decided from the recording (``GravitySignEvidence``: how
    /// long it is steady upright or face up, against upside down or face down) when nobody said
    /// which way it points (no preset, neither --proper-acceleration nor --gravity-vector).
    /// Inverted stops with the fix and discards the log; too little evidence to tell imports it
    /// as given and says so on standard error, naming both options (issue 27: a recording
    /// upright 4 s, in landscape 4 s and face up 3 s passed the old check on the mean and
    /// replayed upside down). With proper acceleration stated (--proper-acceleration or a preset)
    /// and the result reading upside down or face down, a warning names --gravity-vector;
    /// --gravity-vector is obeyed silently.
    static func checkGravitySign(_ evidence: GravitySignEvidence, layout: Layout, input: String) throws {
        let tally = evidence.tally().tally
        let verdict = evidence.verdict()
        let counts = "steady upright or face up \(seconds(tally.asGiven)), upside down or face down \(seconds(tally.inverted)), "
            + "in landscape \(seconds(tally.landscape)), moving \(seconds(tally.unsteady))"
        if layout.signStated {
            if let source = layout.properSource, verdict == .inverted {
                printError("orientationctl: import: \(input): negated as proper acceleration (\(source) says so), the device reads upside down or face down most of the time "
                           + "(\(counts)); if the input already is the gravity vector (-g upward at rest), import it with --gravity-vector instead.")
            }
            return
        }
        switch verdict {
        case .asGiven:
            return
        case .inverted:
            throw CleanExit.message("""
                import: \(input): the device reads upside down or face down far more than upright or face up (\(counts)), so the sign is most likely inverted: \
                the input looks like proper acceleration (+g upward at rest, as Android, the kernel's IIO and most IMUs report). \
                Add --proper-acceleration to negate it; or, if the device really spent the recording upside down or face down, \
                add --gravity-vector to import it as it is. Nothing was written.
                """, failing: true)
        case .undecided:
            printError("orientationctl: import: \(input): cannot tell the sign of the acceleration from the recording (\(counts)): "
                       + "imported as given, as the gravity vector (-g upward at rest). If replay shows it upside down or face down, import it again "
                       + "with --proper-acceleration; give --gravity-vector or --proper-acceleration to say which it is.")
        }
    }

    /// What a steady device reads for 1 g, checked against the unit (issue 27: data in g
    /// imported as m/s² was caught only at replay, as "reads 1.0004059183841836 per g").
    /// In g but read as m/s², or the reverse, stops naming the --accel-unit that fits; any
    /// other scale (raw counts, a wrong factor, gravity removed) is a warning with the reading,
    /// since replay and the daemon rescale it. Three significant digits.
    static func checkScale(_ evidence: GravitySignEvidence, layout: Layout, input: String) throws {
        guard let reading = evidence.tally().gravityReading else { return }
        let g = 9.80665
        func near(_ value: Double) -> Bool { abs(reading - value) <= 0.15 * value }
        if near(g) { return }
        let shown = significant(reading)
        if near(1) {
            throw CleanExit.message("import: \(input): a steady device reads \(shown) m/s² as imported, where gravity is 9.81 m/s²: "
                                    + "the acceleration is in g, not m/s²; add --accel-unit g. Nothing was written.", failing: true)
        }
        if near(g * g) {
            throw CleanExit.message("import: \(input): a steady device reads \(shown) m/s² as imported (read in g, multiplied by 9.81), where gravity is "
                                    + "9.81 m/s²: the acceleration already is in m/s²; use --accel-unit m/s2. Nothing was written.", failing: true)
        }
        let hint = reading < g / 3 ? " Under a third of g: is it linear acceleration, with gravity removed? Import the total acceleration." : ""
        printError("orientationctl: import: \(input): a steady device reads \(shown) m/s² for 1 g, neither m/s² nor g: check --accel-unit; "
                   + "replay and orientationd rescale it by \(significant(g / reading)).\(hint)")
    }

    /// `1.00`, `9.81`, `96.2`, `16400`: three significant digits (at least the integer part).
    static func significant(_ value: Double) -> String {
        let magnitude = abs(value)
        let decimals = magnitude >= 100 || magnitude == 0 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3
        if magnitude >= 1000 {
            let digits = Int(floor(log10(magnitude))) - 2
            let unit = pow(10, Double(digits))
            return EventFormat.fixed((value / unit).rounded() * unit, decimals: 0)
        }
        return EventFormat.fixed(value, decimals: decimals)
    }

    static func seconds(_ value: Double) -> String { "\(EventFormat.fixed(value, decimals: 1)) s" }

    /// A writer's error without its file (which is the temporary file, not the output).
    static func message(of error: any Error) -> String {
        (error as? SensorLogError)?.message ?? "\(error)"
    }

    static func baseName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
