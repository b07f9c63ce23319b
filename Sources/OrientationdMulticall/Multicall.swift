import Dispatch
import Glibc
import orientationctl
import orientationd

/// The installed binary: `orientationd`, and `orientationctl` and `monitor-sensor` by the name
/// it is run as (symbolic links to it), as busybox does.
///
/// One binary instead of two carries one copy of the statically linked Swift runtime, SwiftNIO
/// and swift-argument-parser: the package shrinks from two 19 MB binaries to one
/// (docs/PACKAGING.md, "One binary"). The daemon's `main` stays synchronous and alone makes
/// SwiftNIO's loops Swift's global executor (``OrientationdEntry``); `orientationctl` keeps
/// Swift's default executor, as its own executable has it.
@main
enum Multicall {
    static func main() {
        switch Multicall.command(invokedAs: CommandLine.arguments.first ?? "") {
        case .daemon:
            OrientationdEntry.main()
        case .client:
            // What an `async` main does: the command runs as a task, and the main thread serves
            // the main queue (the main actor) until the command exits the process.
            Task.detached {
                await OrientationctlEntry.main()
                exit(0)
            }
            dispatchMain()
        }
    }

    enum Command { case daemon, client }

    /// `orientationctl` and `monitor-sensor` (the last path component of argv[0]) are the
    /// client; any other name, `orientationd` included, is the daemon.
    static func command(invokedAs argument0: String) -> Command {
        let name = argument0.split(separator: "/").last.map(String.init) ?? argument0
        return name == "orientationctl" || name == "monitor-sensor" ? .client : .daemon
    }
}
