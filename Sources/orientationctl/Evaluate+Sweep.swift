import ArgumentParser
import ConfigFileFormat
import DetectorEvaluation
import MotionSynthesis
import OrientationCore
import OrientationProtocol
import SensorLog

/// `evaluate --sweep NAME=A..B[:N]` (issue 41): the trade-off curve of one parameter over a set
/// of logs, so a user tuning a device sees it instead of guessing (docs/DETECTOR.md, "The
/// trade-off curve").
extension Evaluate {
    /// One row of the table: the totals over every input at one value, and how many inputs
    /// came out worse than at the value in use.
    struct SweepRow {
        var value: Double
        var total = EvaluationScore()
        /// Inputs with more spurious events than at the value in use.
        var moreSpurious = 0
        /// Inputs with more missed transitions than at the value in use.
        var moreMissed = 0
        /// Why the value could not be used (an invalid configuration), if so.
        var invalid: String?
    }

    /// Scores every log (and, with `--scenarios`, every scenario) at each value of the sweep and
    /// prints one line per value; the value in use is marked and is the reference for the
    /// per-input comparison. A log that cannot be read stops the sweep (exit status 1): a curve
    /// over fewer logs than asked would mislead.
    func runSweep(_ text: String) throws {
        let (base, _) = try detector.configurations()
        let sweep = try ParameterSweep(parsing: text, configuration: base)
        let parameter = OrientationDetector.Configuration.parameter(named: sweep.name)!
        let inputs: [(name: String, scenario: Scenario?)] = files.map { ($0, nil) }
            + (scenarios ? ScenarioCatalog.all.map { ("scenario: \($0.name)", $0) } : [])

        func scores(_ configuration: OrientationDetector.Configuration) throws -> [EvaluationScore] {
            let governor = try pace.configuration(detector: configuration)
            return try inputs.map { input in
                if let scenario = input.scenario {
                    return try RecordingEvaluation(samples: scenario.samples(rate: rate, gyroscope: !ignoreGyro),
                                                   configuration: configuration, ignoreGyroscope: ignoreGyro, governor: governor,
                                                   shortTilts: shortTilt).score
                }
                do {
                    var reader = try SensorLogReader(path: input.name)
                    return try RecordingEvaluation(configuration: configuration, ignoreGyroscope: ignoreGyro, governor: governor,
                                                   shortTilts: shortTilt) {
                        while let record = try reader.nextRecord() { if let sample = record.sample { return sample } }
                        return nil
                    }.score
                } catch let error as SensorLogError {
                    throw CleanExit.message("orientationctl: \(error.description)", failing: true)
                }
            }
        }

        let reference = try scores(base)
        var rows: [SweepRow] = []
        for value in sweep.values {
            var row = SweepRow(value: value)
            var configuration = base
            do {
                try parameter.apply(ParameterSweep.text(value), to: &configuration)
                try configuration.validate()
            } catch {
                row.invalid = "\(error)"
                rows.append(row)
                continue
            }
            let each = sweep.isCurrent(value) ? reference : try scores(configuration)
            for (score, before) in zip(each, reference) {
                row.total = row.total + score
                if score.spurious > before.spurious { row.moreSpurious += 1 }
                if score.missed > before.missed { row.moreMissed += 1 }
            }
            rows.append(row)
        }
        let what = "\(files.count) log\(files.count == 1 ? "" : "s")"
            + (scenarios ? " and \(ScenarioCatalog.all.count) scenarios at \(EventFormat.fixed(rate, decimals: 0)) Hz" : "")
            + (ignoreGyro ? ", gyroscope ignored" : "")
            + (shortTilt > 0 ? ", tilts returning within \(ParameterSweep.text(shortTilt)) s not turns" : "")
        var output = OutputBuffer()
        if json {
            for row in rows { output.appendLine(Self.sweepJSON(row, name: sweep.name, current: sweep.isCurrent(row.value))) }
        } else {
            output.appendLine("sweep of \(sweep.name) (\(parameter.unit)) over \(what):")
            let width = max(14, sweep.name.count + 1)
            output.appendLine(Self.sweepHeader(name: sweep.name, width: width))
            for row in rows { output.appendLine(Self.sweepLine(row, current: sweep.isCurrent(row.value), width: width)) }
        }
        output.flush()
        if !json {
            printError("false rot.: spurious events (evaluate's rules); excused: events at an ambiguous tilt or in a log's last 0.5 s that evaluate does not count; missed: truth transitions the detector never published; "
                       + "worse: inputs with more spurious events / more missed transitions than at the value in use (marked *)")
        }
    }

    static func sweepHeader(name: String, width: Int) -> String {
        [pad(name, width), pad("false rot.", 10), pad("excused", 7), pad("missed", 7), pad("matched", 11), pad("lat. median", 11), pad("lat. max", 9), "worse (spurious/missed)"]
            .joined(separator: " ")
    }

    /// `0.1 *          1       1    39/40       0.108 s   4.110 s  0/0`.
    static func sweepLine(_ row: SweepRow, current: Bool, width: Int) -> String {
        let value = ParameterSweep.text(row.value) + (current ? " *" : "")
        if let invalid = row.invalid { return pad(value, width) + " invalid: " + invalid }
        let t = row.total
        let seconds = { (x: Double?) in x.map { EventFormat.fixed($0, decimals: 3) + " s" } ?? "-" }
        return [pad(value, width), pad("\(t.spurious)", 10), pad("\(t.excused.count)", 7), pad("\(t.missed)", 7), pad("\(t.matched)/\(t.transitions)", 11),
                pad(seconds(t.latencyMedian), 11), pad(seconds(t.latencyMax), 9), "\(row.moreSpurious)/\(row.moreMissed)"]
            .joined(separator: " ")
    }

    static func sweepJSON(_ row: SweepRow, name: String, current: Bool) -> String {
        let seconds = { (x: Double?) -> JSONValue in x.map { .number(($0 * 1e6).rounded() / 1e6) } ?? .null }
        var members: [(String, JSONValue)] = [("parameter", .string(name)), ("value", .number(row.value)), ("current", .bool(current))]
        if let invalid = row.invalid {
            members.append(("invalid", .string(invalid)))
        } else {
            let t = row.total
            members += [
                ("transitions", .number(Double(t.transitions))), ("matched", .number(Double(t.matched))),
                ("missed", .number(Double(t.missed))), ("spurious", .number(Double(t.spurious))), ("excused", .number(Double(t.excused.count))),
                ("latency_median", seconds(t.latencyMedian)), ("latency_max", seconds(t.latencyMax)),
                ("inputs_more_spurious", .number(Double(row.moreSpurious))), ("inputs_more_missed", .number(Double(row.moreMissed))),
            ]
        }
        return JSONWriter.serialize(.object(members))
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
