import ArgumentParser
import DetectorEvaluation
import OrientationCore
import PostureCore
import SensorLog

/// `orientationctl plot LOG -o FILE.svg`: one self-contained SVG timeline of what the detector
/// saw and decided, with the truth of `evaluate` beneath: "why did it rotate?" at a glance.
struct Plot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a recording and the detector's decisions as one SVG timeline.",
        discussion: """
        Lanes, each named in plain words with a one-line legend: screen tilt; which edge is up; \
        shaking (the acceleration gate); movement; settled; what the reading says (the \
        candidate); what waits to publish (pending); the published orientation with every event \
        (spurious ones red, matched ones with their latency; hover for details); the truth runs \
        of `orientationctl evaluate` beneath (missed ones hatched red). Time counts from the \
        log's first sample; the title gives the log's own clock (a phone's uptime, an epoch) \
        when it does not start at 0, and carries the score and every parameter changed from its \
        default. --from and --to zoom (seconds from the log's start, as on the axis, within the \
        recording). The detector takes the whole log from its start \
        whatever the range, so the state shown is the state the daemon would have had. A file \
        is read twice (its time span, then the drawing), so memory stays the same whatever its \
        length; standard input is read once and keeps about 40 bytes a sample. A convertible's \
        log (v3, with a base accelerometer or lid switch) adds, beneath the time axis, the hinge \
        angle with the posture boundaries (the [posture] section of --config) and the \
        stretches the posture detector held (hover: why), and the published posture with its \
        events; these keep about 40 bytes a reading. Exit status 1 on a malformed log or a bad range.
        """
    )

    @Argument(help: "The log to draw (- for standard input).")
    var file: String

    @Option(name: .shortAndLong, help: "The SVG file to write (- for standard output).")
    var output: String

    @Option(help: "Start of the range to draw, seconds from the log's start.")
    var from: Double?

    @Option(help: "End of the range to draw, seconds from the log's start.")
    var to: Double?

    @Option(help: "Width of the drawing in pixels.")
    var width = 1600

    @Flag(name: .customLong("ignore-gyro"), help: "Ignore gyroscope columns: as an accelerometer-only device would see it.")
    var ignoreGyro = false

    @OptionGroup var detector: DetectorOptions

    func run() throws {
        let (configuration, postureSettings) = try detector.configurations()
        // The title lists every parameter that differs from its default (--set or --config);
        // the notes say where they came from.
        var notes: [String] = []
        if let configFile = detector.configFile { notes.append("--config \(configFile)") }
        if ignoreGyro { notes.append("--ignore-gyro") }
        // Streamed (issue 18): the samples are not kept. A file is read twice: first for its time
        // span, so that the second pass keeps only the detector states this one drawing shows
        // (a few per pixel column; TimelineRowThinner). Standard input, read once, keeps one
        // state per sample (about 40 bytes).
        var plot: TimelinePlot
        do {
            var drawing: TimelinePlot.Drawing? = nil
            if file != "-", let span = try Self.span(of: file) {
                drawing = TimelinePlot.Drawing(width: width, from: from, to: to, span: span)
            }
            var reader = try SensorLogReader(path: file)
            // A convertible's log: each row feeds the posture detector on the way, and its state
            // after each is kept for the hinge and posture lanes.
            var posture = reader.hasBase || reader.hasLid ? try PostureReplay(configuration: postureSettings.detector) : nil
            var postureRows: [PostureTimeline.Row] = []
            plot = try TimelinePlot(name: file == "-" ? "standard input" : file, configuration: configuration,
                                    ignoreGyroscope: ignoreGyro, notes: notes, drawing: drawing) {
                while let record = try reader.nextRecord() {
                    if posture != nil {
                        _ = posture!.feed(record)
                        let d = posture!.detector
                        postureRows.append(PostureTimeline.Row(time: record.time, hingeAngle: d.hingeAngle, posture: d.posture, hold: d.hold))
                    }
                    if let sample = record.sample { return sample }
                }
                return nil
            }
            if let posture {
                plot.posture = PostureTimeline(rows: postureRows, events: posture.events, configuration: postureSettings.detector)
            }
        } catch let error as SensorLogError {
            throw CleanExit.message(error.description, failing: true)
        } catch let error as PlotError {
            throw CleanExit.message(error.description, failing: true)
        }
        let svg: String
        do {
            svg = try plot.svg(width: width, from: from, to: to)
        } catch {
            throw CleanExit.message(error.description, failing: true)
        }
        if output == "-" {
            var out = OutputBuffer()
            out.appendLine(String(svg.dropLast()))
            out.flush()
        } else {
            try writeFile(output, Array(svg.utf8))
            let postureEvents = plot.posture.map { ", \($0.events.count) posture events" } ?? ""
            let counts = plot.evaluation.statistics
            let ignored = counts.ignoredNonFinite + counts.ignoredZero
            // Rows the detector could not use are named, not hidden (issue 38: a first row of
            // 1e308 was reported as a time span that changed).
            let ignoredNote = ignored == 0 ? "" : ", \(ignored) sample\(ignored == 1 ? "" : "s") ignored (\(counts.ignoredNonFinite) not finite or overflowing, \(counts.ignoredZero) zero)"
            printError("wrote \(output) (\(svg.utf8.count) bytes, \(plot.evaluation.events.count) events\(postureEvents)\(ignoredNote))")
        }
    }

    /// The times of the first and last sample of `path` the detector accepts, or `nil` when it
    /// accepts none.
    static func span(of path: String) throws(SensorLogError) -> ClosedRange<Double>? {
        var reader = try SensorLogReader(path: path)
        var first: Double?, last: Double?
        while let sample = try reader.next() {
            guard OrientationDetector.accepts(sample) else { continue }
            if first == nil { first = sample.time }
            last = sample.time
        }
        guard let first, let last else { return nil }
        return first...last
    }
}
