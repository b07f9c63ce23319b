import ArgumentParser
import DetectorEvaluation
import MotionSynthesis
import OrientationCore
import OrientationProtocol
import PostureCore
import PostureSynthesis
import SensorLog

/// `orientationctl evaluate LOG…`: runs the detector over recordings and scores its events
/// against each recording's own ground truth (docs/DETECTOR.md, "Scoring against the
/// recording"), so a change to the detector or its parameters is judged by numbers across all
/// the data at hand, not by one log.
struct Evaluate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Score the detector on recorded logs: transitions matched, missed, spurious events, latency.",
        discussion: """
        Truth comes from each log itself: the acceleration low-passed (τ = 0.3 s) and labelled \
        face-up/face-down within 15° of horizontal, an in-plane orientation within 55° of vertical \
        and 30° of its edge; runs shorter than 0.5 s are dropped. Each change of that label is a \
        transition the detector should publish once; an event no transition explains is \
        spurious; a stretch whose state the detector already shows before it begins, with no \
        event inside it, needs none and is not missed. Prints per log, then the total; with --verbose, every matched transition with its \
        latency, every missed one, and every spurious or excused event. --json prints one object per log per line (transitions, already_shown, matched, missed, \
        spurious, latency_median, latency_max, log) and the total on standard error. Exit status \
        1 when a log cannot be read (the others are still scored). --scenarios adds the \
        specification's synthetic scenarios (`orientationctl simulate` lists them) at --rate, \
        scored by the same rules; a scenario scored short of perfect is also run against its \
        own specification, as `simulate --check` does, and the two verdicts are printed side by \
        side. In text, standard error ends with what each number means. \
        A convertible's log (v3, with a base accelerometer or lid switch) also runs the posture \
        detector ([posture] of --config); where the log states its truth (`expected-posture` \
        metadata, as `simulate --posture NAME --output FILE` writes it) the posture events are \
        judged by the posture specification's rules (exactly those postures, none before its \
        move, each within 0.8 s of rest) on a line of their own (--json: posture_events, \
        posture_pass, posture_failures, posture_latency_median, posture_latency_max in the \
        log's object). --scenarios also runs every posture scenario at 2.5, 5, 10 and 20 Hz \
        (a governed reader's rate up to the full one, whatever --rate says), judged the same \
        way, one block per rate ending in `posture at RATE Hz (N scenarios):` with its count, then a posture \
        total line, before the orientation's total (--json: on standard error, with the totals).
        """
    )

    @Argument(help: "The logs to score.")
    var files: [String] = []

    @Flag(help: "Also score every scenario of the specification, synthesised at --rate.")
    var scenarios = false

    @Option(help: "Sample rate for --scenarios, Hz.")
    var rate: Double = 50

    func validate() throws {
        guard !files.isEmpty || scenarios else { throw ValidationError("give at least one log, or --scenarios") }
        guard rate.isFinite, rate >= 1, rate <= 10_000 else { throw ValidationError("--rate must be between 1 and 10000 Hz") }
        guard shortTilt.isFinite, shortTilt >= 0, shortTilt <= 60 else { throw ValidationError("--short-tilt must be between 0 and 60 s") }
    }

    @Flag(help: "One JSON object per log per line.")
    var json = false

    @Flag(name: .shortAndLong, help: "List every matched transition with its latency, every missed one, every spurious and excused event.")
    var verbose = false

    @Flag(name: .customLong("ignore-gyro"), help: "Ignore gyroscope columns: score an accelerometer-only device.")
    var ignoreGyro = false

    @OptionGroup var detector: DetectorOptions

    @OptionGroup var pace: GovernorOptions

    @Option(help: ArgumentHelp("Score the inputs at N values of one numeric parameter from A to B (default 6, plus the value in use): "
                               + "false rotations, missed turns and latency per value (issue 41).", valueName: "name=A..B[:N]"))
    var sweep: String?

    @Option(name: .customLong("short-tilt"),
            help: ArgumentHelp("Truth: a run shorter than this between two runs of one label is a tilt that returns, not a turn "
                               + "(issue 41 names 1.5; default 0, off).", valueName: "seconds"))
    var shortTilt: Double = 0

    func run() throws {
        if let sweep { return try runSweep(sweep) }
        let (configuration, postureSettings) = try detector.configurations()
        let governor = try pace.configuration(detector: configuration)
        var output = OutputBuffer()
        var total = EvaluationScore()
        var scored = 0
        var failed = false
        let rate = self.rate
        var scoredLogs = 0, scoredScenarios = 0, disagreements = 0
        var paced = SampleRateGovernor.Statistics()
        var postureTally = PostureTally()
        // Logs are streamed through the detector and the truth (issue 18: reading a 149 MB log
        // whole took 1.18 GB); a log that fails partway is reported and skipped, as before.
        var inputs: [(name: String, scenario: Scenario?)] = files.map { ($0, nil) }
        if scenarios { inputs += ScenarioCatalog.all.map { ("scenario: \($0.name)", $0) } }
        for (file, scenario) in inputs {
            let evaluation: RecordingEvaluation
            var postureVerdict: PostureVerdict? = nil
            do {
                if let scenario {
                    evaluation = try RecordingEvaluation(samples: scenario.samples(rate: rate, gyroscope: !ignoreGyro),
                                                         configuration: configuration, ignoreGyroscope: ignoreGyro, governor: governor,
                                                         shortTilts: shortTilt)
                } else {
                    var reader = try SensorLogReader(path: file)
                    // A convertible's log: its rows feed the posture detector on the way, the
                    // display's samples go on to the orientation detector.
                    var posture = reader.hasBase || reader.hasLid ? try PostureReplay(configuration: postureSettings.detector) : nil
                    let metadata = reader.metadata
                    evaluation = try RecordingEvaluation(configuration: configuration, ignoreGyroscope: ignoreGyro, governor: governor,
                                                         shortTilts: shortTilt) {
                        while let record = try reader.nextRecord() {
                            if posture != nil { _ = posture!.feed(record) }
                            if let sample = record.sample { return sample }
                        }
                        return nil
                    }
                    if let posture {
                        do {
                            postureVerdict = try PostureVerdict(posture, metadata: metadata)
                        } catch {
                            output.flush()
                            printError("orientationctl: \(file): \(error)")
                            failed = true
                        }
                    }
                }
            } catch let error as SensorLogError {
                output.flush()
                printError("orientationctl: \(error.description)")
                failed = true
                continue
            }
            let score = evaluation.score
            total = total + score
            paced.admitted += evaluation.governor.admitted
            paced.dropped += evaluation.governor.dropped
            paced.slowed += evaluation.governor.slowed
            paced.woken += evaluation.governor.woken
            scored += 1
            if scenario == nil { scoredLogs += 1 } else { scoredScenarios += 1 }
            if let postureVerdict { postureTally.add(postureVerdict, scenario: false) }
            if json {
                output.appendLine(Self.json(score, log: file, posture: postureVerdict))
            } else {
                output.appendLine("\(file): \(Self.text(score))")
                if let postureVerdict { output.appendLine("\(file): posture: \(postureVerdict.text)") }
                if verbose { for line in Self.details(score) { output.appendLine("  " + line) } }
                if let scenario, score.missed + score.spurious > 0 {
                    // Reconcile with `simulate --check`: the same motion, judged by its own
                    // specification at this rate (issue 21: "2 missed" here beside "852 passed").
                    let run = try ScenarioRun(scenario, rate: rate, gyroscope: !ignoreGyro, configuration: configuration)
                    let truth = (score.matches.map(\.run) + score.missedRuns + score.shownRuns).sorted { $0.start < $1.start }.map(\.orientation.rawValue)
                    let expected = scenario.expected.map(\.orientation.rawValue)
                    output.appendLine("  its specification (simulate): \(run.failures.isEmpty ? "PASS" : "FAIL") at \(EventFormat.fixed(rate, decimals: 0)) Hz; "
                                      + "it expects \(expected.joined(separator: ", ")), the truth rule (no hysteresis) sees \(truth.joined(separator: ", "))")
                    if run.failures.isEmpty { disagreements += 1 }
                }
            }
        }
        if scenarios {
            // The posture specification (issue 30), each scenario judged by its own rules at
            // --rate. Before the orientation's total, which stays the last line; with --json on
            // standard error, as the totals are, so that standard output keeps one object per
            // log in the orientation's form.
            // Every posture scenario at every rate of the specification (issue 38: a governed
            // reader delivers 2.5 Hz while the posture is settled), one block per rate with its
            // own total: the posture table per rate.
            for postureRate in PostureScenarioCatalog.rates {
                var perRate = PostureTally()
                let hz = EventFormat.fixed(postureRate, decimals: postureRate == postureRate.rounded() ? 0 : 1)
                for scenario in PostureScenarioCatalog.all {
                    let verdict = PostureVerdict(try PostureScenarioRun(scenario, rate: postureRate, configuration: postureSettings.detector))
                    postureTally.add(verdict, scenario: true)
                    perRate.add(verdict, scenario: true)
                    let line = "posture scenario at \(hz) Hz: \(scenario.name): \(verdict.text)"
                    if json { printError(line) } else { output.appendLine(line) }
                }
                let line = "posture at \(hz) Hz " + perRate.line.dropFirst("posture total ".count)
                if json { printError(line) } else { output.appendLine(line) }
            }
        }
        if postureTally.judged > 0 {
            if json { printError(postureTally.line) } else { output.appendLine(postureTally.line) }
        }
        output.flush()
        if scored > 0 {
            var counted: [String] = []
            if scoredLogs > 0 || scoredScenarios == 0 { counted.append("\(scoredLogs) log\(scoredLogs == 1 ? "" : "s")") }
            if scoredScenarios > 0 { counted.append("\(scoredScenarios) scenario\(scoredScenarios == 1 ? "" : "s")") }
            let line = "total (\(counted.joined(separator: ", "))\(ignoreGyro ? ", gyroscope ignored" : "")\(shortTilt > 0 ? ", tilts returning within \(shortTilt) s not turns" : "")): \(Self.text(total))"
            if json { printError(line) } else {
                output.appendLine(line)
                output.flush()
                for note in Self.legend(total, scenarios: scoredScenarios > 0, disagreements: disagreements) { printError(note) }
                if postureTally.judged > 0 { printError(PostureVerdict.legend) }
                if governor.isEnabled { printError(Self.governorNote(paced, interval: governor.stillInterval)) }
            }
        }
        if failed { throw ExitCode(1) }
    }

    /// What the rate governor did over every input: the share of samples a governed reader
    /// would have read, and how often it slowed down and woke up.
    static func governorNote(_ paced: SampleRateGovernor.Statistics, interval: Double) -> String {
        let all = paced.admitted + paced.dropped
        let share = all == 0 ? 0 : 100 * Double(paced.admitted) / Double(all)
        return "still-interval \(EventFormat.fixed(interval, decimals: 2)) s (as orientationd reads a polled sensor): "
            + "the detector read \(paced.admitted) of \(all) samples (\(EventFormat.fixed(share, decimals: 1)) %), "
            + "slowed down \(paced.slowed) times, woke \(paced.woken) times"
    }

    /// What each number means, printed where they are (issue 21: negative latencies, excused
    /// events and the two scenario checks went unexplained).
    static func legend(_ total: EvaluationScore, scenarios: Bool, disagreements: Int) -> [String] {
        var notes = [
            "transitions: changes of the truth each log carries in itself (its acceleration smoothed, τ = 0.3 s, labelled by tilt and edge: DETECTOR.md); "
                + "matched: the detector published that orientation for it; missed: it did not; "
                + "already shown: a stretch whose state the detector showed before it began, with no event inside it, needs no event and is not a transition",
            "spurious: events no transition explains\(total.excused.isEmpty ? "" : "; \(total.excused.count) more were excused (at an ambiguous tilt, 55°–75°, or in a log's last 0.5 s) and are not counted") (-v lists each)",
            "latency: the event's time minus the truth's change; negative when the detector decided before the smoothed truth, which lags by about τ",
        ]
        if scenarios {
            notes.append("scenarios are scored by the recordings' truth rule at one rate; simulate --check judges each against its own specification "
                         + "(what it expects at rest, at 10, 50 and 100 Hz, with and without a gyroscope)"
                         + (disagreements > 0 ? "; \(disagreements) scenario\(disagreements == 1 ? "" : "s") above pass\(disagreements == 1 ? "es" : "") its specification: the detector holds an orientation by design (hysteresis) where the truth rule sees a change" : ""))
        }
        return notes
    }

    /// `9 transitions, 9 matched, 0 missed, 0 spurious; latency median 0.210 s, max 0.450 s`,
    /// with `(2 excused)` after the spurious count when some were.
    static func text(_ score: EvaluationScore) -> String {
        var line = "\(score.transitions) transitions"
        if score.alreadyShown > 0 { line += " (+\(score.alreadyShown) already shown)" }
        line += ", \(score.matched) matched, \(score.missed) missed, \(score.spurious) spurious"
        if !score.excused.isEmpty { line += " (\(score.excused.count) excused)" }
        if let median = score.latencyMedian, let max = score.latencyMax {
            line += "; latency median \(EventFormat.fixed(median, decimals: 3)) s, max \(EventFormat.fixed(max, decimals: 3)) s"
        }
        return line
    }

    /// Every matched transition (with its event and latency), missed transition, spurious and
    /// excused event, in time order.
    static func details(_ score: EvaluationScore) -> [String] {
        var lines: [(Double, String)] = []
        let t = { (x: Double) in EventFormat.fixed(x, decimals: 3) }
        for match in score.matches {
            lines.append((match.run.start, "matched   \(match.run.orientation) \(t(match.run.start))–\(t(match.run.end)) s by the event at \(t(match.event.time)) s (latency \(t(match.latency)) s)"))
        }
        for run in score.missedRuns {
            lines.append((run.start, "missed    \(run.orientation) \(t(run.start))–\(t(run.end)) s"))
        }
        for run in score.shownRuns {
            lines.append((run.start, "shown     \(run.orientation) \(t(run.start))–\(t(run.end)) s (already shown before it began, no event inside: needs none)"))
        }
        for event in score.spuriousEvents {
            lines.append((event.time, "spurious  \(event.orientation) at \(t(event.time)) s (from \(event.previous))"))
        }
        for (event, excuse) in score.excusedEvents {
            lines.append((event.time, "excused   \(event.orientation) at \(t(event.time)) s (\(excuse.rawValue))"))
        }
        return lines.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// One log's object; a convertible's log adds its posture verdict's `posture_*` members
    /// (``PostureVerdict/jsonMembers``) before `log`.
    static func json(_ score: EvaluationScore, log: String, posture: PostureVerdict? = nil) -> String {
        let seconds = { (x: Double?) -> JSONValue in x.map { .number(($0 * 1e6).rounded() / 1e6) } ?? .null }
        return JSONWriter.serialize(.object([
            ("transitions", .number(Double(score.transitions))),
            ("already_shown", .number(Double(score.alreadyShown))),
            ("matched", .number(Double(score.matched))),
            ("missed", .number(Double(score.missed))),
            ("spurious", .number(Double(score.spurious))),
            ("latency_median", seconds(score.latencyMedian)),
            ("latency_max", seconds(score.latencyMax)),
        ] + (posture?.jsonMembers ?? []) + [
            ("log", .string(log)),
        ]))
    }
}
