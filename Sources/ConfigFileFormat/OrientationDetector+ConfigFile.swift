import OrientationCore

/// `apply(_:)` (``ConfigFileSectionReader``) throws the first problem: the file and line of an
/// unknown parameter or a bad value; for a combination that is invalid as a whole, the line of
/// the parameter named in the ``ConfigurationError`` (or of the section's last entry).
extension OrientationDetector.Configuration: ConfigFileSectionReader {
    /// The configuration-file section holding detector parameters.
    public static let configFileSection = "detector"

    /// Applies the `[detector]` section, appending every problem to `problems`: each bad entry
    /// (unknown name, bad value), then every field and relation ``validate()`` would refuse
    /// (``problems()``), each on the line of the entry that set the field (or the section's last
    /// entry). A check involving an entry that was itself bad is left out: its field kept the
    /// default, so the relation would blame a value the file does not hold (issue 27: a reversed
    /// range showed only once every other entry was right). The same checks as ``apply(_:)``.
    public mutating func apply(_ file: ConfigFile, problems: inout [ConfigFileError]) {
        let entries = file.entries(in: Self.configFileSection)
        var bad: Set<String> = []
        for entry in entries {
            guard let parameter = Self.parameter(named: entry.name) else {
                problems.append(ConfigFileError(source: file.source, line: entry.line,
                                                message: "unknown detector parameter \(ControlCharacters.quoted(entry.name))\(Self.suggestion(for: entry.name))"))
                continue
            }
            do {
                try parameter.apply(entry.value, to: &self)
            } catch {
                problems.append(ConfigFileError(source: file.source, line: entry.line, message: error.description))
                bad.insert(entry.name)
            }
        }
        for error in self.problems() where !bad.contains(error.field) && bad.isDisjoint(with: error.related) {
            let line = entries.last { $0.name == error.field }?.line
                ?? entries.last { error.related.contains($0.name) }?.line
                ?? entries.last?.line ?? 1
            problems.append(ConfigFileError(source: file.source, line: line, message: error.description))
        }
    }
}
