extension OrientationDetector.Configuration {
    /// The configuration-file section holding detector parameters.
    public static let configFileSection = "detector"

    /// Applies the `[detector]` section of `file` on top of this configuration, then validates.
    ///
    /// - Throws: ``ConfigFileError`` naming the file and line of an unknown parameter or a bad
    ///   value; for a combination that is invalid as a whole, the line of the parameter named in
    ///   the ``ConfigurationError`` (or of the section's last entry).
    public mutating func apply(_ file: ConfigFile) throws(ConfigFileError) {
        let entries = file.entries(in: Self.configFileSection)
        for entry in entries {
            guard let parameter = Self.parameter(named: entry.name) else {
                throw ConfigFileError(source: file.source, line: entry.line,
                                      message: "unknown detector parameter \(entry.name)\(Self.suggestion(for: entry.name))")
            }
            do {
                try parameter.apply(entry.value, to: &self)
            } catch {
                throw ConfigFileError(source: file.source, line: entry.line, message: error.description)
            }
        }
        do {
            try validate()
        } catch {
            let line = entries.last { $0.name == error.field }?.line ?? entries.last?.line ?? 1
            throw ConfigFileError(source: file.source, line: line, message: error.description)
        }
    }
}
