import OrientationCore
import PostureCore
import Testing
import TestSupport
import ConfigFileFormat

@Suite struct ConfigFileTests {
    @Test func readsSectionsEntriesAndComments() throws {
        let text = "# comment\n; also a comment\n\n[detector]\nsettle-time = 0.2\r\n  dead-band=30  \nportrait-tilt = \"-40..70\"\n"
        let file = try ConfigFile(parsing: text, source: "a.conf", knownSections: ["detector"])
        #expect(file.entries.map(\.name) == ["settle-time", "dead-band", "portrait-tilt"])
        #expect(file.entries.map(\.line) == [5, 6, 7])
        var configuration = OrientationDetector.Configuration()
        try configuration.apply(file)
        #expect(configuration.settleTime == 0.2)
        #expect(configuration.deadBand == 30)
        #expect(configuration.portraitTilt == TiltRange(-40, 70))
    }

    /// A comment after a value (a blank, then `#`) is not part of it; a `#` inside a word or
    /// inside quotes is.
    static let valueRows: [(line: String, value: String)] = [
        ("a = 60                  # s: idle", "60"),
        ("a = 60\t# tab before", "60"),
        ("a = 0, 1, 0; -1, 0, 0; 0, 0, 1   # beats udev", "0, 1, 0; -1, 0, 0; 0, 0, 1"),
        ("a = ID#3", "ID#3"),
        ("a = \"x # y\"", "x # y"),
        ("a = # only a comment", ""),
        ("a=5#no blank before", "5#no blank before"),
    ]

    @Test(arguments: valueRows)
    func aCommentAfterTheValueIsNotPartOfIt(_ row: (line: String, value: String)) throws {
        let file = try ConfigFile(parsing: "[s]\n" + row.line + "\n", source: "a.conf", knownSections: ["s"])
        #expect(file.entries.first?.value == row.value)
    }

    struct Bad: Sendable, CustomStringConvertible {
        let text: String
        let message: String
        var description: String { message }
    }

    static let bad: [Bad] = [
        Bad(text: "[detector]\nsettle-time 0.2\n", message: "x.conf:2: expected \"name = value\", found \"settle-time 0.2\""),
        Bad(text: "settle-time = 0.2\n", message: "x.conf:1: \"settle-time = 0.2\" comes before any [section]"),
        Bad(text: "[detektor]\n", message: "x.conf:1: unknown section [detektor]; did you mean [detector]? known sections: [detector]"),
        Bad(text: "[detector\n", message: "x.conf:1: malformed section header \"[detector\"; expected [name]"),
        Bad(text: "[detector]\n = 3\n", message: "x.conf:2: missing name before \"=\""),
        Bad(text: "[detector]\ndead-band = 30\n\ndead-band = 40\n", message: "x.conf:4: dead-band is set twice in [detector] (first on line 2)"),
        Bad(text: "[detector]\n# tuned\nsettle-tme = 0.1\n", message: "x.conf:3: unknown detector parameter settle-tme; did you mean 'settle-time'?"),
        Bad(text: "[detector]\nsettle-time = soon\n", message: "x.conf:2: settle-time: \"soon\" is not a number (in s, such as 0.2 or 0.2 s)"),
        Bad(text: "[detector]\nface-up-exit-tilt = 80\nsettle-time = 0.1\n",
            message: "x.conf:2: face-up-exit-tilt (80.0) must be above 0 and below face-up-enter-tilt (78.0), or face-up could never be left"),
    ]

    @Test("errors name file and line", arguments: bad)
    func errorsNameFileAndLine(_ row: Bad) {
        #expect {
            let file = try ConfigFile(parsing: row.text, source: "x.conf", knownSections: ["detector"])
            var configuration = OrientationDetector.Configuration()
            try configuration.apply(file)
        } throws: { error in
            (error as? ConfigFileError)?.description == row.message
        }
    }

    /// The shipped sample config parses, and uncommenting every line gives the defaults: the
    /// sample documents the real defaults.
    @Test func theSampleConfigurationDocumentsTheDefaults() throws {
        let path = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/") + "/config/orientationd.conf"
        let text = try #require(readTextIfPresent(path))
        let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.hasPrefix("#"), line.dropFirst().first?.isLetter == true, line.contains("=") else { return String(line) }
            return String(line.dropFirst().split(separator: "#")[0])
        }.joined(separator: "\n")
        let file = try ConfigFile(parsing: uncommented, source: path, knownSections: ConfigFile.orientationdSections)
        #expect(file.entries(in: "detector").count == OrientationDetector.Configuration.parameters.count)
        #expect(file.entries(in: "server").count == 12)
        #expect(file.entries(in: "sensor").count == 9)  // IIOSettings.keys
        #expect(file.entries(in: "light").count == 2 && file.entries(in: "proximity").count == 1 && file.entries(in: "compass").count == 1)
        #expect(file.entries(in: "posture").count == PostureSettings.keys.count)
        var posture = PostureSettings()
        posture.detector.settleTime = 42
        posture.tabletModeSwitch = true
        try posture.apply(file)
        #expect(posture == PostureSettings())
        var configuration = OrientationDetector.Configuration()
        configuration.settleTime = 42
        try configuration.apply(file)
        #expect(configuration == OrientationDetector.Configuration())
    }
}
