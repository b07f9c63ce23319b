import Foundation
import Testing
import TestSupport

/// Issue 18, item 4: the commands that study a log hold a bounded amount of it. A valid
/// 149 MB log took 1.18 GB in `evaluate` (8× the file), which aborted under a 1 GB
/// address-space cap. Here a 600,000-sample log (about 10 MB; the old `evaluate` peaked at
/// 92 MB on it, the new one at 21.5) must be evaluated within 48 MiB of peak RSS.
@Suite(.serialized) struct LargeLogMemoryTests {
    static let samples = 600_000

    /// A valid log turning through five poses every 7 s at 100 Hz, in a fresh temporary directory.
    static func largeLog() -> String {
        let path = temporaryDirectory("large-log") + "/large.log"
        let poses = ["0,-9.8,0", "-9.8,0,0", "0,9.8,0", "9.8,0,0", "0,0,-9.8"]
        var bytes: [UInt8] = []
        bytes.reserveCapacity(samples * 18)
        bytes += Array("# orientationd-log v1\ntime,accel_x,accel_y,accel_z\n".utf8)
        for i in 0..<samples {
            let hundredths = i % 100
            bytes += Array("\(i / 100).\(hundredths < 10 ? "0" : "")\(hundredths),\(poses[(i / 700) % 5])\n".utf8)
        }
        writeBytes(path, bytes)
        return path
    }

    @Test func evaluateHoldsABoundedPartOfTheLog() throws {
        let log = Self.largeLog()
        defer { removeTree(String(log.dropLast("/large.log".count))) }
        let (result, peakKiB) = try CommandRunner.runMeasuringMemory(["evaluate", log])
        #expect(result.status == 0, "\(result.stderr)")
        // 600,000 samples turning every 7 s: 858 poses (the last 1 s long), each a transition, each matched.
        #expect(result.stdout.contains("large.log: 858 transitions, 858 matched, 0 missed, 0 spurious"), "\(result.stdout)")
        #expect(peakKiB < 48 * 1024, "peak RSS \(peakKiB) KiB")
    }

    /// calibrate --from-log keeps three poses, not the log (1.09 GB for 149 MB before; 86 MB
    /// here before, 21 MB now). The log's poses are not a calibration: the point is that all
    /// 857 holds were found from a stream.
    @Test func calibrateFromALogHoldsABoundedPartOfIt() throws {
        let log = Self.largeLog()
        defer { removeTree(String(log.dropLast("/large.log".count))) }
        let (result, peakKiB) = try CommandRunner.runMeasuringMemory(["calibrate", "--from-log", log])
        #expect(result.stderr.contains("large.log: 857 still poses; using the first three"), "\(result.stderr)")
        #expect(result.stderr.contains("180° apart"), "\(result.stderr)")
        #expect(peakKiB < 48 * 1024, "peak RSS \(peakKiB) KiB")
    }

    /// plot reads a file twice: once for its time span, then keeping only the detector states
    /// its one drawing shows, a few per pixel column (TimelineRowThinner). 114 MiB on this log
    /// when it held everything, 62 MiB with a row per sample, now under the bound of the others.
    @Test func plotHoldsABoundedPartOfTheLog() throws {
        let log = Self.largeLog()
        defer { removeTree(String(log.dropLast("/large.log".count))) }
        let (result, peakKiB) = try CommandRunner.runMeasuringMemory(["plot", "-o", "/dev/null", log])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(peakKiB < 48 * 1024, "peak RSS \(peakKiB) KiB")
        print("plot peak RSS: \(peakKiB) KiB")
    }

    /// Under a 1 GiB address-space cap (where the old evaluate aborted on a 149 MB log with
    /// "failed to allocate"), evaluate and plot finish.
    @Test(arguments: [["evaluate"], ["plot", "-o", "/dev/null"]])
    func studyingALogFitsUnderAnAddressSpaceCap(_ command: [String]) throws {
        let log = Self.largeLog()
        defer { removeTree(String(log.dropLast("/large.log".count))) }
        let (result, _) = try CommandRunner.runMeasuringMemory(command + [log], addressSpaceBytes: 1 << 30)
        #expect(result.status == 0, "\(result.stderr)")
    }
}
