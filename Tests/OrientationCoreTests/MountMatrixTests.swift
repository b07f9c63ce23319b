import Glibc
import OrientationCore
import Testing
import TestSupport

@Suite struct MountMatrixTests {
    struct Valid: Sendable, CustomStringConvertible {
        let text: String
        let entries: [Double]
        var description: String { "\"\(text)\"" }
    }

    static let valid: [Valid] = [
        Valid(text: "1, 0, 0; 0, 1, 0; 0, 0, 1", entries: [1, 0, 0, 0, 1, 0, 0, 0, 1]),
        Valid(text: "0, -1, 0; 1, 0, 0; 0, 0, 1", entries: [0, -1, 0, 1, 0, 0, 0, 0, 1]),
        // hwdb quirks: no spaces at all, spaces only after ';', a trailing space, a signed zero.
        Valid(text: "0,1,0;-1,0,0;0,0,1", entries: [0, 1, 0, -1, 0, 0, 0, 0, 1]),
        Valid(text: "0, -1, 0;1, 0, 0;0, 0, 1", entries: [0, -1, 0, 1, 0, 0, 0, 0, 1]),
        Valid(text: "0, -1, 0; 1, 0, 0; 0, 0, -1 ", entries: [0, -1, 0, 1, 0, 0, 0, 0, -1]),
        Valid(text: "-0, -1, 0; 0, 0, -1; 1, 0, 0", entries: [0, -1, 0, 0, 0, -1, 1, 0, 0]),
        Valid(text: "-1, 0, 0; 0,-1, 0; 0, 0, 1", entries: [-1, 0, 0, 0, -1, 0, 0, 0, 1]),
        // Kernel device-tree style decimals, tabs, newlines, plus signs and exponents.
        Valid(text: "0.7071, -0.7071, 0; 0.7071, 0.7071, 0; 0, 0, 1", entries: [0.7071, -0.7071, 0, 0.7071, 0.7071, 0, 0, 0, 1]),
        Valid(text: "\t1 ,0 ,0 ;\n0, +1, 0; 0, 0, 1e0\n", entries: [1, 0, 0, 0, 1, 0, 0, 0, 1]),
        Valid(text: "2, 0, 0; 0, 0.5, 0; 0, 0, 1", entries: [2, 0, 0, 0, 0.5, 0, 0, 0, 1]),
    ]

    @Test("parses", arguments: valid)
    func parses(_ row: Valid) throws {
        let m = try MountMatrix(parsing: row.text)
        #expect(m.entries == row.entries)
    }

    struct Invalid: Sendable, CustomStringConvertible {
        let text: String
        let message: String
        var description: String { "\"\(text)\"" }
    }

    static let invalid: [Invalid] = [
        Invalid(text: "", message: "mount matrix is empty; expected \"a, b, c; d, e, f; g, h, i\""),
        Invalid(text: "   ", message: "mount matrix is empty; expected \"a, b, c; d, e, f; g, h, i\""),
        Invalid(text: "1, 0, 0; 0, 1, 0", message: "mount matrix has 2 rows; expected 3 rows separated by ';'"),
        Invalid(text: "1, 0, 0; 0, 1, 0; 0, 0, 1; 0, 0, 0", message: "mount matrix has 4 rows; expected 3 rows separated by ';'"),
        Invalid(text: "1, 0; 0, 1, 0; 0, 0, 1", message: "mount matrix row 1 has 2 values; expected 3 separated by ','"),
        Invalid(text: "1, 0, 0; 0, 1, 0; 0, 0, 1, 0", message: "mount matrix row 3 has 4 values; expected 3 separated by ','"),
        Invalid(text: "1, 0, 0; 0, x, 0; 0, 0, 1", message: "mount matrix row 2, column 2: \"x\" is not a number"),
        Invalid(text: "1, 0, 0; 0, 1, 0; 0, 0, ", message: "mount matrix row 3, column 3: \"\" is not a number"),
        Invalid(text: "1, 0, 0; 0, 0x1, 0; 0, 0, 1", message: "mount matrix row 2, column 2: \"0x1\" is not a number"),
        Invalid(text: "nan, 0, 0; 0, 1, 0; 0, 0, 1", message: "mount matrix row 1, column 1: \"nan\" is not a number"),
        Invalid(text: "1, 0, 0; 0, 1 0, 0; 0, 0, 1", message: "mount matrix row 2, column 2: \"1 0\" is not a number"),
        Invalid(text: "1, 0, 0; 0, 0, 0; 0, 0, 1", message: "mount matrix row 2 is all zeros, so that axis would always read 0"),
        // The two singular typos of systemd's hwdb (Bush Windows tablet; Insyde i101c).
        Invalid(text: "1, 0, 0; 0, -1, 0; 1, 0, 0",
                message: "mount matrix is singular (determinant 0.0): row 3 is parallel to row 1, so two screen axes read the same sensor axis; this is a typo in the matrix"),
        Invalid(text: "0,1,0;-1,0,0;-1,0,0",
                message: "mount matrix is singular (determinant 0.0): row 3 is parallel to row 2, so two screen axes read the same sensor axis; this is a typo in the matrix"),
        Invalid(text: "1, 1, 0; 0, 1, 1; 1, 2, 1", message: "mount matrix is singular (determinant 0.0): its rows are linearly dependent"),
    ]

