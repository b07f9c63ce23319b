import Glibc
import OwnerThreads

/// Runs another program (`follow --exec`'s shell, a compositor's `swaymsg`, `xrandr`, `xinput`)
/// and awaits it without blocking a Swift concurrency thread: the spawn, the read of its output
/// and `waitpid` run on a short-lived owner thread (``OwnerThread/run(name:_:)``).
///
/// Contract: the child gets an empty signal mask and default dispositions (a concurrency thread
/// may block some signals, and a Ctrl-C or SIGTERM meant for the child must not stay pending
/// forever); a program that is not found, or cannot be started, reports status 127, as a shell
/// does; standard output is captured (up to ``outputLimit`` bytes, the rest read and dropped) only
/// when asked, else inherited.
enum ExternalCommand {
    struct Result: Sendable {
        /// The exit status (128 + signal number when killed by a signal; 127 when it could not run).
        var status: Int32
        /// What it printed, when captured.
        var output: String
    }

    static let outputLimit = 1 << 20

    /// Runs `arguments` (the program looked up in `PATH` when it has no slash), with
    /// `environment` (`KEY=value`; `nil`: this process's).
    static func run(_ arguments: [String], environment: [String]? = nil, captureOutput: Bool = false) async -> Result {
        await OwnerThread.run(name: "od-command") { runHere(arguments, environment: environment, captureOutput: captureOutput) }
            ?? Result(status: 127, output: "")
    }

    /// The same, blocking the calling thread (an owner thread's).
    private static func runHere(_ arguments: [String], environment: [String]?, captureOutput: Bool) -> Result {
        guard !arguments.isEmpty else { return Result(status: 127, output: "") }
        var fds: [Int32] = [-1, -1]
        if captureOutput {
            // Close-on-exec, so that no other child (a concurrent `--exec`) keeps the write end open.
            guard pipe(&fds) == 0 else { return Result(status: 127, output: "") }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if captureOutput { posix_spawn_file_actions_adddup2(&actions, fds[1], 1) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup($0) } + [nil] }
        defer {
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned: Int32
        if let envp {
            spawned = envp.withUnsafeBufferPointer {
                posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, UnsafeMutablePointer(mutating: $0.baseAddress!))
            }
        } else {
            spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        }
        if captureOutput { close(fds[1]) }
        guard spawned == 0 else {
            if captureOutput { close(fds[0]) }
            return Result(status: 127, output: "")
        }
        var output: [UInt8] = []
        if captureOutput {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = read(fds[0], &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                if output.count < outputLimit { output += buffer[0..<min(count, outputLimit - output.count)] }
            }
            close(fds[0])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return Result(status: 127, output: String(decoding: output, as: UTF8.self)) }
        }
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Result(status: exit, output: String(decoding: output, as: UTF8.self))
    }

    /// This process's environment with `extra` added (replacing entries of the same names).
    static func environment(adding extra: [(String, String)]) -> [String] {
        var result = [String]()
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            if !extra.contains(where: { text.hasPrefix($0.0 + "=") }) { result.append(text) }
            index += 1
        }
        return result + extra.map { "\($0)=\($1)" }
    }
}
