import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 18, items 5–7: `import` streams its input with a bounded line, stops at the first bad
/// row with a bounded, escaped message and exit status 1 (not the usage code 64), and never
/// replaces the output unless the whole input converted.
@Suite struct ImportBoundsTests {
    static let accel = ["--accel-columns", "2,3,4", "--accel-unit", "m/s2", "--gravity-vector"]

    /// A cell with ESC and BEL sequences is quoted with them escaped: nothing reaches the terminal raw.
    @Test func controlCharactersInACellAreEscaped() throws {
        let input = try CommandRunner.temporaryFile("evil.csv", contents: "t,x,y,z\n0,0,-9.8,0\n0.1,0,\u{1B}]0;owned\u{07}\u{1B}[2J,0\n")
        let result = try CommandRunner.run(["import"] + Self.accel + [input, "-o", "-"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(!result.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(result.stderr.debugDescription)")
        #expect(result.stderr.contains(#"accel y column 3: "\u{1B}]0;owned\u{07}\u{1B}[2J" is not a number"#), "\(result.stderr)")
        #expect(result.stdout.isEmpty, "a refused import prints no partial log")
    }

    /// `-o PRECIOUS` and an input failing partway: PRECIOUS keeps every byte, no temporary file
    /// is left beside it, and the exit status is the data error's 1 without a usage text.
    @Test func aFailedImportKeepsThePreciousOutput() throws {
        let directory = temporaryDirectory("import-precious")
        let precious = directory + "/PRECIOUS.log"
        let original = "# orientationd-log v1\ntime,accel_x,accel_y,accel_z\n0.000000,0.00000,-9.80000,0.00000\n"
        writeText(precious, original)
        var csv = "t,x,y,z\n"
        for k in 0..<500 { csv += "\(Double(k) * 0.01),0,-9.8,0\n" }
        csv += "5.0,0,oops,0\n"
        let input = directory + "/in.csv"
        writeText(input, csv)
        let result = try CommandRunner.run(["import"] + Self.accel + [input, "-o", precious])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("\(input):502: accel y column 3: \"oops\" is not a number"), "\(result.stderr)")
        #expect(!result.stderr.contains("Usage"), "\(result.stderr)")
        #expect(readText(precious) == original)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(left == ["PRECIOUS.log", "in.csv"], "temporary files left: \(left)")

        // The same input without the bad row replaces it, as a whole.
        writeText(input, String(csv.dropLast("5.0,0,oops,0\n".count)))
        let fixed = try CommandRunner.run(["import"] + Self.accel + [input, "-o", precious])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(readText(precious).split(separator: "\n").count == 3 + 500)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["PRECIOUS.log", "in.csv"])
        let mode = try FileManager.default.attributesOfItem(atPath: precious)[.posixPermissions] as? Int
        #expect(mode == 0o644)
    }

    /// Bad options stay usage errors (64, with the usage); bad data is 1 without it.
    @Test func optionErrorsKeepTheUsageCode() throws {
        let input = try CommandRunner.temporaryFile("ok.csv", contents: "t,x,y,z\n0,0,-9.8,0\n")
        let result = try CommandRunner.run(["import", "--accel-columns", "2,3", input, "-o", "-"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("Usage"), "\(result.stderr)")
        let missing = try CommandRunner.run(["import"] + Self.accel + [input + ".absent", "-o", "-"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("ok.csv.absent: cannot open"), "\(missing.stderr)")
        #expect(!missing.stderr.contains("Usage"), "\(missing.stderr)")
    }

    /// A 64 MB line (a 100 MB one took 2.35 GB and 12 s) and a 256 MB sparse file of NUL bytes
    /// (a 2 GB one reached 4.2 GB and 52 MB of stderr): each stops at the over-long line, says
    /// so in one short line, and never holds the line: the peak RSS (about 20 MiB, the
    /// process's own) stays under 48 MiB, below the input's size.
    @Test(arguments: ["huge-line", "sparse"])
    func anOverLongLineStopsWithABoundedMessage(_ kind: String) throws {
        let directory = temporaryDirectory("import-huge")
        let input = directory + "/in.csv"
        let size: Int
        if kind == "sparse" {
            size = 256 << 20
            writeText(input, "t,x,y,z\n0,0,-9.8,0\n")
            #expect(truncate(input, off_t(size)) == 0)
        } else {
            size = 64 << 20
            writeBytes(input, Array("t,x,y,z\n0,0,-9.8,0\n0.1,0,-9.8,".utf8) + [UInt8](repeating: UInt8(ascii: "7"), count: size) + Array("\n".utf8))
        }
        let output = directory + "/out.log"
        let (result, peakKiB) = try CommandRunner.runMeasuringMemory(["import"] + Self.accel + [input, "-o", output])
        #expect(result.status == 1, "\(result.stderr.prefix(400))")
        #expect(result.stderr.contains("\(input):3: line longer than 65536 bytes"), "\(result.stderr.prefix(400))")
        #expect(result.stderr.utf8.count < 400, "\(result.stderr.utf8.count) bytes of stderr")
        #expect(peakKiB < 48 * 1024, "peak RSS \(peakKiB) KiB for a \(size >> 20) MiB input")
        #expect(!FileManager.default.fileExists(atPath: output))
        removeTree(directory)
    }
}
