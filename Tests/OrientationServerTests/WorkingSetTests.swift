import Glibc
@testable import OrientationDaemon
import Testing
import TestSupport

/// Issue 28, item 4: the pages only start-up needed leave the daemon's resident set, and
/// nothing that can differ from the file is ever dropped.
@Suite struct WorkingSetTests {
    struct SmapsCase: Sendable, CustomTestStringConvertible {
        let name: String
        let smaps: String
        /// (path, permissions, Rss kB, Anonymous kB) of each mapping, in order.
        let expected: [(String, String, Int, Int)]
        var testDescription: String { name }
    }

    static let smapsCases: [SmapsCase] = [
        SmapsCase(name: "code, relro and data of the executable, a library, anonymous memory", smaps: """
            55d0a6a00000-55d0a6d56000 r--p 00000000 fe:00 1234   /usr/sbin/orientationd
            Size:               3416 kB
            Rss:                 568 kB
            Anonymous:             0 kB
            VmFlags: rd mr mw me dw sd
            55d0a6d56000-55d0a79f0000 r-xp 00355000 fe:00 1234   /usr/sbin/orientationd
            Rss:                4628 kB
            Anonymous:             0 kB
            55d0a79f0000-55d0a7a6d000 r--p 00fee000 fe:00 1234   /usr/sbin/orientationd
            Rss:                 504 kB
            Anonymous:           500 kB
            55d0a7a6e000-55d0a7cae000 rw-p 0106b000 fe:00 1234   /usr/sbin/orientationd
            Rss:                1324 kB
            Anonymous:           184 kB
            7f0000000000-7f0000021000 rw-p 00000000 00:00 0
            Rss:                  80 kB
            Anonymous:            80 kB
            7f1000000000-7f1000190000 r-xp 00028000 fe:00 99     /usr/lib/x86_64-linux-gnu/libc.so.6
            Rss:                1504 kB
            Anonymous:             0 kB
            """, expected: [
                ("/usr/sbin/orientationd", "r--p", 568, 0), ("/usr/sbin/orientationd", "r-xp", 4628, 0),
                ("/usr/sbin/orientationd", "r--p", 504, 500), ("/usr/sbin/orientationd", "rw-p", 1324, 184),
                ("", "rw-p", 80, 80), ("/usr/lib/x86_64-linux-gnu/libc.so.6", "r-xp", 1504, 0),
            ]),
        SmapsCase(name: "a header that does not parse takes its counters with it", smaps: """
            55d0a6d56000-55d0a79f0000 r-xp 00355000 fe:00 1234   /usr/sbin/orientationd
            Rss:                4628 kB
            Anonymous:             0 kB
            zzzz-yyyy r-xp 00000000 fe:00 1234   /usr/sbin/orientationd
            Rss:                  12 kB
            Anonymous:             8 kB
            """, expected: [("/usr/sbin/orientationd", "r-xp", 4628, 0)]),
        SmapsCase(name: "a path with spaces, and a deleted executable", smaps: """
            5600-7600 r-xp 00001000 fe:00 7   /opt/my tools/orientationd (deleted)
            Rss:                   8 kB
            Anonymous:             0 kB
            """, expected: [("/opt/my tools/orientationd (deleted)", "r-xp", 8, 0)]),
    ]

    @Test(arguments: smapsCases)
    func smapsIsReadMappingByMapping(_ test: SmapsCase) {
        let mappings = WorkingSet.mappings(in: test.smaps)
        #expect(mappings.map(\.path) == test.expected.map(\.0))
        #expect(mappings.map(\.permissions) == test.expected.map(\.1))
        #expect(mappings.map(\.residentKilobytes) == test.expected.map(\.2))
        #expect(mappings.map(\.anonymousKilobytes) == test.expected.map(\.3))
    }

    /// Writable mappings and mappings holding modified pages (relocations, a debugger's
    /// breakpoint) are never dropped: their pages differ from the file. The smaps text names
    /// this very test binary, so a wrong decision would madvise real memory; the addresses are
    /// the test's own writable data, which a wrong decision would zero.
    @Test func writableAndModifiedMappingsAreLeftAlone() throws {
        let executable = try #require(Self.executable())
        let own = try #require(Self.ownMappings(executable).first { $0.permissions.hasPrefix("rw") })
        let dir = temporaryDirectory()
        let fake = dir + "/smaps"
        writeText(fake, """
            \(String(own.start, radix: 16))-\(String(own.end, radix: 16)) rw-p 00000000 fe:00 1   \(executable)
            Rss:                 100 kB
            Anonymous:             0 kB
            \(String(own.start, radix: 16))-\(String(own.end, radix: 16)) r--p 00000000 fe:00 1   \(executable)
            Rss:                 100 kB
            Anonymous:             4 kB
            \(String(own.start, radix: 16))-\(String(own.end, radix: 16)) r--s 00000000 fe:00 1   \(executable)
            Rss:                 100 kB
            Anonymous:             0 kB

            """)
        let release = try #require(WorkingSet.releaseStartupPages(smapsPath: fake, executablePath: executable))
        #expect(release == WorkingSet.Release(mappings: 0, kilobytes: 0, skipped: 3))
        removeTree(dir)
    }

