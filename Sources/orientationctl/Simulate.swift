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
        let matches = all.filter { $0.name == name } + all.filter { $0.name != name && Self.matches($0.name, name) }
        guard let scenario = matches.first, matches.count == 1 || matches[0].name == name else {
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
    /// `→`, `deg` or nothing for `°`, `-` for `–` (issue 21: the README's example matched four
    /// scenarios, and `→` is hard to type).
    static func matches(_ name: String, _ query: String) -> Bool {
        if name.contains(query) { return true }
        let plain = ascii(name)
        let typed = ascii(query)
        return [typed, typed.replacing(" to ", with: " -> "), typed.replacing(" deg", with: "").replacing("deg", with: "")].contains { !$0.isEmpty && plain.contains($0) }
    }

    /// The ASCII spelling of a scenario name: `→` as `->`, `–` as `-`, `°` dropped.
    static func ascii(_ text: String) -> String {
        text.replacing("→", with: "->").replacing("–", with: "-").replacing("°", with: "")
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
