/// A failure at run time (a socket path that cannot be used, a malformed log or configuration
/// file): ArgumentParser prints `Error: <description>` and exits 1, without the usage text that
/// a `ValidationError` (a mistake in the arguments themselves) gets.
struct DaemonFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
