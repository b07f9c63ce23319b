import ArgumentParser
import MotionSynthesis
import OrientationCore

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
        with status 1 when any fails: the specification in one command.
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

    @OptionGroup var detector: DetectorOptions

    func run() throws {
        let all = ScenarioCatalog.all
        if check { return try checkAll(all.filter { name == nil || Self.matches($0.name, name!) }) }
        guard let name else {
            for scenario in all { print("\(scenario.category.rawValue.padding(to: 18))\(scenario.name)") }
            return
        }
        // A whole name, however typed, is that scenario even when it is part of a longer one.
        let exact = all.filter { Self.canonical($0.name) == Self.canonical(name) }
        let matches = exact + all.filter { !exact.map(\.name).contains($0.name) && Self.matches($0.name, name) }
        guard let scenario = matches.first, matches.count == 1 || !exact.isEmpty else {
            if matches.isEmpty {
                throw ValidationError("\"\(name)\": no scenario matches (run without a name to list them)")
            }
            let list = matches.map { "  \($0.name)" }.joined(separator: "\n")
            throw CleanExit.message("\"\(name)\": \(matches.count) scenarios match; name one of them (a unique part is enough):\n\(list)", failing: true)
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
        let expectedText = scenario.expected.map { e in
            e.restTime.map { "\(e.orientation) (at rest \(EventFormat.seconds($0)))" } ?? "\(e.orientation)"
        }
        print("expected: \(expectedText.joined(separator: ", "))")
        if !run.latencies.isEmpty {
            print("latency after rest: \(run.latencies.map { EventFormat.seconds($0) + " s" }.joined(separator: ", "))")
        }
        if run.failures.isEmpty {
            print("PASS")
        } else {
            for failure in run.failures { print("FAIL: \(failure)") }
            throw ExitCode(1)
        }
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
