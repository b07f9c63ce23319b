import EventLoopExecutor
import Glibc

// Takes Swift's executors over as orientationd does, then, by its argument:
// - `threads`: prints the name of the thread a detached task and a task it starts run on, and
//   whether the takeover was installed;
// - `main-actor`: hops to the main actor, which must trap with ExecutorTakeover's message.
// Exits 0 after `threads`; `main-actor` must never get to print "returned".

func threadName() -> String {
    var buffer = [CChar](repeating: 0, count: 32)
    let fd = open("/proc/thread-self/comm", O_RDONLY)
    guard fd >= 0 else { return "?" }
    defer { close(fd) }
    let count = read(fd, &buffer, 31)
    return count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self).trimmingCharacters() : "?"
}

extension String {
    func trimmingCharacters() -> String { String(self.filter { $0 != "\n" }) }
}

func say(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(1, $0, strlen($0)) }
}

let installed = ExecutorTakeover.install()
say("installed: \(installed)")
let mode = CommandLine.arguments.dropFirst().first ?? "threads"
Task.detached {
    say("detached task on: \(threadName())")
    await Task { say("child task on: \(threadName())") }.value
    if mode == "main-actor" {
        await MainActor.run { say("main actor ran") }
        say("returned")
    }
    exit(0)
}
while true { pause() }