    @Test func withoutSmapsNothingIsDone() {
        #expect(WorkingSet.releaseStartupPages(smapsPath: "/nonexistent/smaps") == nil)
    }

    /// In this very process: the test binary's code leaves the resident set, and the code runs
    /// on (its pages fault back in from the page cache, unchanged).
    @Test func theExecutablesCodeLeavesTheResidentSetAndStillRuns() throws {
        let executable = try #require(Self.executable())
        let codeBefore = Self.ownMappings(executable).filter { $0.permissions == "r-xp" }.map(\.residentKilobytes).reduce(0, +)
        let release = try #require(WorkingSet.releaseStartupPages())
        let codeAfter = Self.ownMappings(executable).filter { $0.permissions == "r-xp" }.map(\.residentKilobytes).reduce(0, +)
        #expect(release.mappings >= 1 && release.failed == 0, "\(release)")
        #expect(release.skipped >= 1, "the writable data mapping is skipped: \(release)")
        #expect(release.kilobytes > 0, "\(release)")
        #expect(codeAfter < codeBefore / 2, "code resident before \(codeBefore) kB, after \(codeAfter) kB")
    }

    /// The daemon drops its start-up pages once started, and serves afterwards as before.
    @Test func theDaemonReleasesItsStartupPagesAndStillServes() throws {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--speed", "20", "--socket", socket,
                                       "--log-level", "warning"], directory: dir)
        #expect(waitForSocket(socket))
        let started = Self.codeResident(pid: daemon.pid, executable: Build.orientationd)
        #expect(started > 0)
        // The release comes a second after READY=1, from the daemon's main thread.
        let released = waitUntil(timeout: 20, every: 0.05) {
            Self.codeResident(pid: daemon.pid, executable: Build.orientationd) < started / 2
        }
        #expect(released, "code resident at start \(started) kB, now \(Self.codeResident(pid: daemon.pid, executable: Build.orientationd)) kB")
        let client = try TestSocket.subscriber(socket)
        let event = client.readLine(timeout: 10) { $0.contains("\"type\":\"orientation\"") }
        #expect(event != nil, "the daemon serves after releasing its pages: \(daemon.stderr)")
        #expect(daemon.terminate() == 0, "\(daemon.stderr)")
        removeTree(dir)
    }

    /// A claim's own path (here a subscriber's) leaves the resident set 5 s after the claim,
    /// while the claim lasts; the daemon keeps serving meanwhile.
    @Test func aClaimsSetUpPagesLeaveWhileTheClaimLasts() throws {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--loop", "--speed", "5", "--socket", socket,
                                       "--log-level", "warning"], directory: dir)
        #expect(waitForSocket(socket))
        let code = { Self.codeResident(pid: daemon.pid, executable: Build.orientationd) }
        let started = code()
        #expect(waitUntil(timeout: 20, every: 0.05) { code() < started / 2 }, "start-up's pages first: \(started) kB, now \(code()) kB")
        let client = try TestSocket.subscriber(socket)
        #expect(client.readLine(timeout: 10) { $0.contains("\"type\":\"orientation\"") } != nil, "\(daemon.stderr)")
        var claimed = code()
        let settled = monotonicNow() + 1
        while monotonicNow() < settled { claimed = max(claimed, code()); usleep(50_000) }  // the claim's path, faulted in
        let released = waitUntil(timeout: 20, every: 0.1) { code() < claimed * 9 / 10 }
        #expect(released, "code resident while claimed: \(claimed) kB, now \(code()) kB")
        client.send("{\"op\":\"get\",\"id\":7}\n")
        #expect(client.readLine(timeout: 10) { $0.contains("\"id\":7") } != nil, "the daemon still answers: \(daemon.stderr)")
        #expect(daemon.terminate() == 0, "\(daemon.stderr)")
        removeTree(dir)
    }

    // MARK: - Helpers

    static func executable() -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let count = readlink("/proc/self/exe", &buffer, 4096)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func ownMappings(_ executable: String, pid: String = "self") -> [WorkingSet.Mapping] {
        WorkingSet.mappings(in: readTextIfPresent("/proc/\(pid)/smaps") ?? "").filter { $0.path == executable }
    }

    static func codeResident(pid: pid_t, executable: String) -> Int {
        // smaps names the file itself (.build/debug is a link to the triple's directory).
        guard let resolved = realpath(executable, nil) else { return 0 }
        defer { free(resolved) }
        return ownMappings(String(cString: resolved), pid: "\(pid)").filter { $0.permissions == "r-xp" }
            .map(\.residentKilobytes).reduce(0, +)
    }
}
