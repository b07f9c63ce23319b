import OrientationCore

/// Settings read from one section of a ``ConfigFile`` (`[detector]`, `[posture]`): every problem
/// of the section collected with its file and line (``apply(_:problems:)``), or the first one
/// thrown (``apply(_:)``), by the same rules.
public protocol ConfigFileSectionReader {
    /// Applies the section on top of these settings, appending every problem to `problems`.
    mutating func apply(_ file: ConfigFile, problems: inout [ConfigFileError])
}

extension ConfigFileSectionReader {
    /// Applies the section, then validates.
    ///
    /// - Throws: the first ``ConfigFileError`` that ``apply(_:problems:)`` reports.
    public mutating func apply(_ file: ConfigFile) throws(ConfigFileError) {
        var problems: [ConfigFileError] = []
        apply(file, problems: &problems)
        if let first = problems.first { throw first }
    }
}
