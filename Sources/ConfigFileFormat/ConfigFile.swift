import OrientationCore

/// An INI-style configuration file (systemd's style): `[section]` headers, `name = value` lines,
/// `#` or `;` comments, blank lines. Values are the text after `=`, up to a `#` that follows a
/// blank (a comment after the value, as the sample configuration writes them), trimmed; an
/// optional pair of double quotes around a value is removed (and protects a ` #` inside it).
///
/// Parsing never loses a problem: every malformed line, unknown section and repeated name is a
/// ``ConfigFileError`` naming the file and line, and the collecting initializer reports them all.
public struct ConfigFile: Sendable {
    /// One `name = value` line.
    public struct Entry: Hashable, Sendable {
        public var section: String
        public var name: String
        public var value: String
        /// 1-based line number.
        public var line: Int
    }

    /// Where the text came from (a path), for error messages.
    public let source: String
    /// Every entry, in file order.
    public let entries: [Entry]

    /// Parses `text`, accepting only the sections in `knownSections`.
    /// - Throws: the first problem in file order (``init(parsing:source:knownSections:problems:)``
    ///   gives them all).
    public init(parsing text: String, source: String, knownSections: Set<String>) throws(ConfigFileError) {
        var problems: [ConfigFileError] = []
        self.init(parsing: text, source: source, knownSections: knownSections, problems: &problems)
        if let first = problems.first { throw first }
    }

    /// Parses `text`, appending every malformed line to `problems` in file order and keeping
    /// the entries that are well formed, so that a checker reports all problems in one run
    /// (issue 21). The entries of an unknown section are skipped (its header is the problem).
    public init(parsing text: String, source: String, knownSections: Set<String>, problems: inout [ConfigFileError]) {
        self.source = source
        var entries: [Entry] = []
        // nil: before any section; .some(nil): inside an unknown section.
        var section: String?? = nil
        var seen: [String: Int] = [:]
        let problemsBefore = problems.count
        var sawKnownSection = false
        // Split on bytes: Swift's Character treats "\r\n" as one grapheme, so splitting the
        // String on "\n" would leave CRLF files in one piece.
        for (index, bytes) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            func problem(_ message: String) { problems.append(ConfigFileError(source: source, line: number, message: message)) }
            // A file that is not a configuration file (a sensor log given to --check-config:
            // 13,516 lines of errors, issue 27) stops after a screenful, saying what it seems to be.
            if problems.count - problemsBefore >= Self.problemLimit {
                problem(sawKnownSection
                        ? "stopped after \(Self.problemLimit) problems; fix these first"
                        : "stopped after \(Self.problemLimit) problems: this is not an orientationd configuration file (no [section] header yet); see orientationd.conf(5)")
                break
            }
            var line = Substring(String(decoding: bytes, as: UTF8.self))
            if line.hasSuffix("\r") { line = line.dropLast() }
            let trimmed = line.trimmingBlanks()
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            if trimmed.hasPrefix("[") {
                guard trimmed.hasSuffix("]"), trimmed.count > 2 else {
                    problem("malformed section header \"\(ControlCharacters.quoted(trimmed))\"; expected [name]")
                    section = .some(nil)
                    continue
                }
                let name = String(trimmed.dropFirst().dropLast()).trimmingBlanks()
                guard knownSections.contains(name) else {
                    let known = knownSections.sorted().map { "[\($0)]" }.joined(separator: ", ")
                    let guess = Self.nearest(name, among: knownSections.sorted()).map { "; did you mean [\($0)]?" } ?? ""
                    problem("unknown section [\(ControlCharacters.quoted(name))]\(guess)\(guess.isEmpty ? ";" : "") known sections: \(known)")
                    section = .some(nil)
                    continue
                }
                sawKnownSection = true
                section = name
                continue
            }
            guard let equals = trimmed.firstIndex(of: "=") else {
                problem("expected \"name = value\", found \"\(ControlCharacters.quoted(trimmed))\"")
                continue
            }
            guard let inSection = section else {
                problem("\"\(ControlCharacters.quoted(trimmed))\" comes before any [section]")
                continue
            }
            guard let current = inSection else { continue }
            let name = String(trimmed[..<equals]).trimmingBlanks()
            var value = String(trimmed[trimmed.index(after: equals)...]).trimmingBlanks()
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            } else {
                value = Self.withoutTrailingComment(value)
            }
            guard !name.isEmpty else {
                problem("missing name before \"=\"")
                continue
            }
            let key = current + "\u{0}" + name
            if let first = seen[key] {
                problem("\(ControlCharacters.quoted(name)) is set twice in [\(current)] (first on line \(first))")
                continue
            }
            seen[key] = number
            entries.append(Entry(section: current, name: name, value: value, line: number))
        }
        self.entries = entries
    }

    /// How many problems one file reports before the parse stops (``init(parsing:source:knownSections:problems:)``).
    public static let problemLimit = 20

    /// The candidate closest to `name` when it is a near miss (a typo, another case: `sockt`,
    /// `[sensors]`, `[Detector]`), else `nil`: what "did you mean" suggests.
    public static func nearest(_ name: String, among candidates: [String]) -> String? {
        guard name.utf8.count <= 64 else { return nil }  // edit distance is O(length²)
        if let sameCase = candidates.first(where: { $0.lowercased() == name.lowercased() }) { return sameCase }
        let best = candidates.map { ($0, OrientationDetector.Configuration.editDistance($0, name)) }.min { $0.1 < $1.1 }
        guard let (candidate, distance) = best, distance <= max(2, name.count / 3) else { return nil }
        return candidate
    }

    /// `unknown server setting sockt; did you mean 'socket'? known: socket, …` (a near miss, by
    /// ``nearest(_:among:)``), else `unknown server setting x; known: socket, …`.
    public static func unknown(_ what: String, _ name: String, among candidates: [String]) -> String {
        let guess = nearest(name, among: candidates).map { "; did you mean '\($0)'?" } ?? ";"
        return "unknown \(what) \(ControlCharacters.quoted(name))\(guess) known: \(candidates.joined(separator: ", "))"
    }

    /// `value` up to the first `#` that follows a space or tab, trimmed: uncommenting a line
    /// of the sample (`#idle-timeout = 60   # s: …`) gives `60`.
    static func withoutTrailingComment(_ value: String) -> String {
        // The value was trimmed, so a comment right after "=" now starts it.
        if value.hasPrefix("#") { return "" }
        var previous: Character = "\0"
        for index in value.indices {
            let character = value[index]
            if character == "#", previous == " " || previous == "\t" {
                return String(value[..<index]).trimmingBlanks()
            }
            previous = character
        }
        return value
    }

    /// The entries of one section, in file order.
    public func entries(in section: String) -> [Entry] {
        entries.filter { $0.section == section }
    }
}

