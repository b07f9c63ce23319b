import ConfigFileFormat
import OrientationCore
import Testing

/// Issue 18, item 8: whatever a user wrote is quoted bounded and escaped, in one place
/// (`ControlCharacters.quoted`), by every configuration error.
@Suite struct QuotedTextTests {
    static let rows: [(text: String, limit: Int, quoted: String)] = [
        ("", 8, ""),
        ("settle-time", 64, "settle-time"),
        ("12345678", 8, "12345678"),
        ("123456789", 8, "12345678… (1 more character)"),
        ("1234567890", 8, "12345678… (2 more characters)"),
        ("a\u{1B}[2Jb", 8, "a\\u{1B}[2Jb"),
        ("\u{07}\u{07}\u{07}", 2, "\\u{07}\\u{07}… (1 more character)"),
        ("héé😀x", 4, "héé😀… (1 more character)"),
    ]

    @Test(arguments: rows.indices)
    func quotesBoundedAndEscaped(_ index: Int) {
        let row = Self.rows[index]
        #expect(ControlCharacters.quoted(row.text, limit: row.limit) == row.quoted)
    }

    /// A 1 MB unknown key (issue 18: logged whole, and 6 s of CPU in the suggestion's edit
    /// distance): a short error naming the line, the key's start and how much more there was.
    @Test func aHugeUnknownKeyIsQuotedBounded() throws {
        let key = String(repeating: "k", count: 1 << 20)
        let file = try ConfigFile(parsing: "[detector]\n\(key) = 1\n", source: "big.conf", knownSections: ["detector"])
        var configuration = OrientationDetector.Configuration()
        var problems: [ConfigFileError] = []
        configuration.apply(file, problems: &problems)
        #expect(problems.count == 1)
        let text = problems.first?.description ?? ""
        #expect(text.hasPrefix("big.conf:2: unknown detector parameter " + String(repeating: "k", count: ControlCharacters.defaultQuoteLimit) + "… ("))
        #expect(text.contains("\((1 << 20) - ControlCharacters.defaultQuoteLimit) more characters"), "\(text)")
        #expect(text.utf8.count < 300, "\(text.utf8.count) bytes")
    }

    /// The other places a configuration echoes its text: a malformed line, a bad value, an
    /// unknown section.
    @Test(arguments: ["[detector]\n\(String(repeating: "x", count: 100_000))\n",
                      "[detector]\nsettle-time = \(String(repeating: "9x", count: 100_000))\n",
                      "[\(String(repeating: "s", count: 100_000))]\n"])
    func everyEchoIsBounded(_ text: String) throws {
        var problems: [ConfigFileError] = []
        let file = ConfigFile(parsing: text, source: "c.conf", knownSections: ["detector"], problems: &problems)
        var configuration = OrientationDetector.Configuration()
        configuration.apply(file, problems: &problems)
        #expect(problems.count == 1)
        let message = problems.map(\.description).joined()
        #expect(message.contains("more characters"), "\(message.prefix(300))")
        #expect(message.utf8.count < 400, "\(message.utf8.count) bytes")
    }
}
