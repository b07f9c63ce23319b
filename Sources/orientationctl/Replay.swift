import ArgumentParser
import OrientationCore
import PostureCore
import SensorLog

/// `orientationctl replay FILE`: runs the detector over a recorded log as fast as possible and
/// prints the events, so a user can see why a device rotated (or did not) and what a parameter
/// change would do to their own recording.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the detector over a recorded sensor log and print the orientation events.",
        discussion: """
        Prints one line per event, `time orientation`, or with --json one object per line with \
        time, orientation and previous. --trace prints the orientation detector's state after every \
        sample as CSV instead. --still-interval 0.5 skips the samples orientationd would not read from a \
        polled sensor while the device lies still (its rate governor). A summary goes to \
        standard error. A convertible's log (v3, with a base accelerometer or lid switch: \
        `orientationctl simulate --posture NAME --output FILE`) also runs the posture detector, \
        with the [posture] section of --config, and prints its events among the orientation \
        events, `time posture: laptop (hinge 112°)` (--json: time, posture, previous, hinge), \
        with a second summary line saying how long it held and why. Exit status 1 on a \
        malformed log, with the file and line of the problem.
        """
    )

    @Argument(help: "The log to replay (- for standard input).")
    var file: String

    @Flag(help: "Print one JSON object per event.")
    var json = false

    @Flag(help: "Print the detector's state after every sample (CSV), with events marked.")
    var trace = false

    @Flag(name: .customLong("ignore-gyro"), help: "Ignore gyroscope columns: see what an accelerometer-only device would do.")
    var ignoreGyro = false

    @Flag(help: "Do not print the summary on standard error.")
    var quiet = false

    @OptionGroup var detector: DetectorOptions

    @OptionGroup var pace: GovernorOptions

    func run() throws {
        let (configuration, postureSettings) = try detector.configurations()
        var detector = try OrientationDetector(configuration: configuration)
        var governor = SampleRateGovernor(configuration: try pace.configuration(detector: configuration))
        var reader: SensorLogReader
        do {
            reader = try SensorLogReader(path: file)
        } catch {
            throw CleanExit.message(error.description, failing: true)
        }
        var output = OutputBuffer()
        if trace { output.appendLine(TraceFormat.header) }
        // As the daemon's pipeline does: a log recorded from a device with a wrong scale replays
        // as the daemon would have published it (a correct one is untouched).
        var normalizer = GravityNormalizer()
        // A convertible's log: the posture detector beside the orientation detector (the
        // orientation's trace stays the orientation's alone).
        var posture = reader.hasBase || reader.hasLid ? try PostureReplay(configuration: postureSettings.detector) : nil
        do {
            while let record = try reader.nextRecord() {
                if posture != nil {
                    for event in posture!.feed(record) where !trace {
                        output.appendLine(json ? PostureEventFormat.json(event) : PostureEventFormat.text(event))
                    }
                }
                guard var sample = record.sample else { continue }
                if ignoreGyro { sample.angularRate = nil }
                sample = normalizer.normalize(sample)
                guard governor.admits(sample) else { continue }
                let event = detector.process(sample)
                governor.observe(sample, settled: detector.isSettled)
                if trace {
                    output.appendLine(TraceFormat.row(sample: sample, detector: detector, event: event))
                } else if let event {
                    output.appendLine(json ? EventFormat.json(event) : EventFormat.text(event))
                }
            }
        } catch {
            output.flush()
            throw CleanExit.message(error.description, failing: true)
        }
        output.flush()
        if !quiet, normalizer.isCorrecting, let measured = normalizer.deviceGravity {
            printError("the recording's scale is wrong: a still device reads \(Import.significant(measured)) per g; replayed rescaled by \(Import.significant(normalizer.factor)), as orientationd would")
        }
        if !quiet { printError(Self.summary(detector.statistics, governor: governor.statistics)) }
        if !quiet, let posture { printError(posture.summary) }
    }

    static func summary(_ s: OrientationDetector.Statistics, governor: SampleRateGovernor.Statistics = .init()) -> String {
        var parts = ["\(s.samples) samples", "\(s.events) events"]
        if governor.dropped > 0 {
            parts.append("\(governor.dropped) skipped while still (--still-interval: the reader slowed \(governor.slowed) times)")
        }
        if s.ignoredNonFinite > 0 { parts.append("\(s.ignoredNonFinite) ignored with NaN or infinite values") }
        if s.ignoredZero > 0 { parts.append("\(s.ignoredZero) ignored as exactly zero") }
        if s.gapResets > 0 { parts.append("\(s.gapResets) filter restarts after gaps") }
        if s.timeReversals > 0 { parts.append("\(s.timeReversals) after time went backwards") }
        return "replay: " + parts.joined(separator: ", ")
    }
}

extension CleanExit {
    /// A message on standard error and exit status 1 (`failing`) — for bad input, where a usage
    /// text would only bury the file and line that matter.
    static func message(_ text: String, failing: Bool) -> Error {
        printError("orientationctl: \(text)")
        return ExitCode(failing ? 1 : 0)
    }
}
