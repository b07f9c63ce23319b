import Foundation
import Testing

/// `orientationctl plot`, end to end with the real binary.
@Suite struct PlotCommandTests {
    @Test func writesAnSVGForTheBundledRecording() throws {
        let output = try CommandRunner.temporaryFile("handheld.svg", contents: "")
        let result = try CommandRunner.run(["plot", "data/xio-fusion/handheld.log", "-o", output, "--from", "10", "--to", "40"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("wrote \(output) ("), "\(result.stderr)")
        let svg = try String(contentsOfFile: output, encoding: .utf8)
        #expect(svg.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.contains("showing 10.000–40.000 s. Score (whole recording): 9 transitions"))
    }

    /// Issue 38: a log whose first row holds 1e308 (finite, but its magnitude overflows) was
    /// refused with "the recording's time span changed while it was read": the span pass took
    /// the row, the drawing pass's scale learned infinity from it and zeroed the next. The row is
    /// ignored by every pass now, and the plot says so.
    @Test func aFirstRowOf1e308IsIgnoredAndNamed() throws {
        let lines = try String(contentsOfFile: "data/xio-fusion/handheld.log", encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let header = lines.prefix { $0.hasPrefix("#") }
        let data = lines.dropFirst(header.count)
        let columns = try #require(data.first)
        let rows = data.dropFirst().prefix(300)
        let first = try #require(rows.first).split(separator: ",")
        let poisoned = ([first[0], "1e308"] + first.dropFirst(2)).joined(separator: ",")
        let text = (header + [columns, Substring(poisoned)] + rows.dropFirst()).joined(separator: "\n") + "\n"
        let log = try CommandRunner.temporaryFile("big.log", contents: text)
        let output = try CommandRunner.temporaryFile("big.svg", contents: "")
        let result = try CommandRunner.run(["plot", log, "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("time span changed"), "\(result.stderr)")
        #expect(result.stderr.contains("1 sample ignored (1 not finite or overflowing, 0 zero)"), "\(result.stderr)")
    }

    @Test func writesToStandardOutput() throws {
        let result = try CommandRunner.run(["plot", "data/xio-fusion/handheld.log", "-o", "-", "--set", "settle-time=0.2", "--ignore-gyro"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("</svg>\n"))
        #expect(result.stdout.contains("Changed from the defaults: settle-time=0.2 (--ignore-gyro)"))
    }

    @Test func aBadRangeIsRefusedClearly() throws {
        let result = try CommandRunner.run(["plot", "data/xio-fusion/handheld.log", "-o", "-", "--from", "500", "--to", "600"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "orientationctl: --from 500.000 s is outside the recording: the recording runs 0.000000–135.326642 s\n",
                "\(result.stderr)")
        let backwards = try CommandRunner.run(["plot", "data/xio-fusion/handheld.log", "-o", "-", "--from", "40", "--to", "10"])
        #expect(backwards.status == 1)
        #expect(backwards.stdout.isEmpty)
        #expect(backwards.stderr == "orientationctl: --from 40.000 s is not before --to 10.000 s\n", "\(backwards.stderr)")
    }

    @Test func aMalformedLogIsNamedWithItsLine() throws {
        let bad = try CommandRunner.temporaryFile("bad.log", contents: "# orientationd-log v1\ntime,accel_x,accel_y,accel_z\n0,0,-9.8,0\n0.1,0,x,0\n")
        let result = try CommandRunner.run(["plot", bad, "-o", "-"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("bad.log:4:"), "\(result.stderr)")
    }
}
