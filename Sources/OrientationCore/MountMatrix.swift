/// A sensor mount matrix: the 3×3 matrix that takes a reading in the sensor's own axes into the
/// device's screen axes, applied as `out = M · v`.
///
/// Sources (docs/ARCHITECTURE.md §3): a configuration override, udev's `ACCEL_MOUNT_MATRIX`
/// (systemd's `60-sensor.hwdb`), or the kernel's sysfs `in_accel_mount_matrix` / `mount_matrix`.
/// All use the text form `"a, b, c; d, e, f; g, h, i"` (rows separated by `;`, cells by `,`), with
/// any amount of blank space, optional signs (`-0` occurs in the hwdb), decimals (device-tree
/// matrices such as `0.7071`) and exponents. Parsing never consults the C locale.
///
/// A matrix with an all-zero row, or a singular one (its rows linearly dependent), is rejected:
/// it would throw away an axis, and in the hwdb it is always a typo (see
/// ``MountMatrixError/singular(determinant:dependentRows:)``).
public struct MountMatrix: Hashable, Sendable {
    /// The nine entries in row-major order.
    public let entries: [Double]

    /// The identity: sensor axes already are screen axes.
    public static let identity = MountMatrix(uncheckedRows: [1, 0, 0, 0, 1, 0, 0, 0, 1])

    private init(uncheckedRows entries: [Double]) {
        self.entries = entries
    }

    /// Builds a matrix from nine row-major entries, validating it as ``init(parsing:)`` does.
    public init(rowMajor entries: [Double]) throws(MountMatrixError) {
        guard entries.count == 9 else { throw .wrongRowCount(found: entries.count / 3) }
        for (index, value) in entries.enumerated() where !value.isFinite {
            throw .notANumber(row: index / 3 + 1, column: index % 3 + 1, text: "\(value)")
        }
        try Self.validate(entries)
        self.entries = entries
    }

    /// Parses the hwdb/sysfs text form, for example `"0, -1, 0; 1, 0, 0; 0, 0, 1"`.
    ///
    /// Leading and trailing blank space (spaces, tabs, newlines) is ignored around every cell.
    /// Throws ``MountMatrixError`` naming the row and column of a bad cell, or why the matrix as a
    /// whole is unusable.
    public init(parsing text: some StringProtocol) throws(MountMatrixError) {
        let text = Substring(text)
        let rows = text.split(separator: ";", omittingEmptySubsequences: false)
        guard rows.count == 3 else {
            if rows.count == 1 && Self.isBlank(rows[0]) { throw .empty }
            throw .wrongRowCount(found: rows.count)
        }
        var entries: [Double] = []
        entries.reserveCapacity(9)
        for (rowIndex, row) in rows.enumerated() {
            let cells = row.split(separator: ",", omittingEmptySubsequences: false)
            guard cells.count == 3 else {
                throw .wrongColumnCount(row: rowIndex + 1, found: cells.count)
            }
            for (columnIndex, cell) in cells.enumerated() {
                let trimmed = Self.trimmed(cell)
                guard let value = Self.parseNumber(trimmed) else {
                    throw .notANumber(row: rowIndex + 1, column: columnIndex + 1, text: String(trimmed))
                }
                entries.append(value)
            }
        }
        try Self.validate(entries)
        self.entries = entries
    }

    /// The entry at `row`, `column` (both 0-based).
    @inlinable
    public subscript(row: Int, column: Int) -> Double { entries[row * 3 + column] }

    /// The determinant.
    public var determinant: Double { Self.determinant(entries) }

    /// True when this is exactly the identity.
    public var isIdentity: Bool { self == .identity }

    /// Applies the matrix: `M · v` (the kernel's and iio-sensor-proxy's convention; not `v · M`).
    @inlinable
    public func apply(_ v: Vector3) -> Vector3 {
        let m = entries
        return Vector3(
            m[0] * v.x + m[1] * v.y + m[2] * v.z,
            m[3] * v.x + m[4] * v.y + m[5] * v.z,
            m[6] * v.x + m[7] * v.y + m[8] * v.z
        )
    }

