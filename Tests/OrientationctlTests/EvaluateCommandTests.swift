import Foundation
import Testing

/// `orientationctl evaluate`, end to end with the real binary, on every bundled recording.
@Suite struct EvaluateCommandTests {
    /// Every `*.log` under data/, relative to the repository root: new recordings are covered
    /// without touching this file.
    static var bundledLogs: [String] {
        let root = CommandRunner.repositoryRoot
        let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent("data").path)
        var logs: [String] = []
        while let path = enumerator?.nextObject() as? String {
            if path.hasSuffix(".log") { logs.append("data/" + path) }
        }
        return logs.sorted()
    }

    struct Line: Decodable {
        var transitions, matched, missed, spurious: Int
        var latency_median, latency_max: Double?
        var log: String
    }

    @Test func scoresEveryBundledRecordingAsJSONLines() throws {
        let logs = Self.bundledLogs
        #expect(!logs.isEmpty)
        for ignoreGyro in [false, true] {
            let result = try CommandRunner.run(["evaluate", "--json"] + (ignoreGyro ? ["--ignore-gyro"] : []) + logs)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = try result.lines.map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
            #expect(lines.map(\.log) == logs)
            // A recording with no settled stretch (walking while reading: the tilt stays in the
            // ambiguous band) still tests something, spurious events; but the set as a whole must
            // have transitions to match.
            #expect(lines.contains { $0.transitions > 0 }, "no bundled recording has a settled stretch")
            for line in lines {
                #expect(line.transitions == line.matched + line.missed, "\(line.log)")
                #expect((line.latency_median == nil) == (line.matched == 0))
                if let median = line.latency_median, let max = line.latency_max { #expect(median <= max) }
            }
            // The total goes to standard error, so the JSON lines stay one object per log.
            #expect(result.stderr.hasPrefix("total (\(logs.count) log"))
        }
    }

    @Test func theBundledHandheldRecordingIsScoredPerfectly() throws {
        let result = try CommandRunner.run(["evaluate", "--verbose", "data/xio-fusion/handheld.log"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.first?.hasPrefix("data/xio-fusion/handheld.log: 9 transitions, 9 matched, 0 missed, 0 spurious; latency median ") == true,
                "\(result.stdout)")
        #expect(result.lines.last?.hasPrefix("total (1 log): 9 transitions") == true)
        // --verbose lists each matched transition with its event and latency (issue 41: where
        // the median's time goes), in time order.
        let matched = result.lines.filter { $0.hasPrefix("  matched   ") }
        #expect(matched.count == 9, "\(result.stdout)")
        #expect(matched.first?.hasPrefix("  matched   face-up 0.000–") == true, "\(matched)")
        #expect(matched.allSatisfy { $0.contains(" s by the event at ") && $0.hasSuffix(" s)") && $0.contains("(latency ") }, "\(matched)")
    }

    @Test func aChangedParameterChangesTheScore() throws {
        // A settle time of 20 s while moving, and no stillness (neither by the spread nor, since
        // issue 20, by the accelerometer's rate of turn): most stretches are never published.
        let result = try CommandRunner.run(["evaluate", "--ignore-gyro", "--set", "settle-time=20", "--set", "still-angle=0.01",
                                           "--set", "accel-quiet-rate=0", "data/xio-fusion/handheld.log"])
        #expect(result.status == 0, "\(result.stderr)")
        let missed = result.lines.first.flatMap { line in
            line.split(separator: ",").first { $0.hasSuffix("missed") }.flatMap { Int($0.split(separator: " ")[0]) }
        }
        #expect((missed ?? 0) > 3, "\(result.stdout)")
    }

    @Test func aMalformedLogIsNamedWithItsLineAndTheOthersAreStillScored() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("evaluate-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bad = directory.appendingPathComponent("bad.log")
        try "# orientationd-log v1\ntime,accel_x,accel_y,accel_z\n0,0,-9.8,0\n0.1,abc,-9.8,0\n".write(to: bad, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["evaluate", bad.path, "data/xio-fusion/handheld.log"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("bad.log:4:"), "\(result.stderr)")
        #expect(result.lines.contains { $0.hasPrefix("data/xio-fusion/handheld.log: 9 transitions") })
    }

    @Test func scenariosAreScoredByTheSameRules() throws {
        let result = try CommandRunner.run(["evaluate", "--scenarios", "--json", "--rate", "25"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try result.lines.map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        #expect(lines.count > 100)
        #expect(lines.allSatisfy { $0.log.hasPrefix("scenario: ") })
    }

    @Test func needsSomethingToScore() throws {
        let result = try CommandRunner.run(["evaluate"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("give at least one log, or --scenarios"))
    }
}
