import Glibc
import TestSupport
import Testing

/// Issue 21, items 1 and 10: `orientationd --check-config` checks every value with the daemon's
/// own validation and reports every problem, in file order, each with its file:line.
@Suite struct CheckConfigTests {
    /// The mount matrices issue 21 found passing as `valid`, and the daemon skipping them only
    /// at runtime.
    static let badMatrices: [(matrix: String, expected: String)] = [
        ("garbage", "mount-matrix: mount matrix has 1 row; expected 3 rows separated by ';'"),
        ("1,0,0;0,1,0", "mount-matrix: mount matrix has 2 rows"),
        ("0,0,0;0,0,0;0,0,0", "mount-matrix: mount matrix row 1 is all zeros"),
        ("1,0,0;0,1,0;0,1,0", "mount-matrix: mount matrix is singular"),
        ("1,0,0;0,1,0;0,0,x", "mount-matrix: mount matrix row 3, column 3: \"x\" is not a number"),
        ("-1,0,0;0,1,0;0,0,1", "mount-matrix: \"-1,0,0;0,1,0;0,0,1\" is mirrored (determinant -1.0): it would swap left and right"),
    ]

    @Test(arguments: badMatrices)
    func aBadMountMatrixFailsTheCheckWithItsLine(_ row: (matrix: String, expected: String)) throws {
        let dir = temporaryDirectory()
        let config = dir + "/m.conf"
        writeText(config, "# pasted from orientationctl calibrate\n[sensor]\nmount-matrix = \(row.matrix)\n")
        let check = try ChildProcess([Build.orientationd, "--check-config", config], directory: dir)
        #expect(check.wait() == 1)
        #expect(check.stderr.contains("\(config):3: \(row.expected)"), "\(check.stderr)")
        #expect(check.stderr.contains("\(config): not valid (1 problem)"), "\(check.stderr)")
        #expect(!check.stdout.contains("valid"), "\(check.stdout)")
        // The daemon itself refuses the file the same way, instead of skipping the matrix later.
        let daemon = try ChildProcess([Build.orientationd, "--config", config, "--socket", dir + "/d.sock"], directory: dir)
        #expect(daemon.wait() == 1)
        #expect(daemon.stderr.contains("\(config):3: \(row.expected)"), "\(daemon.stderr)")
    }

    /// A socket path the daemon could not bind is refused by the check too, with its line.
    @Test func aSocketPathTooLongToBindFailsTheCheck() throws {
        let dir = temporaryDirectory()
        let config = dir + "/s.conf"
        writeText(config, "[server]\nsocket = /run/\(String(repeating: "x", count: 120))/o.sock\n")
        let check = try ChildProcess([Build.orientationd, "--check-config", config], directory: dir)
        #expect(check.wait() == 1)
        #expect(check.stderr.contains("\(config):2: socket: is 132 bytes long; a Unix socket path holds at most 107"), "\(check.stderr)")
    }

    /// Issue 30: the daemon reads `[posture]`, so a mistake there fails the check with its line.
    @Test func aPostureMistakeFailsTheCheck() throws {
        let dir = temporaryDirectory()
        let config = dir + "/p.conf"
        writeText(config, "[posture]\ntablet-mode-swich = true\nsettle-time = -1\n")
        let check = try ChildProcess([Build.orientationd, "--check-config", config], directory: dir)
        #expect(check.wait() == 1)
        #expect(check.stderr.contains("\(config):2: ") && check.stderr.contains("tablet-mode-switch"), "\(check.stderr)")
        #expect(check.stderr.contains("\(config): not valid"), "\(check.stderr)")
    }

    /// Issue 38: a config number is a decimal, or refused. Swift's `Double(String)` (C's strtod)
    /// read `0x10` as 16 and stopped at a NUL byte (`0\0 5` was 0); every section's numbers are
    /// read by one parser now. Each row: section, key, the value as written (bytes), what the
    /// refusal names.
    static let notDecimal: [(section: String, key: String, value: String, names: String)] = [
        ("detector", "gravity", "0x10", "gravity"),
        ("posture", "gravity", "0x10", "gravity"),
        ("posture", "settle-time", "0\u{0} 5", "settle-time"),
        ("posture", "hinge-speed", "inf", "hinge-speed"),
        ("sensor", "still-interval", "0x1", "still-interval"),
        ("sensor", "scale", "0x1p-4", "scale"),
        ("sensor", "poll-rate", "1e1\u{0}0", "poll-rate"),
        ("server", "requests-per-second", "0x20", "requests-per-second"),
        ("server", "idle-timeout", "nan", "idle-timeout"),
        ("server", "max-clients", "5\u{0}0", "max-clients"),
        ("light", "scale", "0X2", "scale"),
    ]

    @Test(arguments: notDecimal)
    func aNumberThatIsNotADecimalIsRefused(_ row: (section: String, key: String, value: String, names: String)) throws {
        let dir = temporaryDirectory()
        let config = dir + "/n.conf"
        writeText(config, "[\(row.section)]\n\(row.key) = \(row.value)\n")
        let check = try ChildProcess([Build.orientationd, "--check-config", config], directory: dir)
        #expect(check.wait() == 1, "\(row): \(check.stdout)")
        #expect(check.stderr.contains("\(config):2: ") && check.stderr.contains(row.names), "\(row): \(check.stderr)")
        #expect(check.stderr.contains("\(config): not valid (1 problem)"), "\(check.stderr)")
        // The same key with a plain decimal passes: the refusal is the syntax's, not the value's.
        writeText(config, "[\(row.section)]\n\(row.key) = \(row.key == "max-clients" ? "5" : row.key == "gravity" ? "9.8" : "1.5")\n")
        let plain = try ChildProcess([Build.orientationd, "--check-config", config], directory: dir)
        #expect(plain.wait() == 0, "\(row): \(plain.stderr)")
    }