    /// The matrix product `self · other` (apply `other` first, then `self`).
    public func multiplied(by other: MountMatrix) -> MountMatrix {
        var out = [Double](repeating: 0, count: 9)
        for r in 0..<3 {
            for c in 0..<3 {
                out[r * 3 + c] = (0..<3).reduce(0) { $0 + self[r, $1] * other[$1, c] }
            }
        }
        return MountMatrix(uncheckedRows: out)
    }

    // MARK: - Validation

    private static func validate(_ m: [Double]) throws(MountMatrixError) {
        for row in 0..<3 where m[row * 3] == 0 && m[row * 3 + 1] == 0 && m[row * 3 + 2] == 0 {
            throw .zeroRow(row: row + 1)
        }
        let det = determinant(m)
        let scale = (0..<3).reduce(1.0) { product, row in
            product * rowVector(m, row).length
        }
        // Relative test: a rotation has |det| = product of row norms; a singular matrix has 0.
        if abs(det) <= 1e-9 * scale {
            throw .singular(determinant: det, dependentRows: dependentRows(m))
        }
    }

    private static func rowVector(_ m: [Double], _ row: Int) -> Vector3 {
        Vector3(m[row * 3], m[row * 3 + 1], m[row * 3 + 2])
    }

    static func determinant(_ m: [Double]) -> Double {
        m[0] * (m[4] * m[8] - m[5] * m[7])
            - m[1] * (m[3] * m[8] - m[5] * m[6])
            + m[2] * (m[3] * m[7] - m[4] * m[6])
    }

    /// The first pair of parallel rows (1-based), or `nil` when all three rows are dependent
    /// without any two being parallel.
    private static func dependentRows(_ m: [Double]) -> (Int, Int)? {
        for a in 0..<3 {
            for b in (a + 1)..<3 {
                let u = rowVector(m, a), v = rowVector(m, b)
                if u.cross(v).length <= 1e-9 * u.length * v.length { return (a + 1, b + 1) }
            }
        }
        return nil
    }

    // MARK: - Number syntax

    private static func isBlank(_ s: some StringProtocol) -> Bool {
        s.unicodeScalars.allSatisfy { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    }

    private static func trimmed(_ s: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        var s = s
        while let first = s.first, isSpace(first) { s.removeFirst() }
        while let last = s.last, isSpace(last) { s.removeLast() }
        return s
    }

    /// A plain decimal: `[+-]digits[.digits][(e|E)[+-]digits]`. Rejects hex, `nan`, `inf` and
    /// locale forms such as `0,5` (which could never reach here anyway: `,` separates cells).
    /// Swift's `Double(_:)` is locale-independent; the grammar check keeps its extras out.
    private static func parseNumber(_ s: Substring) -> Double? {
        var sawDigit = false, sawDot = false, sawExponent = false, previous: Character? = nil
        for c in s {
            switch c {
            case "0"..."9": sawDigit = true
            case ".": if sawDot || sawExponent { return nil }; sawDot = true
            case "e", "E": if sawExponent || !sawDigit { return nil }; sawExponent = true
            case "+", "-": if !(previous == nil || previous == "e" || previous == "E") { return nil }
            default: return nil
            }
            previous = c
        }
        guard sawDigit, let value = Double(String(s)), value.isFinite else { return nil }
        return value
    }
}

extension MountMatrix: CustomStringConvertible {
    /// The hwdb text form, e.g. `0, -1, 0; 1, 0, 0; 0, 0, 1` (integers without a decimal point).
    public var description: String {
        func cell(_ v: Double) -> String {
            if v == v.rounded(), abs(v) < 1e15 { return String(Int(v)) }
            return "\(v)"
        }
        return (0..<3).map { r in (0..<3).map { cell(self[r, $0]) }.joined(separator: ", ") }
            .joined(separator: "; ")
    }
}
