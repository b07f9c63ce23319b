extension MountMatrix {
    /// One place a mount matrix may come from, in precedence order.
    public struct Candidate: Hashable, Sendable {
        /// Where it came from, for messages: `config /etc/orientationd/orientationd.conf:12`,
        /// `udev ACCEL_MOUNT_MATRIX`, `sysfs /sys/…/in_accel_mount_matrix`.
        public var source: String
        /// The text, or `nil` when this source has none.
        public var text: String?

        public init(source: String, text: String?) {
            self.source = source
            self.text = text
        }
    }

    /// The outcome of ``select(from:)``: the matrix, where it came from, and every rejected
    /// candidate with the reason (to be logged as warnings).
    public struct Selection: Hashable, Sendable {
        public var matrix: MountMatrix
        /// The winning source, or `identity` when no candidate was usable.
        public var source: String
        public var rejected: [(source: String, reason: MountMatrixError)]

        public static func == (a: Selection, b: Selection) -> Bool {
            a.matrix == b.matrix && a.source == b.source && a.rejected.map(\.source) == b.rejected.map(\.source)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(matrix)
            hasher.combine(source)
        }
    }

    /// The first candidate that parses into a usable matrix, in the order given (docs/ARCHITECTURE.md
    /// §3: configuration, then udev's `ACCEL_MOUNT_MATRIX`, then sysfs), else the identity. An
    /// invalid matrix never wins and never stops the search: it is reported and the next source
    /// is used.
    public static func select(from candidates: [Candidate]) -> Selection {
        var rejected: [(source: String, reason: MountMatrixError)] = []
        for candidate in candidates {
            guard let text = candidate.text else { continue }
            do {
                return Selection(matrix: try MountMatrix(parsing: text), source: candidate.source, rejected: rejected)
            } catch {
                rejected.append((candidate.source, error))
            }
        }
        return Selection(matrix: .identity, source: "identity", rejected: rejected)
    }
}