    /// Issue 38: a filter time constant so short that the filter's gain rounds to 1 left the
    /// posture detector inert (every reading counted as moving); --check-config refuses it and
    /// says why.
    @Test(arguments: ["0.002", "0.0333"])
    func aFilterTimeConstantThatLeavesThePostureInertIsRefused(_ value: String) throws {
        let dir = temporaryDirectory()
        let config = dir + "/f.conf"
        writeText(config, "[posture]\nfilter-time-constant = \(value)\n")
        let check = try ChildProcess([Build.orientationd, "--check-config", config], directory: dir)
        #expect(check.wait() == 1, "\(check.stdout)")
        #expect(check.stderr.contains("\(config):2: filter-time-constant (\(value)) is too short for readings up to gap-reset (1.0) apart")
                && check.stderr.contains("no posture would ever be decided"), "\(check.stderr)")
        writeText(config, "[posture]\nfilter-time-constant = 0.04\n")
        #expect(try ChildProcess([Build.orientationd, "--check-config", config], directory: dir).wait() == 0)
    }

    @Test func calibratesLineIsValid() throws {
        let dir = temporaryDirectory()
        let config = dir + "/m.conf"
        writeText(config, "[sensor]\nmount-matrix = 0, 1, 0; -1, 0, 0; 0, 0, 1\n")
        let check = try ChildProcess([Build.orientationd, "--check-config", config], directory: dir)
        #expect(check.wait() == 0, "\(check.stderr)")
        #expect(check.stdout.hasPrefix("\(config): valid"), "\(check.stdout)")
    }

    /// Every problem in one run, sorted by line, whichever section it is in (the daemon used to
    /// stop at the first, checking [detector] before [server] whatever their order).
    @Test func everyProblemIsReportedInFileOrder() throws {
        let dir = temporaryDirectory()
        let config = dir + "/many.conf"
        writeText(config, """
        [server]
        max-clients = 0
        [sensor]
        mount-matrix = 1,0,0;0,1,0
        batch = lots
        [colour]
        hue = 3
        [detector]
        settle-time = soon
        dead-band = 60
        not a setting
        [dbus]
        enable = maybe

        """)
        let check = try ChildProcess([Build.orientationd, "--check-config", config], directory: dir)
        #expect(check.wait() == 1)
        let lines = check.stderr.split(separator: "\n").map(String.init)
        let located = lines.compactMap { line -> Int? in
            guard line.hasPrefix(config + ":") else { return nil }
            return Int(line.dropFirst(config.count + 1).prefix { $0.isNumber })
        }
        #expect(located == [2, 4, 5, 6, 9, 11, 13], "\(check.stderr)")
        #expect(lines.last == "\(config): not valid (7 problems)", "\(check.stderr)")
        // orientationctl reads the same file for its detector: every [detector] problem, and the
        // file's malformed lines, in order.
        let replay = try ChildProcess([Build.orientationctl, "replay", "--config", config, Build.recording], directory: dir)
        #expect(replay.wait() != 0)
        #expect(replay.stderr.contains("\(config):6: unknown section [colour]") && replay.stderr.contains("\(config):9: settle-time")
                && replay.stderr.contains("\(config):11: expected \"name = value\""), "\(replay.stderr)")
    }

    /// Issue 40: `--config`'s help names every section the parser reads, no more and no fewer
    /// (it named four of eight). The parser's list is the one its unknown-section error gives.
    @Test func theConfigOptionsHelpNamesEverySectionTheParserReads() throws {
        let dir = temporaryDirectory()
        let config = dir + "/u.conf"
        writeText(config, "[no-such-section]\n")
        let check = try ChildProcess([Build.orientationd, "--check-config", config], directory: dir)
        #expect(check.wait() == 1)
        func sections(_ text: Substring) -> Set<String> {
            Set(text.split(separator: "[", omittingEmptySubsequences: false).dropFirst().compactMap { $0.split(separator: "]").first.map(String.init) })
        }
        let stderr = Substring(check.stderr)
        let known = stderr.range(ofText: "known sections: ").map { sections(stderr[$0.upperBound...].prefix { $0 != "\n" }) } ?? []
        #expect(known.count >= 8 && known.contains("posture"), "\(check.stderr)")
        let help = try ChildProcess([Build.orientationd, "--help"], directory: dir)
        #expect(help.wait() == 0)
        // ArgumentParser wraps the text: join the option's lines up to the next option.
        let lines = help.stdout.split(separator: "\n").map { String($0.drop { $0 == " " }) }
        guard let start = lines.firstIndex(where: { $0.hasPrefix("--config") }) else {
            Issue.record("no --config in \(help.stdout)")
            return
        }
        let text = lines[start...].prefix { $0 == lines[start] || !$0.hasPrefix("-") }.joined(separator: " ")
        #expect(sections(Substring(text)) == known, "--config's help: \(text)\nthe parser's: \(known.sorted())")
    }
}
