import Foundation
import Testing

/// `orientationctl calibrate --from-log`: the three guided poses read out of a recording.
@Suite struct CalibrateCommandTests {
    /// A recording of the three steps on a sensor mounted with `matrix` (canonical = matrix ·
    /// raw): each pose held `hold` seconds at 100 Hz with a little noise, quarter turns between.
    static func log(mountedWith m: [Double], hold: Double = 2, header: [String] = []) -> String {
        func raw(_ g: (Double, Double, Double)) -> (Double, Double, Double) {
            (m[0] * g.0 + m[3] * g.1 + m[6] * g.2, m[1] * g.0 + m[4] * g.1 + m[7] * g.2, m[2] * g.0 + m[5] * g.1 + m[8] * g.2)
        }
        let poses = [(0.0, -9.81, 0.0), (-9.81, 0.0, 0.0), (0.0, 0.0, -9.81)]
        var rows = ["# orientationd-log v1", "# device: accel_3d (iio:device0)"] + header + ["time,accel_x,accel_y,accel_z"]
        var time = 0.0
        for (index, pose) in poses.enumerated() {
            if index > 0 {
                let from = poses[index - 1]
                for k in 1...40 {  // a quarter turn in 0.4 s
                    let t = Double(k) / 40
                    var g = (from.0 * (1 - t) + pose.0 * t, from.1 * (1 - t) + pose.1 * t, from.2 * (1 - t) + pose.2 * t)
                    let length = (g.0 * g.0 + g.1 * g.1 + g.2 * g.2).squareRoot()
                    g = (g.0 * 9.81 / length, g.1 * 9.81 / length, g.2 * 9.81 / length)
                    let r = raw(g)
                    rows.append(String(format: "%.3f,%.4f,%.4f,%.4f", time, r.0, r.1, r.2))
                    time += 0.01
                }
            }
            for k in 0..<Int(hold * 100) {
                let r = raw(pose)
                let noise = 0.04 * Double(k % 5 - 2)
                rows.append(String(format: "%.3f,%.4f,%.4f,%.4f", time, r.0 + noise, r.1 - noise, r.2 + noise / 2))
                time += 0.01
            }
        }
        return rows.joined(separator: "\n") + "\n"
    }

    static let rotated: [Double] = [0, 1, 0, -1, 0, 0, 0, 0, 1]  // a sensor turned a quarter on the board

    @Test func aRotatedSensorGetsItsMatrixAndTheSteps() throws {
        let path = try CommandRunner.temporaryFile("rotated.log", contents: Self.log(mountedWith: Self.rotated))
        let result = try CommandRunner.run(["calibrate", "--from-log", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.first == "mount matrix: 0, 1, 0; -1, 0, 0; 0, 0, 1", "\(result.stdout)")
        #expect(result.stdout.contains("[sensor]\nmount-matrix = 0, 1, 0; -1, 0, 0; 0, 0, 1"))
        #expect(result.stdout.contains(" ACCEL_MOUNT_MATRIX=0, 1, 0; -1, 0, 0; 0, 0, 1"))
        #expect(result.stdout.contains("systemd-hwdb update"))
    }

    @Test func aMirroredSensorIsRefusedWithAnExplanation() throws {
        let mirrored: [Double] = [-1, 0, 0, 0, 1, 0, 0, 0, 1]
        let path = try CommandRunner.temporaryFile("mirrored.log", contents: Self.log(mountedWith: mirrored))
        let result = try CommandRunner.run(["calibrate", "--from-log", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("mirror image"), "\(result.stderr)")
        #expect(!result.stdout.contains("ACCEL_MOUNT_MATRIX"))
    }

    /// A recording whose samples already went through a (wrong) matrix: the printed matrix is
    /// the whole correction from raw, derived × recorded.
    @Test func aRecordingThroughAWrongMatrixGivesTheMatrixFromRaw() throws {
        // Raw readings of a sensor mounted as `rotated`, recorded through a wrong matrix W: the log
        // holds W·raw, which is a sensor mounted with rotated·Wᵀ as far as the log shows.
        let wrong: [Double] = [0, -1, 0, 1, 0, 0, 0, 0, 1]
        func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
            var product = [Double](repeating: 0, count: 9)
            for row in 0..<3 {
                for column in 0..<3 {
                    var sum = 0.0
                    for k in 0..<3 { sum += a[row * 3 + k] * b[k * 3 + column] }
                    product[row * 3 + column] = sum
                }
            }
            return product
        }
        let transposeWrong = [wrong[0], wrong[3], wrong[6], wrong[1], wrong[4], wrong[7], wrong[2], wrong[5], wrong[8]]
        let seen = multiply(Self.rotated, transposeWrong)
        let path = try CommandRunner.temporaryFile("through.log", contents: Self.log(
            mountedWith: seen, header: ["# mount-matrix: 0, -1, 0; 1, 0, 0; 0, 0, 1 (from udev; already applied)"]))
        let result = try CommandRunner.run(["calibrate", "--from-log", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.first == "mount matrix: 0, 1, 0; -1, 0, 0; 0, 0, 1", "\(result.stdout)")
    }

    @Test func aRecordingWithoutThreePosesSaysWhatIsMissing() throws {
        let short = Self.log(mountedWith: Self.rotated).split(separator: "\n").prefix(250).joined(separator: "\n") + "\n"
        let path = try CommandRunner.temporaryFile("short.log", contents: short)
        let result = try CommandRunner.run(["calibrate", "--from-log", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("holds 1 still pose, not 3"), "\(result.stderr)")
    }
}
