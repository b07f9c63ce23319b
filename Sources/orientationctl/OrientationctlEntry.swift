/// `orientationctl`'s entry point for the executables that carry it: the `orientationctl`
/// executable and the multi-call binary (Sources/OrientationdMulticall), which runs it when
/// called as `orientationctl` or `monitor-sensor`.
public enum OrientationctlEntry {
    /// Parses the process's arguments and runs the command (as `monitor-sensor` when run by
    /// that name); exits on an error, returns when the command is done.
    public static func main() async {
        await OrientationCtl.main()
    }
}
