import Glibc

/// The daemon's entry point as the multi-call binary sees it (Sources/OrientationdMulticall).
///
/// `orientationd` became a library so that one binary carries the daemon and `orientationctl`
/// with a single copy of the static Swift runtime (docs/PACKAGING.md, "One binary"). The daemon's
/// `main` stays ``OrientationdMain/main()``: it makes SwiftNIO's loops Swift's global executor,
/// so it must run before any task exists and only when the binary is the daemon.
public enum OrientationdEntry {
    /// Runs the daemon with the process's arguments; never returns.
    public static func main() -> Never {
        OrientationdMain.main()
        exit(0)
    }
}
