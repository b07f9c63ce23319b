import Foundation
import Testing

/// Issue 21, item 4: `import` no longer produces wrong data silently. The two reproductions:
/// nanosecond epoch times imported as seconds, and Android's proper acceleration imported as
/// the gravity vector.
@Suite struct ImportInferenceTests {
    /// A Sensor Logger export: a header, time in nanoseconds since the epoch, x, y, z in m/s²,
    /// standing in portrait for 3 s at 100 Hz (gravity vector: y = -9.81).
    static func sensorLogger(y: Double = -9.81) -> String {
        var csv = "time,seconds_elapsed,x,y,z\n"
        for k in 0..<300 {
            csv += "\(1_700_000_000_000_000_000 + UInt64(k) * 10_000_000),\(Double(k) * 0.01),0.02,\(y),0.1\n"
        }
        return csv
    }

    @Test func nanosecondEpochTimesAreReadAsNanosecondsAndSaidSo() throws {
        let input = try CommandRunner.temporaryFile("sensor-logger.csv", contents: Self.sensorLogger())
        let output = input.replacingOccurrences(of: ".csv", with: ".log")
        let imported = try CommandRunner.run(["import", "--accel-columns", "3,4,5", "--accel-unit", "m/s2", "--gravity-vector", input, "-o", output])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("are not seconds; reading them as ns (rows 10.0 ms apart). Give --time-unit to choose otherwise."),
                "\(imported.stderr)")
        let log = try String(contentsOfFile: output, encoding: .utf8)
        let first = try #require(log.split(separator: "\n").first { !$0.hasPrefix("#") && $0.first?.isNumber == true })
        #expect(first.hasPrefix("1700000000.000000,"), "\(first)")
        let replayed = try CommandRunner.run(["replay", output])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(replayed.lines.map { String($0.split(separator: " ")[1]) } == ["portrait"], "\(replayed.stdout)")
        #expect(!replayed.stderr.contains("restart"), "no filter restarts: \(replayed.stderr)")
    }

    /// A stated unit is obeyed, however odd: the user decided.
    @Test func aStatedTimeUnitIsObeyed() throws {
        let input = try CommandRunner.temporaryFile("stated.csv", contents: Self.sensorLogger())
        let imported = try CommandRunner.run(["import", "--accel-columns", "3,4,5", "--accel-unit", "m/s2", "--gravity-vector",
                                              "--time-unit", "us", input, "-o", "-"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(!imported.stderr.contains("not seconds"), "\(imported.stderr)")
        #expect(imported.stdout.contains("\n1700000000000.000000,"), "\(imported.stdout.prefix(400))")
    }

    /// Android's proper acceleration (+9.81 on y standing upright) without a sign option: it
    /// would replay as portrait-upside-down. Stopped, with the fix, and nothing written.
    @Test func anInvertedGravitySignStopsWithTheFix() throws {
        let input = try CommandRunner.temporaryFile("android.csv", contents: Self.sensorLogger(y: 9.81))
        let output = input.replacingOccurrences(of: ".csv", with: ".log")
        let refused = try CommandRunner.run(["import", "--accel-columns", "3,4,5", "--accel-unit", "m/s2", "--time-unit", "ns", input, "-o", output])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("the device reads upside down or face down far more than upright or face up"), "\(refused.stderr)")
        #expect(refused.stderr.contains("Add --proper-acceleration"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output), "nothing written")

        let fixed = try CommandRunner.run(["import", "--accel-columns", "3,4,5", "--accel-unit", "m/s2", "--time-unit", "ns",
                                           "--proper-acceleration", input, "-o", output])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        let replayed = try CommandRunner.run(["replay", "--quiet", output])
        #expect(replayed.lines.map { String($0.split(separator: " ")[1]) } == ["portrait"], "\(replayed.stdout)")

        // Really upside down: --gravity-vector says so.
        let kept = try CommandRunner.run(["import", "--accel-columns", "3,4,5", "--accel-unit", "m/s2", "--time-unit", "ns",
                                          "--gravity-vector", input, "-o", output])
        #expect(kept.status == 0, "\(kept.stderr)")
        let upsideDown = try CommandRunner.run(["replay", "--quiet", output])
        #expect(upsideDown.lines.map { String($0.split(separator: " ")[1]) } == ["portrait-upside-down"], "\(upsideDown.stdout)")
    }

    @Test func aFaceDownMeanIsCaughtToo() throws {
        var csv = "t,x,y,z\n"
        for k in 0..<100 { csv += "\(Double(k) * 0.02),0.1,0.3,9.8\n" }  // proper acceleration lying face up
        let input = try CommandRunner.temporaryFile("flat.csv", contents: csv)
        let refused = try CommandRunner.run(["import", "--accel-columns", "2,3,4", "--accel-unit", "m/s2", input, "-o", "-"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("reads upside down or face down") && refused.stderr.contains("--proper-acceleration"), "\(refused.stderr)")
    }
}
