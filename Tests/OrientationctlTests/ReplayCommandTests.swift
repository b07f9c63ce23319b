import Foundation
import Testing

/// `orientationctl replay`, end to end with the real binary.
@Suite struct ReplayCommandTests {
    static let bundledLog = "data/xio-fusion/handheld.log"
    static let expected = ["face-up", "portrait", "portrait-upside-down", "face-up", "landscape-right",
                           "landscape-left", "face-up", "landscape-left", "face-up"]

    @Test func replaysTheBundledRecording() throws {
        let result = try CommandRunner.run(["replay", Self.bundledLog])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.map { String($0.split(separator: " ")[1]) } == Self.expected)
        #expect(result.lines.allSatisfy { Double($0.split(separator: " ")[0]) != nil })
        #expect(result.stderr == "replay: 13514 samples, 9 events\n")
    }

    @Test func printsJSONLinesWithPrevious() throws {
        let result = try CommandRunner.run(["replay", "--json", "--quiet", Self.bundledLog])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        var previous = "unknown"
        var lastTime = -Double.infinity
        for line in result.lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["previous"] as? String == previous)
            let time = try #require(object["time"] as? Double)
            #expect(time > lastTime)
            lastTime = time
            previous = try #require(object["orientation"] as? String)
        }
        #expect(result.lines.count == Self.expected.count)
    }

    /// A log recorded from a device whose scale is 26× too large replays as the daemon would
    /// publish it (its pipeline normalises the scale), with a note.
    @Test func aRecordingWithAWrongScaleReplaysAsTheDaemonWouldPublishIt() throws {
        let text = try String(contentsOf: CommandRunner.repositoryRoot.appendingPathComponent(Self.bundledLog), encoding: .utf8)
        let scaled = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            guard cells.count >= 4, let time = Double(cells[0]) else { return String(line) }
            let accel = cells[1...3].map { String(format: "%.3f", (Double($0) ?? 0) * 26) }
            return ([String(format: "%.6f", time)] + accel + cells.dropFirst(4).map(String.init)).joined(separator: ",")
        }.joined(separator: "\n")
        let result = try CommandRunner.run(["replay", "-"], stdin: Data(scaled.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.map { String($0.split(separator: " ")[1]) } == Self.expected)
        #expect(result.stderr.contains("the recording's scale is wrong"), "\(result.stderr)")
    }

    @Test func readsStandardInput() throws {
        let log = try Data(contentsOf: CommandRunner.repositoryRoot.appendingPathComponent(Self.bundledLog))
        let result = try CommandRunner.run(["replay", "--quiet", "-"], stdin: log)
        #expect(result.status == 0)
        #expect(result.lines.count == Self.expected.count)
    }

    @Test func parameterOverridesChangeTheOutcome() throws {
        // Ignoring the gyroscope, demanding a 6 s settle while moving and no stillness (neither by
        // the spread nor, since issue 20, by the accelerometer's rate of turn) suppresses short
        // stretches.
        let tuned = try CommandRunner.run(["replay", "--quiet", "--ignore-gyro", "--set", "settle-time=6",
                                           "--set", "still-angle=0.01", "--set", "accel-quiet-rate=0", Self.bundledLog])
        #expect(tuned.status == 0, "\(tuned.stderr)")
        #expect(tuned.lines.count < Self.expected.count)
    }

    @Test func traceHasOneRowPerSample() throws {
        let result = try CommandRunner.run(["replay", "--trace", "--quiet", Self.bundledLog])
        #expect(result.status == 0)
        #expect(result.lines.first?.hasPrefix("time,accel_x,") == true)
        #expect(result.lines.count == 13_514 + 1)
        #expect(result.lines.filter { $0.contains("->face-up,") }.count == 4)
        // Every row has every column, the gate and steadiness flags last.
        let columns = result.lines[0].split(separator: ",").count
        #expect(columns == 17)
        #expect(result.lines.dropFirst().allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == columns })
    }

    struct BadInput: Sendable, CustomStringConvertible {
        let name: String
        let log: String
        let message: String  // after "orientationctl: <path>"
        var description: String { name }
    }

    static let badInputs: [BadInput] = [
        BadInput(name: "non-numeric cell",
                 log: "# orientationd-log v1\ntime,accel_x,accel_y,accel_z\n0.0,0,-9.8,0\n0.1,0,abc,0\n",
                 message: ":4: column accel_y: \"abc\" is not a number"),
        BadInput(name: "time going backwards",
                 log: "# orientationd-log v1\ntime,accel_x,accel_y,accel_z\n0.2,0,-9.8,0\n0.1,0,-9.8,0\n",
                 message: ":4: time 0.1 does not increase (previous sample at 0.2)"),
        BadInput(name: "missing header",
                 log: "# orientationd-log v1\n0.0,0,-9.8,0\n",
                 message: ":2: data before the column header"),
        BadInput(name: "not a log", log: "hello\n", message: ":1: not an orientationd log"),
    ]

    @Test(arguments: badInputs)
    func badLogsFailWithFileAndLine(_ row: BadInput) throws {
        let path = try CommandRunner.temporaryFile("bad.log", contents: row.log)
        let result = try CommandRunner.run(["replay", path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("orientationctl: \(path)\(row.message)"), "stderr: \(result.stderr)")
    }

    @Test func aMissingFileIsNamed() throws {
        let result = try CommandRunner.run(["replay", "/nonexistent/x.log"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("/nonexistent/x.log"))
        #expect(result.stderr.contains("No such file or directory"))
    }

    @Test func nanCellsAreReportedNotFatal() throws {
        var log = "# orientationd-log v1\ntime,accel_x,accel_y,accel_z\n"
        for k in 0..<100 { log += "\(Double(k) * 0.02),0.1,-9.8,0.5\n" }
        log += "2.0,nan,-9.8,0.5\n"
        let path = try CommandRunner.temporaryFile("nan.log", contents: log)
        let result = try CommandRunner.run(["replay", path])
        #expect(result.status == 0)
        #expect(result.lines.map { String($0.split(separator: " ")[1]) } == ["portrait"])
        #expect(result.stderr.contains("1 ignored with NaN or infinite values"))
    }

    @Test(arguments: [
        (["--set", "settle-time=-1"], "settle-time: must be zero or more"),
        (["--set", "settletime=1"], "settletime: unknown detector parameter; did you mean 'settle-time'?"),
        (["--set", "settle-time"], "--set settle-time: expected name=value"),
    ])
    func badParametersAreNamed(_ arguments: [String], _ message: String) throws {
        let result = try CommandRunner.run(["replay"] + arguments + [Self.bundledLog])
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
    }

    /// The daemon and orientationctl share one `--set` parser: blanks around the name and the
    /// value are ignored by both (they disagreed: one trimmed the name, neither the value).
    @Test func blanksAroundASetAssignmentAreIgnored() throws {
        let result = try CommandRunner.run(["parameters", "--set", " settle-time = 0.3 "])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.contains { $0.hasPrefix("settle-time ") && $0.contains(" 0.3 s") }, "\(result.stdout)")
    }

    @Test func configFileErrorsNameFileAndLine() throws {
        let path = try CommandRunner.temporaryFile("tuned.conf", contents: "[detector]\n# mine\nsettle-tme = 1\n")
        let result = try CommandRunner.run(["replay", "--config", path, Self.bundledLog])
        #expect(result.status != 0)
        #expect(result.stderr.contains("\(path):3: unknown detector parameter settle-tme; did you mean 'settle-time'?"), "\(result.stderr)")
    }

    @Test func configFileValuesApplyAndSetWins() throws {
        let path = try CommandRunner.temporaryFile("tuned.conf", contents: "[detector]\ndead-band = 10\n")
        let configured = try CommandRunner.run(["parameters", "--config", path, "--set", "settle-time=0.3"])
        #expect(configured.lines.contains { $0.hasPrefix("dead-band ") && $0.contains(" 10 deg") })
        #expect(configured.lines.contains { $0.hasPrefix("settle-time ") && $0.contains(" 0.3 s") })
        let shipped = try CommandRunner.run(["replay", "--quiet", "--config", "config/orientationd.conf", Self.bundledLog])
        #expect(shipped.lines.count == Self.expected.count)
    }
}
