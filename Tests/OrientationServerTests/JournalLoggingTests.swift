import Glibc
import Logging
import OrientationDaemon
import Synchronization
import Testing
import TestSupport

/// Issue 8, item 4: lines fit for journald when standard error is the journal's stream.
@Suite struct JournalLoggingTests {
    final class Lines: Sendable {
        let all = Mutex<[String]>([])
    }

    static let rows: [(level: Logger.Level, prefix: String)] = [
        (.trace, "<7>"), (.debug, "<7>"), (.info, "<6>"), (.notice, "<5>"), (.warning, "<4>"), (.error, "<3>"), (.critical, "<2>"),
    ]

    @Test(arguments: rows)
    func eachLevelGetsItsSyslogPriorityAndTheMetadataStays(_ row: (level: Logger.Level, prefix: String)) {
        let lines = Lines()
        var logger = Logger(label: "orientationd") { _ in
            var handler = JournalLogHandler(output: { line in lines.all.withLock { $0.append(line) } })
            handler.logLevel = .trace
            return handler
        }
        logger[metadataKey: "client"] = "uid 1000"
        logger.log(level: row.level, "sensor opened\nsecond line", metadata: ["device": "iio:device0"])
        let line = lines.all.withLock { $0.first } ?? ""
        #expect(line == "\(row.prefix)sensor opened\\nsecond line client=uid 1000 device=iio:device0 [OrientationServerTests]\n")
    }

    /// The real daemon, its standard error a file that JOURNAL_STREAM names (device:inode, as
    /// systemd sets it): priority prefixes, no timestamps. With a JOURNAL_STREAM naming another
    /// file (a variable inherited without the stream), plain lines.
    @Test(arguments: [true, false])
    func theDaemonWritesJournalLinesOnlyToTheJournalsStream(_ matching: Bool) throws {
        let dir = temporaryDirectory()
        let stream = matching ? "$(stat -L -c %d:%i /proc/$$/fd/2)" : "1:1"
        let script = "export JOURNAL_STREAM=\(stream); exec \(Build.orientationd) --replay \(Build.recording) --socket \(dir)/d.sock"
        let daemon = try ChildProcess(["/bin/sh", "-c", script], directory: dir)
        #expect(daemon.waitForStderr(containing: "listening"), "\(daemon.stderr)")
        #expect(daemon.terminate() == 0)
        let lines = daemon.stderr.split(separator: "\n")
        #expect(!lines.isEmpty)
        if matching {
            #expect(lines.allSatisfy { $0.hasPrefix("<") }, "\(daemon.stderr)")
            #expect(lines.contains { $0.hasPrefix("<6>listening") && $0.contains("socket=\(dir)/d.sock") }, "\(daemon.stderr)")
            #expect(lines.contains { $0.hasPrefix("<5>shutting down") }, "\(daemon.stderr)")
            #expect(!daemon.stderr.contains("+0000"), "no timestamps of our own")
        } else {
            #expect(lines.allSatisfy { !$0.hasPrefix("<") && $0.contains("+0000") }, "\(daemon.stderr)")
        }
    }
}
