import Glibc
import TestSupport
import Testing

/// The daemon's executor takeover (`EventLoopExecutor`), in a process of its own
/// (`executor-takeover-probe`): the hooks are process-global, so they cannot be installed in the
/// test process. issue 22, item 3.
@Suite struct ExecutorTakeoverTests {
    static var probe: String { Build.productsDirectory + "/executor-takeover-probe" }

    /// Every task, a detached one and a child it starts, runs on SwiftNIO's singleton loops.
    @Test func tasksRunOnTheEventLoops() throws {
        let probe = try ChildProcess([Self.probe, "threads"], directory: temporaryDirectory())
        #expect(probe.wait() == 0, "\(probe.stderr)")
        let lines = probe.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "installed: true", "\(lines)")
        #expect(lines.dropFirst().count == 2 && lines.dropFirst().allSatisfy { $0.contains("NIO-SGLTN-") }, "\(lines)")
    }

    /// A job for the main actor, which nothing serves in the daemon (its main thread waits for
    /// signals), traps at once with a message that says so; before, it hung without a word.
    @Test func aMainActorJobTrapsLoudlyInsteadOfHanging() throws {
        let probe = try ChildProcess([Self.probe, "main-actor"], directory: temporaryDirectory())
        let status = probe.wait(timeout: 30)
        #expect(status == 128 + SIGILL || status == 128 + SIGTRAP, "status \(String(describing: status)): \(probe.stdout)")
        #expect(probe.stderr.contains("a job was sent to the main actor, which nothing serves"), "\(probe.stderr)")
        #expect(!probe.stdout.contains("main actor ran") && !probe.stdout.contains("returned"), "\(probe.stdout)")
    }
}
