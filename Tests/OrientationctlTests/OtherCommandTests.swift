import Foundation
import Testing

@Suite struct OtherCommandTests {
    @Test func importConvertsForeignCSVThatReplayThenReads() throws {
        // x-io layout: time, gyro (deg/s) ×3, accel (g) ×3, magnetometer ×3; proper acceleration.
        var csv = "Time (s),Gx,Gy,Gz,Ax,Ay,Az,Mx,My,Mz\n"
        for k in 0..<150 { csv += "\(Double(k) * 0.01),0,0,0,0,1,0,1,2,3\n" }  // standing in portrait: +1 g up = +y
        let input = try CommandRunner.temporaryFile("in.csv", contents: csv)
        let output = input.replacingOccurrences(of: "in.csv", with: "out.log")
        let imported = try CommandRunner.run(["import", "--preset", "xio-fusion", input, "-o", output])
        #expect(imported.status == 0, "\(imported.stderr)")
        let log = try String(contentsOfFile: output, encoding: .utf8)
        #expect(log.hasPrefix("# orientationd-log v1\n# source: imported from in.csv\n"))
        #expect(log.contains("\n0.010000,0.00000,-9.80665,0.00000,0.00000,0.00000,0.00000\n"))
        let replayed = try CommandRunner.run(["replay", "--quiet", output])
        #expect(replayed.lines.map { String($0.split(separator: " ")[1]) } == ["portrait"])
    }

    @Test func importNamesTheBadLine() throws {
        let input = try CommandRunner.temporaryFile("bad.csv", contents: "t,x,y,z\n0,0,-9.8,0\n0.1,0,oops,0\n")
        let result = try CommandRunner.run(["import", "--accel-columns", "2,3,4", "--accel-unit", "m/s2", input, "-o", "-"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("\(input):3: accel y column 3: \"oops\" is not a number"), "\(result.stderr)")
    }

    struct DelimitedInput: Sendable, CustomStringConvertible {
        let delimiter: String, text: String
        var description: String { delimiter }
    }

    /// Space-, tab- and semicolon-separated exports without a time column: time from --rate.
    @Test(arguments: [
        DelimitedInput(delimiter: "whitespace", text: "ax ay az\n 0.0  1.0\t0.0\n0.0 1.0 0.0\n0.0 1.0 0.0\n"),
        DelimitedInput(delimiter: "tab", text: "ax\tay\taz\n0\t1\t0\n0\t1\t0\n0\t1\t0\n"),
        DelimitedInput(delimiter: "semicolon", text: "ax;ay;az\n0;1;0\n0;1;0\n0;1;0\n"),
    ])
    func importReadsOtherDelimitersAndSynthesisesTime(_ input: DelimitedInput) throws {
        let file = try CommandRunner.temporaryFile("in-\(input.delimiter).txt", contents: input.text)
        let result = try CommandRunner.run(["import", "--delimiter", input.delimiter, "--rate", "50", "--accel-columns", "1,2,3",
                                            "--accel-unit", "g", "--proper-acceleration", file, "-o", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Array(result.lines.suffix(3)) == ["0.000000,0.00000,-9.80665,0.00000", "0.020000,0.00000,-9.80665,0.00000",
                                                  "0.040000,0.00000,-9.80665,0.00000"], "\(result.stdout)")
    }

    @Test func importRejectsATimeColumnTogetherWithARate() throws {
        let file = try CommandRunner.temporaryFile("both.csv", contents: "t,x,y,z\n0,0,1,0\n")
        let result = try CommandRunner.run(["import", "--time-column", "1", "--rate", "50", "--accel-columns", "2,3,4", file, "-o", "-"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("give --time-column or --rate, not both"), "\(result.stderr)")
    }

    /// With no daemon, the error says what is wrong and what to do, not NIO's system-call text.
    @Test func clientErrorsSayWhatAPersonNeeds() throws {
        let missing = try CommandRunner.run(["get", "--socket", "/nonexistent-dir/orientationd.sock"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("cannot connect to /nonexistent-dir/orientationd.sock: no socket there, so orientationd is not running"),
                "\(missing.stderr)")
        #expect(!missing.stderr.contains("descriptor"))
        // A socket file nobody listens on (a daemon that died without removing it).
        let notListening = try CommandRunner.temporaryFile("stale.sock", contents: "")
        try FileManager.default.removeItem(atPath: notListening)
        let bind = Process()
        bind.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        bind.arguments = ["-c", "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", notListening]
        try bind.run()
        bind.waitUntilExit()
        let refused = try CommandRunner.run(["get", "--socket", notListening])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("nothing is listening"), "\(refused.stderr)")
    }

    @Test func parametersListsEveryParameterWithItsDefault() throws {
        let result = try CommandRunner.run(["parameters"])
        #expect(result.status == 0)
        #expect(result.lines.contains { $0.hasPrefix("settle-time ") && $0.contains("0.1 s") })
        #expect(result.lines.contains { $0.hasPrefix("portrait-tilt ") && $0.contains("-50..72 deg") })
        let changed = try CommandRunner.run(["parameters", "--set", "dead-band=30"])
        #expect(changed.lines.contains { $0.hasPrefix("dead-band ") && $0.contains("30 deg") })
    }

    @Test func simulateRunsACatalogScenario() throws {
        let result = try CommandRunner.run(["simulate", "rotate portrait → landscape-left in 0.35 s at 30° tilt", "--rate", "100", "--gyro"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.lines.last == "PASS")
        let list = try CommandRunner.run(["simulate"])
        #expect(list.lines.count > 100)
        let ambiguous = try CommandRunner.run(["simulate", "rotate"])
        #expect(ambiguous.status != 0)
        #expect(ambiguous.stderr.contains("scenarios match; name one of them"), "\(ambiguous.stderr)")
        #expect(ambiguous.stderr.contains("\n  rotate portrait → landscape-left in 0.35 s at 30° tilt\n"), "the matches are listed")
    }
}
