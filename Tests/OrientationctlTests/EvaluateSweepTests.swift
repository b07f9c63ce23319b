import Foundation
import Testing

/// `orientationctl evaluate --sweep` (issue 41), end to end with the real binary: the row of the
/// value in use is exactly what a plain `evaluate` scores, the other rows really change the
/// parameter, and a bad sweep is a usage error that says why.
@Suite struct EvaluateSweepTests {
    static let logs = ["data/xio-fusion/handheld.log", "data/jaume-i-tug-pocket/s08-01-phone.log",
                       "data/oxford-step-counter/pixel-jamie-purse-1.log"]

    struct Row: Decodable {
        var parameter: String
        var value: Double
        var current: Bool
        var transitions, matched, missed, spurious: Int?
        var latency_median: Double?
        var invalid: String?
    }

    struct Total: Decodable {
        var transitions, matched, missed, spurious: Int
        var latency_median: Double?
    }

    @Test(arguments: [false, true])
    func theValueInUseScoresAsPlainEvaluate(ignoreGyro: Bool) throws {
        let flags = ignoreGyro ? ["--ignore-gyro"] : []
        let sweep = try CommandRunner.run(["evaluate", "--json", "--sweep", "settle-time=0.3..0.8:2"] + flags + Self.logs)
        #expect(sweep.status == 0, "\(sweep.stderr)")
        let rows = try sweep.lines.map { try JSONDecoder().decode(Row.self, from: Data($0.utf8)) }
        // Two values asked; the default, 0.1 s, lies outside the range and is not added.
        #expect(rows.map(\.value) == [0.3, 0.8], "\(sweep.stdout)")
        #expect(!rows.contains { $0.current })

        let around = try CommandRunner.run(["evaluate", "--json", "--sweep", "settle-time=0.05..0.3:2"] + flags + Self.logs)
        #expect(around.status == 0, "\(around.stderr)")
        let withDefault = try around.lines.map { try JSONDecoder().decode(Row.self, from: Data($0.utf8)) }
        #expect(withDefault.map(\.value) == [0.05, 0.1, 0.3], "the value in use is added: \(around.stdout)")
        #expect(withDefault.map(\.current) == [false, true, false])

        // Plain evaluate prints its total on standard error with --json; per log on stdout.
        let plain = try CommandRunner.run(["evaluate", "--json"] + flags + Self.logs)
        #expect(plain.status == 0, "\(plain.stderr)")
        let perLog = try plain.lines.map { try JSONDecoder().decode(Total.self, from: Data($0.utf8)) }
        let current = try #require(withDefault.first { $0.current })
        #expect(current.transitions == perLog.map(\.transitions).reduce(0, +))
        #expect(current.matched == perLog.map(\.matched).reduce(0, +))
        #expect(current.missed == perLog.map(\.missed).reduce(0, +))
        #expect(current.spurious == perLog.map(\.spurious).reduce(0, +))

        // A settle time of 0.8 s really runs a different detector: the moving path publishes
        // later, so the median latency over the same logs is longer.
        let slow = try #require(rows.last?.latency_median), fast = try #require(current.latency_median)
        #expect(slow > fast, "\(sweep.stdout)")
    }

    @Test func theTableMarksTheValueInUseAndNamesInvalidValues() throws {
        // face-up-exit-tilt above face-up-enter-tilt (78°) is refused by the configuration.
        let result = try CommandRunner.run(["evaluate", "--sweep", "face-up-exit-tilt=50..90:5", Self.logs[0]])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.first?.hasPrefix("sweep of face-up-exit-tilt (deg) over 1 log:") == true, "\(result.stdout)")
        let rows = result.lines.dropFirst(2)
        #expect(rows.map { String($0.prefix(while: { $0 != " " })) } == ["50", "60", "62", "70", "80", "90"], "\(result.stdout)")
        #expect(rows.filter { $0.contains(" * ") || $0.hasPrefix("62 *") }.count == 1, "\(result.stdout)")
        #expect(rows.last?.contains("invalid:") == true, "\(result.stdout)")
        #expect(rows.first?.contains("invalid:") == false, "\(result.stdout)")
    }

    @Test(arguments: [
        ("settle-time", "NAME=A..B"),
        ("nonsense=1..2", "unknown detector parameter"),
        ("portrait-tilt=1..2", "tilt range"),
        ("settle-time=0.3..0.1", "A < B"),
        ("settle-time=0.1..0.3:1", "2 to 50"),
    ])
    func aBadSweepIsAUsageErrorThatSaysWhy(_ argument: String, _ reason: String) throws {
        let result = try CommandRunner.run(["evaluate", "--sweep", argument, Self.logs[0]])
        #expect(result.status == 64, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains(reason), "\(result.stderr)")
    }
}
