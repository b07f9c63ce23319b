import ArgumentParser
import OrientationClient

/// `orientationctl lock` / `unlock`: the system-wide rotation lock (privileged).
struct Lock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lock rotation system-wide: every client keeps its interface orientation (root or the privileged group)."
    )
    @OptionGroup var connection: ClientOptions

    func run() async throws { try await setLock(true, connection) }
}

struct Unlock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Release the system-wide rotation lock (root or the privileged group).")
    @OptionGroup var connection: ClientOptions

    func run() async throws { try await setLock(false, connection) }
}

private func setLock(_ locked: Bool, _ connection: ClientOptions) async throws {
    do {
        try await connection.client.setLocked(locked)
        print(locked ? "rotation locked" : "rotation unlocked")
    } catch OrientationClientError.server(let error) where error.code == .permissionDenied {
        throw CleanExit.message("permission denied: \(error.message)", failing: true)
    } catch {
        throw CleanExit.message("\(error)", failing: true)
    }
}
