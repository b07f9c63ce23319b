/// Why a mount matrix was rejected. `description` is a complete sentence for a log or an error
/// message; callers prefix it with the matrix's source (config file and line, udev property, sysfs
/// path).
public enum MountMatrixError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The text is empty or blank.
    case empty
    /// Not three `;`-separated rows.
    case wrongRowCount(found: Int)
    /// A row without exactly three `,`-separated cells (1-based row).
    case wrongColumnCount(row: Int, found: Int)
    /// A cell that is not a plain decimal number (1-based row and column).
    case notANumber(row: Int, column: Int, text: String)
    /// A row of zeros (1-based): that screen axis would always read 0.
    case zeroRow(row: Int)
    /// The rows are linearly dependent; `dependentRows` names two parallel rows when there are.
    case singular(determinant: Double, dependentRows: (Int, Int)?)

    public var description: String {
        switch self {
        case .empty:
            return "mount matrix is empty; expected \"a, b, c; d, e, f; g, h, i\""
        case .wrongRowCount(let found):
            return "mount matrix has \(found) row\(found == 1 ? "" : "s"); expected 3 rows separated by ';'"
        case .wrongColumnCount(let row, let found):
            return "mount matrix row \(row) has \(found) value\(found == 1 ? "" : "s"); expected 3 separated by ','"
        case .notANumber(let row, let column, let text):
            return "mount matrix row \(row), column \(column): \"\(ControlCharacters.quoted(text))\" is not a number"
        case .zeroRow(let row):
            return "mount matrix row \(row) is all zeros, so that axis would always read 0"
        case .singular(let det, let rows):
            if let (a, b) = rows {
                return "mount matrix is singular (determinant \(det)): row \(b) is parallel to row \(a), so two screen axes read the same sensor axis; this is a typo in the matrix"
            }
            return "mount matrix is singular (determinant \(det)): its rows are linearly dependent"
        }
    }

    public static func == (lhs: MountMatrixError, rhs: MountMatrixError) -> Bool {
        lhs.description == rhs.description
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(description) }
}