/// A problem in a configuration file, with its location: `FILE:LINE: message`.
public struct ConfigFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var source: String
    public var line: Int
    public var message: String

    public init(source: String, line: Int, message: String) {
        self.source = source
        self.line = line
        self.message = message
    }

    /// `FILE:LINE: message`, control characters escaped (the message quotes the file's text).
    public var description: String { ControlCharacters.escaped("\(source):\(line): \(message)") }
}

/// Several problems in one configuration file, in file order: one `FILE:LINE: message` per
/// line, so a user fixes them all in one pass (issue 21).
public struct ConfigFileErrors: Error, Hashable, Sendable, CustomStringConvertible {
    public var errors: [ConfigFileError]

    /// `errors` sorted by line (a stable sort: problems on one line keep their order).
    public init(_ errors: [ConfigFileError]) {
        self.errors = errors.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element)
    }

    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

extension ConfigFile {
    /// Every section of orientationd's configuration file. Any tool reading that file (the
    /// daemon, `orientationctl replay --config`) accepts all of them, using the ones it needs.
    /// `[posture]` (a convertible's posture, PostureCore's `PostureSettings`) is read by the
    /// daemon and by `orientationctl replay`, `evaluate`, `plot` and `simulate`
    /// (docs/ARCHITECTURE.md §11).
    public static let orientationdSections: Set<String> = ["detector", "server", "sensor", "dbus", "light", "proximity", "compass", "posture"]
}
