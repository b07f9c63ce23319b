extension OrientationDetector.Configuration {
    /// The configuration-file section holding detector parameters.
    public static let configFileSection = "detector"

    /// Applies the `[detector]` section of `file` on top of this configuration, then validates.
    ///
    /// - Throws: ``ConfigFileError`` naming the file and line of an unknown parameter or a bad
    ///   value; for a combination that is invalid as a whole, the line of the parameter named in
    ///   the ``ConfigurationError`` (or of the section's last entry).
    public mutating func apply(_ file: ConfigFile) throws(ConfigFileError) {
        var problems: [ConfigFileError] = []
        apply(file, problems: &problems)
        if let first = problems.first { throw first }
    }

    /// Applies the `[detector]` section, appending every bad entry to `problems` (in file
    /// order), and validates the whole only when every entry was good (a relation between two
    /// values is only meaningful once both are). The same checks as ``apply(_:)``.
    public mutating func apply(_ file: ConfigFile, problems: inout [ConfigFileError]) {
        let entries = file.entries(in: Self.configFileSection)
        var good = true
        for entry in entries {
            guard let parameter = Self.parameter(named: entry.name) else {
                problems.append(ConfigFileError(source: file.source, line: entry.line,
                                                message: "unknown detector parameter \(ControlCharacters.quoted(entry.name))\(Self.suggestion(for: entry.name))"))
                good = false
                continue
            }
            do {
                try parameter.apply(entry.value, to: &self)
            } catch {
                problems.append(ConfigFileError(source: file.source, line: entry.line, message: error.description))
                good = false
            }
        }
        guard good else { return }
        do {
            try validate()
        } catch {
            let line = entries.last { $0.name == error.field }?.line ?? entries.last?.line ?? 1
            problems.append(ConfigFileError(source: file.source, line: line, message: error.description))
        }
    }
}
