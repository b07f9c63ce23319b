// swift-tools-version: 6.2
// orientationd: device-orientation events for Linux tablets, phones and 2-in-1s.
// Module boundaries follow docs/ARCHITECTURE.md §2: pure logic (OrientationCore, and the pure
// modules above it) depends on no C library but libm; C libraries live only in thin `C…`
// system-library targets.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "orientationd",
    products: [
        .library(name: "OrientationCore", targets: ["OrientationCore"]),
        .library(name: "SensorLog", targets: ["SensorLog"]),
        .library(name: "OrientationProtocol", targets: ["OrientationProtocol"]),
        .library(name: "OrientationClient", targets: ["OrientationClient"]),
        // One installed binary: `orientationd` is also `orientationctl` and `monitor-sensor` by
        // the name it is run as (docs/PACKAGING.md). `orientationctl` alone is built for
        // development, the tests and its manual.
        .executable(name: "orientationd", targets: ["OrientationdMulticall"]),
        .executable(name: "orientationctl", targets: ["OrientationctlMain"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // MARK: System libraries (thin module maps; each handle is owned by one thread or actor).
        // libiio, loaded with dlopen on its first call (Sources/CLibIIO/iio_loader.c: its
        // dependencies cost 1.3 MB resident in a daemon that may never call it; issue 28).
        .target(name: "CLibIIO"),
        .systemLibrary(
            name: "CLibUdev",
            pkgConfig: "libudev",
            providers: [.apt(["libudev-dev"])]
        ),

        // libsystemd's sd-bus for the net.hadess.SensorProxy facade, and the C half of that facade
        // (vtables are macros and message calls variadic: neither imports into Swift).
        .systemLibrary(
            name: "CLibSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .target(name: "CSensorProxyShim", dependencies: ["CLibSystemd"]),
        .target(name: "CSystemShims"),
        // Swift's global-executor hook, set from C: the daemon's tasks run on SwiftNIO's loops.
        .target(name: "CGlobalExecutorHook"),
        // Tests only: the umockdev testbed API.
        .systemLibrary(
            name: "CUMockdev",
            pkgConfig: "umockdev-1.0",
            providers: [.apt(["libumockdev-dev"])]
        ),

        // The one owner-thread type: a detached POSIX thread that owns C handles (libiio, libudev,
        // sd-bus) or a blocking call, stopped and awaited without blocking Swift's pool.
        .target(name: "OwnerThreads", dependencies: ["CSystemShims"], swiftSettings: strictSettings),

        // MARK: Pure logic.
        .target(
            name: "OrientationCore",
            swiftSettings: strictSettings,
            linkerSettings: [.linkedLibrary("m")]  // libm: the detector's exp/asin/atan2
        ),
        // What every sensor's claim/open/close lifecycle shares, whatever the sensor: the release
        // delay after the last claim, callbacks queued outside a lock, how timers wait, a repeated
        // log line throttled. Pure: no C library, no NIO.
        .target(name: "SensorLifecycle", dependencies: ["OrientationCore"], swiftSettings: strictSettings),
        // The configuration file's syntax (orientationd.conf(5)): the INI reader with file:line
        // errors (ConfigFile), the one number syntax (ConfigNumber), a section's reader protocol,
        // and the detector's parameter table (DetectorParameter: `[detector]` keys and `--set`).
        .target(name: "ConfigFileFormat", dependencies: ["OrientationCore"], swiftSettings: strictSettings),
        .target(name: "SensorLog", dependencies: ["OrientationCore", "ConfigFileFormat"], swiftSettings: strictSettings),
        // Light, proximity and compass readings (docs/ARCHITECTURE.md §10): the values, their kinds
        // and units, and the rules that decide which reading is published. Pure, depends on nothing.
        .target(name: "AmbientSensorCore", swiftSettings: strictSettings),
        // The D-Bus facade's bookkeeping, pure so that it is tested without sd-bus: iio-sensor-proxy's
        // names and properties (SensorProxyState), the claim table and its bounds, which properties
        // each bus client holds, the polkit checks. SensorProxyBus serves it on the bus.
        .target(name: "SensorProxyModel", dependencies: ["OrientationCore", "AmbientSensorCore"], swiftSettings: strictSettings),
        // Wire messages and their NDJSON form (a strict JSON reader/writer: no Foundation).
        .target(name: "OrientationProtocol", dependencies: ["OrientationCore", "AmbientSensorCore", "PostureCore"], swiftSettings: strictSettings),
        // Synthesises realistic device motion (the scenario suite's generator). A real library,
        // not a test hack: the benchmarks and `orientationctl simulate` use it too.
        .target(name: "MotionSynthesis", dependencies: ["OrientationCore"], swiftSettings: strictSettings),
        // A convertible's posture from its two accelerometers (issue 30) and what a posture means
        // for the display (Posture, PostureHold, PostureRotationRules, the published PostureState):
        // pure like OrientationCore (libm only). The daemon, the wire protocol and the client use
        // it; its synthesis and scenarios (PostureSynthesis) only orientationctl's offline path
        // (replay, evaluate, plot, simulate), the benchmarks and the tests (docs/ARCHITECTURE.md §11).
        .target(name: "PostureCore", dependencies: ["OrientationCore", "ConfigFileFormat"], swiftSettings: strictSettings,
                linkerSettings: [.linkedLibrary("m")]),
        .target(name: "PostureSynthesis", dependencies: ["OrientationCore", "PostureCore", "MotionSynthesis"], swiftSettings: strictSettings),
        // Scoring the detector against a recording's own ground truth (`orientationctl evaluate`)
        // and the SVG timeline that shows why it decided (`orientationctl plot`).
        // A convertible's plot adds the posture's lanes (PostureCore's values).
        .target(name: "DetectorEvaluation", dependencies: ["OrientationCore", "ConfigFileFormat", "PostureCore", "SensorLog"], swiftSettings: strictSettings),

        // MARK: Sources, server, client.
        // Newline framing for both ends of the socket (server and client): one ByteToMessageDecoder.
        // A module of its own so that OrientationProtocol stays free of NIO.
        .target(
            name: "LineFraming",
            dependencies: [.product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: strictSettings
        ),
        // Sensor sources (replay now; IIO in SensorIIO) and the claim-driven pipeline into the
        // detector. No NIO: it hands events to whoever publishes them.
        .target(
            name: "SensorPipeline",
            dependencies: ["OrientationCore", "SensorLifecycle", "SensorLog", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        // evdev's and uinput's ioctls (macros over variadic ioctl(2)) for SensorInput, and the IIO
        // event ioctl for SensorIIO's motion event.
        .target(name: "CLinuxInput"),
        // What reading any real sensor device shares, whatever its kernel subsystem: why finding,
        // opening or reading one failed (SensorError), sample timestamps (ArrivalClock,
        // KernelClockMapper), the clocks that show a suspend (SystemClocks, SuspendWatch), and
        // udev enumeration. SensorInput and SensorIIO both build on it.
        .target(
            name: "SensorDeviceAccess",
            dependencies: ["SensorPipeline", "SensorLog", "OwnerThreads", "CLibUdev"],
            swiftSettings: strictSettings
        ),
        // The Linux input subsystem: evdev accelerometers (EvdevSensorSource, read on an owner
        // thread), `struct input_event` decoding, capability bitmaps, switches (tablet mode, lid,
        // proximity: InputSwitchReader, InputSwitchDiscovery) and the uinput tablet-mode writer.
        .target(
            name: "SensorInput",
            dependencies: ["OrientationCore", "SensorPipeline", "SensorDeviceAccess", "OwnerThreads", "CLinuxInput", "CLibUdev"],
            swiftSettings: strictSettings
        ),
        // Real sensors: the backend table, libudev discovery and hotplug, libiio buffered and polled
        // sources, light, proximity and compass readers. Every libiio/libudev handle is owned by
        // one thread and never crosses into async code.
        .target(
            name: "SensorIIO",
            dependencies: ["OrientationCore", "AmbientSensorCore", "ConfigFileFormat", "SensorPipeline", "SensorLog", "SensorDeviceAccess", "SensorInput",
                           "CLibIIO", "CLibUdev", "CLinuxInput", "OwnerThreads",
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "OrientationServer",
            dependencies: [
                "OrientationCore", "AmbientSensorCore", "PostureCore", "OrientationProtocol", "SensorLifecycle", "CSystemShims", "OwnerThreads",
                "LineFraming",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "OrientationClient",
            dependencies: [
                "OrientationCore", "AmbientSensorCore", "PostureCore", "OrientationProtocol", "LineFraming",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),

        // iio-sensor-proxy's D-Bus API (net.hadess.SensorProxy) served from orientationd's state:
        // the mapping is pure (SensorProxyState); the sd-bus connection is owned by one thread.
        .target(
            name: "SensorProxyBus",
            dependencies: ["OrientationCore", "SensorLifecycle", "SensorProxyModel", "CSensorProxyShim", "OwnerThreads",
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),

        // The daemon's wiring (server + pipeline + hotplug monitor + services), a library so tests
        // can run the real thing in process.
        .target(
            name: "OrientationDaemon",
            dependencies: [
                "OrientationCore", "AmbientSensorCore", "PostureCore", "SensorLifecycle", "SensorPipeline", "SensorDeviceAccess", "SensorInput", "SensorIIO", "OrientationServer",
                "SensorProxyModel", "SensorProxyBus", "OwnerThreads",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),

        // SwiftNIO's loops as Swift's global executor, guarded as NIO guards its own takeover
        // (the daemon's, so an idle daemon never wakes; docs/ARCHITECTURE.md, "Executors").
        .target(
            name: "EventLoopExecutor",
            dependencies: ["CGlobalExecutorHook", .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: strictSettings
        ),

        // MARK: The commands (libraries, so that one binary carries both) and the executables.
        .target(
            name: "orientationd",
            dependencies: [
                "OrientationCore", "AmbientSensorCore", "ConfigFileFormat", "OrientationProtocol", "SensorLog", "SensorPipeline", "OrientationServer",
                "SensorDeviceAccess", "SensorInput", "SensorIIO",
                "OrientationDaemon", "EventLoopExecutor",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "orientationctl",
            dependencies: [
                "OrientationCore", "ConfigFileFormat", "SensorLog", "MotionSynthesis", "DetectorEvaluation", "OrientationClient", "OrientationProtocol",
                "AmbientSensorCore", "SensorProxyModel",  // monitor-sensor prints iio-sensor-proxy's names and readings
                // A convertible's posture in replay, evaluate, plot and simulate (issue 30): the
                // offline path, before the daemon reads a base accelerometer.
                "PostureCore", "PostureSynthesis",
                "SensorIIO", "SensorPipeline",  // calibrate reads the sensor raw
                "OwnerThreads",  // follow --exec awaits its child on one
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The multi-call binary: the daemon (with its executor hook) unless run as orientationctl
        // or monitor-sensor, which never get that hook.
        .executableTarget(
            name: "OrientationdMulticall",
            dependencies: ["orientationd", "orientationctl"],
            swiftSettings: strictSettings
        ),
        .executableTarget(name: "OrientationctlMain", dependencies: ["orientationctl"], swiftSettings: strictSettings),
        .executableTarget(
            name: "OrientationBenchmarks",
            dependencies: [
                "OrientationCore", "SensorLog", "MotionSynthesis", "PostureCore", "PostureSynthesis", "OrientationServer",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/OrientationBenchmarks",
            swiftSettings: strictSettings
        ),

        // Tests only: a process that takes the executor over as the daemon does, then does what
        // its arguments say (ExecutorTakeoverTests runs it).
        .executableTarget(
            name: "executor-takeover-probe",
            dependencies: ["EventLoopExecutor"],
            path: "Tests/ExecutorTakeoverProbe",
            swiftSettings: strictSettings
        ),

        // MARK: Tests (unit and scenario, then end-to-end with the real binary).
        // What the test targets share (running processes, scratch directories, files, deadlines),
        // as swift-argument-parser's ArgumentParserTestHelpers: a regular target that only test
        // targets depend on (SwiftPM test targets cannot share code). Glibc only: most test
        // targets have no Foundation.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strictSettings),
        .testTarget(
            name: "OrientationCoreTests",
            dependencies: ["OrientationCore", "MotionSynthesis", "PostureCore", "PostureSynthesis", "SensorLifecycle", "SensorLog", "SensorProxyModel",
                           "AmbientSensorCore", "ConfigFileFormat", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "DetectorEvaluationTests",
            dependencies: ["DetectorEvaluation", "OrientationCore", "PostureCore", "SensorLog", "MotionSynthesis"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "SensorLogTests", dependencies: ["SensorLog", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(name: "OrientationProtocolTests", dependencies: ["OrientationProtocol", "AmbientSensorCore", "PostureCore"], swiftSettings: strictSettings),
        // The line decoder on an EmbeddedChannel: no sockets, no clock.
        .testTarget(
            name: "LineFramingTests",
            dependencies: ["LineFraming", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio")],
            swiftSettings: strictSettings
        ),
        // End to end: spawns the real orientationctl binary (built first through this dependency).
        .testTarget(
            name: "OrientationctlTests",
            dependencies: ["OrientationctlMain", "orientationctl", "OrientationCore", "SensorLog", "TestSupport"],
            swiftSettings: strictSettings
        ),
        // Real sockets in a temporary directory: the server in process, and the real binaries.
        .testTarget(
            name: "OrientationServerTests",
            dependencies: [
                "OrientationdMulticall", "OrientationctlMain", "executor-takeover-probe", "OrientationServer", "OrientationClient", "OrientationProtocol",
                "OrientationCore", "AmbientSensorCore", "PostureCore", "SensorLifecycle", "SensorPipeline", "SensorLog", "OrientationDaemon", "LineFraming",
                "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The claim-driven pipeline with sources written for the test (no sensor, no socket).
        .testTarget(
            name: "SensorPipelineTests",
            dependencies: ["SensorPipeline", "OrientationCore", "SensorLifecycle", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        // Pure parts of SensorIIO (sensor choice, mount-matrix precedence), SensorInput (event
        // decoding, capability bitmaps) and SensorDeviceAccess (sample timestamps, suspend).
        .testTarget(name: "SensorIIOTests", dependencies: ["SensorIIO", "SensorDeviceAccess", "SensorInput", "OrientationCore", "AmbientSensorCore", "SensorLog", "OwnerThreads"],
                    swiftSettings: strictSettings),
        // libiio and libudev for real, against umockdev testbeds. umockdev's state is process-global:
        // run this target alone, under umockdev-wrapper (scripts/run-tests.sh does).
        .testTarget(
            name: "SensorIIOIntegrationTests",
            dependencies: ["SensorIIO", "SensorDeviceAccess", "SensorInput", "SensorPipeline", "SensorLog", "OrientationCore", "AmbientSensorCore", "OrientationDaemon", "OrientationServer", "CUMockdev",
                           "CLibSystemd", "SensorProxyModel", "SensorProxyBus", "TestSupport", "PostureCore", "PostureSynthesis",
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        // The installed layout (make install into a DESTDIR); run by scripts/run-tests.sh after
        // the install, skipped otherwise.
        // OldPackage/: the 0.1.0 package's script and maintainer scripts, for the upgrade test.
        .testTarget(name: "InstallTests", dependencies: ["TestSupport"], exclude: ["OldPackage"], swiftSettings: strictSettings),
        .testTarget(
            name: "SystemLibraryTests",
            dependencies: ["CLibIIO", "CLibUdev"],
            swiftSettings: strictSettings
        ),
    ]
)
