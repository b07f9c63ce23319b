import Foundation
import Testing

/// Issue 21, items 6 and 10: what a new user trips over on the command line, each reproduced
/// with the real binary.
@Suite struct PapercutTests {
    /// A mistake found while running a subcommand ends with that subcommand's usage, not the
    /// top-level list of every subcommand.
    @Test(arguments: [
        (["simulate", "no such scenario"], "orientationctl simulate"),
        (["import", "x.csv", "-o", "-"], "orientationctl import"),
        (["replay"], "orientationctl replay"),
    ])
    func aSubcommandsMistakeEndsWithItsOwnUsage(_ row: (arguments: [String], usage: String)) throws {
        let result = try CommandRunner.run(row.arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("Usage: \(row.usage)"), "\(result.stderr)")
        #expect(!result.stderr.contains("SUBCOMMANDS"), "\(result.stderr)")
        #expect(result.stderr.contains("See '\(row.usage) --help'"), "\(result.stderr)")
    }

    @Test func calibrateErrorsNameTheProgramOnce() throws {
        let result = try CommandRunner.run(["calibrate", "--from-log", "/nonexistent/cal.log"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("orientationctl: calibrate: "), "\(result.stderr)")
        #expect(!result.stderr.contains("orientationctl: orientationctl"), "\(result.stderr)")
    }

    @Test func bothProgramsHaveVersion() throws {
        let ctl = try CommandRunner.run(["--version"])
        #expect(ctl.status == 0)
        #expect(ctl.stdout.range(of: #"^orientationctl \d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil, "\(ctl.stdout)")
        let daemon = Process()
        daemon.executableURL = CommandRunner.executable.deletingLastPathComponent().appendingPathComponent("orientationd")
        daemon.arguments = ["--version"]
        let out = Pipe()
        daemon.standardOutput = out
        try daemon.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        daemon.waitUntilExit()
        #expect(daemon.terminationStatus == 0)
        // One release: the daemon's version (also its hello's "server") is orientationctl's.
        #expect(text == ctl.stdout.replacingOccurrences(of: "orientationctl", with: "orientationd"), "\(text)")
    }

    /// `--socket` at something that is not a socket says so, instead of blaming a stopped daemon.
    @Test func aSocketPathThatIsARegularFileIsNamedAsSuch() throws {
        let file = try CommandRunner.temporaryFile("not-a-socket", contents: "hello\n")
        let result = try CommandRunner.run(["get", "--socket", file])
        #expect(result.status == 1)
        #expect(result.stderr.contains("a regular file, not a socket: check --socket"), "\(result.stderr)")
        #expect(!result.stderr.contains("stopped without removing"), "\(result.stderr)")
        let directory = URL(fileURLWithPath: file).deletingLastPathComponent().path
        let onDirectory = try CommandRunner.run(["get", "--socket", directory])
        #expect(onDirectory.stderr.contains("a directory, not a socket"), "\(onDirectory.stderr)")
    }

    /// The README's command names four scenarios: they are listed, and an ASCII spelling works.
    @Test func anAmbiguousScenarioListsTheMatches() throws {
        let result = try CommandRunner.run(["simulate", "half turn portrait", "--rate", "50", "--gyro"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("4 scenarios match"), "\(result.stderr)")
        let listed = result.stderr.split(separator: "\n").filter { $0.hasPrefix("  half turn portrait → ") }
        #expect(listed.count == 4, "\(result.stderr)")
    }

    @Test(arguments: ["half turn portrait -> portrait-upside-down (clockwise) in 0.45 s",
                      "half turn portrait to portrait-upside-down (clockwise) in 0.45",
                      "half turn portrait → portrait-upside-down (clockwise) in 0.45 s"])
    func aScenarioCanBeTypedInASCII(_ name: String) throws {
        let result = try CommandRunner.run(["simulate", name, "--rate", "50", "--gyro"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.first == "half turn portrait → portrait-upside-down (clockwise) in 0.45 s @ 50.0 Hz with gyroscope", "\(result.stdout)")
        #expect(result.lines.last == "PASS")
    }

    @Test func degreesCanBeTypedInASCII() throws {
        let result = try CommandRunner.run(["simulate", "steep (60 deg tilt)"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.first?.hasPrefix("hand-held: landscape, steep (60° tilt) @ ") == true, "\(result.stdout)")
    }

    /// `simulate --check NAME` filters with the same matching.
    @Test func checkFiltersWithTheASCIISpellingToo() throws {
        let result = try CommandRunner.run(["simulate", "--check", "half turn portrait -> portrait-upside-down (clockwise) in 0.45"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("6 passed, 0 failed"), "\(result.stdout)")
    }
}
