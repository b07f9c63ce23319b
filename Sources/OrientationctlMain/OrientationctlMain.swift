import orientationctl

/// The `orientationctl` executable alone (development, the tests, its manual page). Installed,
/// `orientationctl` is a link to the multi-call `orientationd`, which runs the same code.
@main
enum OrientationctlMain {
    static func main() async {
        await OrientationctlEntry.main()
    }
}