    @Test("rejects with a reason", arguments: invalid)
    func rejects(_ row: Invalid) {
        #expect {
            try MountMatrix(parsing: row.text)
        } throws: { error in
            (error as? MountMatrixError)?.description == row.message
        }
    }

    /// M·v, not v·M: with a non-symmetric matrix the two differ, and only M·v matches the
    /// kernel and iio-sensor-proxy.
    @Test func appliesAsMatrixTimesVector() throws {
        let m = try MountMatrix(parsing: "0, 1, 0; -1, 0, 0; 0, 0, 1")
        let v = Vector3(1, 2, 3)
        #expect(m.apply(v) == Vector3(2, -1, 3))
        #expect(m.apply(v) != Vector3(-2, 1, 3))  // what v·M would give
        // A sensor mounted so that its +x points to the screen's top reads gravity of an
        // upright portrait device on its −x axis; this matrix brings it back to (0, −g, 0).
        #expect(m.apply(Vector3(9.81, 0, 0)) == Vector3(0, -9.81, 0))
    }

    @Test func descriptionRoundTrips() throws {
        for text in ["0, -1, 0; 1, 0, 0; 0, 0, 1", "0.7071, -0.7071, 0; 0.7071, 0.7071, 0; 0, 0, 1"] {
            let m = try MountMatrix(parsing: text)
            #expect(m.description == text)
            #expect(try MountMatrix(parsing: m.description) == m)
        }
        #expect(MountMatrix.identity.isIdentity)
        #expect(try MountMatrix(rowMajor: [0, 1, 0, 1, 0, 0, 0, 0, 1]).determinant == -1)
    }

    @Test func composes() throws {
        let a = try MountMatrix(parsing: "0, -1, 0; 1, 0, 0; 0, 0, 1")
        let b = try MountMatrix(parsing: "-1, 0, 0; 0, 1, 0; 0, 0, 1")
        let v = Vector3(1, 2, 3)
        #expect(a.multiplied(by: b).apply(v) == a.apply(b.apply(v)))
    }

    /// Every `ACCEL_MOUNT_MATRIX` in systemd's hwdb (Debian's `udev` package; `make setup`
    /// installs it) parses, or is rejected as singular or with a zero row: never a syntax error.
    @Test func everyHwdbMatrixParsesOrIsRejectedForAStatedReason() throws {
        let candidates: [String] = ["/usr/lib/udev/hwdb.d/60-sensor.hwdb", "/lib/udev/hwdb.d/60-sensor.hwdb"]
        let path = candidates.first { access($0, R_OK) == 0 }
        let hwdb = try #require(path, "60-sensor.hwdb not found: install Debian's udev package (make setup does)")
        let text = try #require(readTextIfPresent(hwdb))
        var parsed = 0
        var rejected: [String] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard !trimmed.hasPrefix("#"), let range = trimmed.firstRange(of: "ACCEL_MOUNT_MATRIX=") else { continue }
            let value = trimmed[range.upperBound...]
            do throws(MountMatrixError) {
                _ = try MountMatrix(parsing: value)
                parsed += 1
            } catch {
                switch error {
                case .singular, .zeroRow:
                    rejected.append("\(index + 1): \(value)")
                default:
                    Issue.record("\(hwdb):\(index + 1): \"\(value)\" failed to parse: \(error)")
                }
            }
        }
        #expect(parsed >= 150, "only \(parsed) matrices parsed: is this the real hwdb?")
        // The known typos are rejected, and nothing else is.
        #expect(rejected.allSatisfy { $0.hasSuffix("1, 0, 0; 0, -1, 0; 1, 0, 0") || $0.hasSuffix("0,1,0;-1,0,0;-1,0,0") },
                "unexpected rejections: \(rejected)")
    }
}
