import ArgumentParser
import MotionSynthesis
import OrientationCore
import PostureCore
import PostureSynthesis
import SensorLog

/// `orientationctl simulate`: runs one of the detector's specification scenarios and shows what
/// the detector does with it.
struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a synthetic motion scenario (the detector's specification) through the detector.",
        discussion: """
        Without a name, lists the scenarios with their category. A name may be any unique part of \
        a scenario's name, typed in ASCII if you like: -> (or " to ") for →, "deg" or nothing for °, - for –. \
        When several match, they are listed. --check runs every scenario (or every one whose name contains NAME) at \
        10, 50 and 100 Hz with and without a gyroscope, prints each failure and a count, and exits \
        with status 1 when any fails: the specification in one command. --posture does the same \
        for a convertible's posture scenarios (two accelerometers and a lid switch; --check runs \
        them at 10, 25, 50 and 100 Hz, with the [posture] section of --config). --output FILE \
        writes the named scenario, synthesised at --rate, as a log instead of running it (- for \
        standard output): a posture scenario as a convertible's log (v3, with the base \
        accelerometer, the lid switch and what it expects, for replay, evaluate and plot).
        """
    )

    @Argument(help: "A scenario name, or a unique part of one.")
    var name: String?

    @Option(help: "Sample rate in Hz.")
    var rate: Double = 50

    @Flag(help: "Include gyroscope readings.")
    var gyro = false

    @Flag(help: "Print the detector's state after every sample (CSV).")
    var trace = false

    @Flag(help: "Check every scenario (or those whose name contains NAME) at every rate, with and without a gyroscope.")
    var check = false

    @Flag(help: "A convertible's posture scenarios (display and base accelerometers, lid switch) instead of the orientation ones.")
    var posture = false

    @Option(name: .shortAndLong, help: "Write the named scenario, synthesised at --rate, as a log to this file (- for standard output) instead of running it.")
    var output: String?

    @OptionGroup var detector: DetectorOptions

    func validate() throws {
        if output != nil && (name == nil || check) { throw ValidationError("--output needs a scenario name (and no --check)") }
        if posture && (trace || gyro) { throw ValidationError("--trace and --gyro are the orientation detector's; with --posture, write the scenario with --output and replay it") }
    }

    func run() throws {
        if posture { return try runPosture() }
        let all = ScenarioCatalog.all
        if check { return try checkAll(all.filter { name == nil || Self.matches($0.name, name!) }) }
        guard let name else {
            for scenario in all { print("\(scenario.category.rawValue.padding(to: 18))\(scenario.name)") }
            return
        }
        let scenario = try Self.pick(name, among: all, named: \.name)
        if let output {
            var writer = try Self.writer(output, metadata: SensorLogMetadata([
                ("source", "orientationctl simulate \"\(scenario.name)\" --rate \(EventFormat.fixed(rate, decimals: 0))\(gyro ? " --gyro" : "")"),
                ("sample-rate", EventFormat.fixed(rate, decimals: 0)), ("licence", "CC0-1.0"),
            ]), gyroscope: gyro, base: false, lid: false)
            let samples = scenario.samples(rate: rate, gyroscope: gyro)
            try Self.write(samples.map(SensorLogRecord.init), with: &writer, to: output)
            return
        }
        let configuration = try detector.configuration()
        if trace {
            var detector = try OrientationDetector(configuration: configuration)
            print(TraceFormat.header)
            for sample in scenario.samples(rate: rate, gyroscope: gyro) {
                let event = detector.process(sample)
                print(TraceFormat.row(sample: sample, detector: detector, event: event))
            }
            return
        }
        let run = try ScenarioRun(scenario, rate: rate, gyroscope: gyro, configuration: configuration)
        print("\(scenario.name) @ \(rate) Hz\(gyro ? " with gyroscope" : "")")
        for event in run.events { print(EventFormat.text(event)) }
        try Self.verdict(expected: scenario.expected.map { ("\($0.orientation)", $0.restTime) }, latencies: run.latencies, failures: run.failures)
    }

    /// The one scenario `query` names: a whole name, however typed, is that scenario even when
    /// it is part of a longer one; else the one name containing it.
    static func pick<S>(_ query: String, among all: [S], named name: (S) -> String) throws -> S {
        let exact = all.filter { canonical(name($0)) == canonical(query) }
        let matches = exact + all.filter { candidate in !exact.contains { name($0) == name(candidate) } && Self.matches(name(candidate), query) }
        guard let scenario = matches.first, matches.count == 1 || !exact.isEmpty else {
            if matches.isEmpty {
                throw ValidationError("\"\(query)\": no scenario matches (run without a name to list them)")
            }
            let list = matches.map { "  \(name($0))" }.joined(separator: "\n")
            throw CleanExit.message("\"\(query)\": \(matches.count) scenarios match; name one of them (a unique part is enough):\n\(list)", failing: true)
        }
        return scenario
    }

    // MARK: - Posture scenarios

    /// `--posture`: list, run, check or write the convertible's scenarios.
    func runPosture() throws {
        let all = PostureScenarioCatalog.all
        let settings = try detector.configurations().posture
        if check {
            var runs = 0, failed = 0
            for scenario in all where name == nil || Self.matches(scenario.name, name!) {
                for rate in [10.0, 25, 50, 100] {
                    let run = try PostureScenarioRun(scenario, rate: rate, configuration: settings.detector)
                    runs += 1
                    guard !run.failures.isEmpty else { continue }
                    failed += 1
                    print("FAIL \(scenario.name) @ \(Int(rate)) Hz: \(run.failures.joined(separator: "; "))")
                }
            }
            print("\(runs - failed) passed, \(failed) failed")
            if failed > 0 { throw ExitCode(1) }
            return
        }
        guard let name else {
            for scenario in all { print("\("posture".padding(to: 18))\(scenario.name)") }
            return
        }
        let scenario = try Self.pick(name, among: all, named: \.name)
        if let output {
            let log = PostureScenarioLog(scenario, rate: rate)
            var writer = try Self.writer(output, metadata: log.metadata, gyroscope: false, base: true, lid: log.hasLid)
            try Self.write(log.records, with: &writer, to: output)
            return
        }
        let run = try PostureScenarioRun(scenario, rate: rate, configuration: settings.detector)
        print("\(scenario.name) @ \(rate) Hz")
        for event in run.events { print(PostureEventFormat.text(event)) }
        try Self.verdict(expected: scenario.expected.map { ("\($0.posture)", $0.restTime) }, latencies: run.latencies, failures: run.failures)
    }

    /// The lines after a scenario's events, for orientation and posture alike: what was expected
    /// (with the time it comes to rest), the latencies, then PASS or each failure (exit status 1).
    static func verdict(expected: [(name: String, restTime: Double?)], latencies: [Double], failures: [String]) throws {
        let expectedText = expected.map { e in e.restTime.map { "\(e.name) (at rest \(EventFormat.seconds($0)))" } ?? e.name }
        print("expected: \(expectedText.joined(separator: ", "))")
        if !latencies.isEmpty {
            print("latency after rest: \(latencies.map { EventFormat.seconds($0) + " s" }.joined(separator: ", "))")
        }
        if failures.isEmpty {
            print("PASS")
        } else {
            for failure in failures { print("FAIL: \(failure)") }
            throw ExitCode(1)
        }
    }

    // MARK: - Writing a scenario as a log

    static func writer(_ path: String, metadata: SensorLogMetadata, gyroscope: Bool, base: Bool, lid: Bool) throws -> SensorLogWriter {
        do {
            return try SensorLogWriter(path: path, metadata: metadata, includesGyroscope: gyroscope, includesBase: base, includesLid: lid)
        } catch {
            throw CleanExit.message(error.description, failing: true)
        }
    }

    /// Writes every row, finishes, and says what it wrote on standard error.
    static func write(_ records: [SensorLogRecord], with writer: inout SensorLogWriter, to path: String) throws {
        do {
            for record in records { try writer.write(record) }
            try writer.finish()
        } catch {
            throw CleanExit.message(error.description, failing: true)
        }
        if path != "-" { printError("wrote \(path) (\(records.count) rows)") }
    }

    /// Whether `query` is part of scenario `name`, also when typed in ASCII: `->` or ` to ` for
    /// `→`, `deg`, ` deg` or nothing for `°`, `-` for `–` (issue 21: the README's example matched
    /// four scenarios, and `→` is hard to type; issue 27: `30deg` and whole names typed in ASCII).
    static func matches(_ name: String, _ query: String) -> Bool {
        if name.contains(query) { return true }
        let typed = canonical(query)
        return !typed.isEmpty && canonical(name).contains(typed)
    }

    /// One spelling for names and queries: `→` and ` to ` as `->`, `–` as `-`, degrees (`°`,
    /// `deg`, ` deg`) dropped, runs of blanks as one space.
    static func canonical(_ text: String) -> String {
        var s = text.replacing("→", with: "->").replacing(" to ", with: " -> ").replacing("–", with: "-")
        s = s.replacing("°", with: "").replacing(" deg", with: "").replacing("deg", with: "")
        return s.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    /// `--check`: every scenario at 10, 50 and 100 Hz, with and without a gyroscope.
    func checkAll(_ scenarios: [Scenario]) throws {
        let configuration = try detector.configuration()
        var runs = 0, failed = 0
        for scenario in scenarios {
            for gyroscope in [false, true] {
                for rate in [10.0, 50, 100] {
                    let run = try ScenarioRun(scenario, rate: rate, gyroscope: gyroscope, configuration: configuration)
                    runs += 1
                    guard !run.failures.isEmpty else { continue }
                    failed += 1
                    print("FAIL \(scenario.name) @ \(Int(rate)) Hz\(gyroscope ? " + gyro" : ""): \(run.failures.joined(separator: "; "))")
                }
            }
        }
        print("\(runs - failed) passed, \(failed) failed")
        if failed > 0 { throw ExitCode(1) }
    }
}
