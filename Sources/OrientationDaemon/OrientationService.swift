import AmbientSensorCore
import Glibc
import Logging
import OrientationCore
import OrientationServer
import OwnerThreads
import PostureCore
import SensorDeviceAccess
import SensorIIO
import SensorInput
import SensorLifecycle
import SensorPipeline
import SensorProxyBus
import SensorProxyModel
import ServiceLifecycle

/// The running daemon: the socket server, the sensor pipeline between the source and the hub,
/// and (for real sensors) the udev hotplug monitor, wired together.
///
/// Contract: ``start(source:detector:server:listeningSocket:exitWhenDone:watchHotplug:dbus:auxiliarySensors:posture:tabletModeSwitch:uinputPath:dbusHoldsInLaptop:sleeper:logger:)``
/// returns once the socket accepts connections (a bad socket path fails here, before any
/// sensor was opened, and what was made is stopped).
/// ``serviceGroup(logger:shutdownSignals:ignoredSignals:reloadSignals:reload:watchdogInterval:stallsShutdownForTesting:)``
/// runs it until SIGTERM/SIGINT (or, with `exitWhenDone`, until a replay ends); returning from
/// its `run()` means every client got `goodbye`, the
/// sensor is closed and the socket file is removed. Sensor failures never stop the daemon: they
/// publish `unknown` and the sensor is reopened.
public final class OrientationService: Sendable {
    public let server: OrientationSocketServer
    public let pipeline: SensorPipeline
    /// The net.hadess.SensorProxy facade, with `--dbus`.
    public let sensorProxy: SensorProxyBus?
    /// The light, proximity and compass sensors (real sensors only: `nil` for a replay).
    public let auxiliary: AuxiliarySensors?
    /// A convertible's posture from its sensors (`nil` for a replay, whose posture comes from a v3 log's columns: `ReplayedPosture`).
    public let posture: PostureService?
    /// orientationd's virtual tablet-mode switch (real sensors only).
    public let tabletModeSwitch: TabletModeSwitchKeeper?
    private let monitor: UdevMonitor?
    /// How the pipeline's back-off and the watchdog wait.
    private let sleeper: Sleeper

    private init(server: OrientationSocketServer, pipeline: SensorPipeline, sensorProxy: SensorProxyBus?,
                 auxiliary: AuxiliarySensors?, posture: PostureService?, tabletModeSwitch: TabletModeSwitchKeeper?,
                 monitor: UdevMonitor?, sleeper: Sleeper) {
        self.server = server
        self.pipeline = pipeline
        self.sensorProxy = sensorProxy
        self.auxiliary = auxiliary
        self.posture = posture
        self.tabletModeSwitch = tabletModeSwitch
        self.monitor = monitor
        self.sleeper = sleeper
    }

    public static func start(source: any SensorSource, detector: OrientationDetector.Configuration,
                             server configuration: ServerConfiguration, listeningSocket: Int32? = nil,
                             exitWhenDone: Bool = false, watchHotplug: Bool, dbus: Bool = false,
                             auxiliarySensors: AuxiliarySettings? = nil,
                             posture postureConfiguration: PostureDetector.Configuration = PostureDetector.Configuration(),
                             tabletModeSwitch: Bool = false, uinputPath: String = UInputTabletModeSwitch.defaultPath,
                             dbusHoldsInLaptop: Bool = false,
                             sleeper: Sleeper = .task, logger: Logger) async throws -> OrientationService {
        _ = try OrientationDetector(configuration: detector)
        _ = try PostureDetector(configuration: postureConfiguration)
        // The daemon's start, in the order its parts need each other (issue 36: no part reaches
        // another through a box set later):
        // 1. the udev monitor listens, before any discovery;
        // 2. the socket server's hub is made, the socket not yet bound: every sensor publishes
        //    to it from its first state on;
        // 3. the D-Bus facade is made (not yet on the bus), then each sensor: the display
        //    accelerometer's pipeline, light, proximity and compass, the posture and the virtual
        //    tablet-mode switch, each publishing to the hub and the facade;
        // 4. who claims what (ClaimRoutes) and what happens on hotplug (HotplugHandler), once
        //    all of them exist;
        // 5. the socket is bound and accepts (the clients queued on an activated socket first)
        //    and the facade joins the bus, their claims routed by the table. The socket file
        //    appearing still means the daemon answers.
        //
        // 1. The udev monitor listens before the first discovery below (the accelerometer's
        // preparation and presence, the light sensors' scan), so that a sensor appearing at any
        // moment from here on is found by that discovery or reported by an event (issue 31). Its
        // events wait in `hotplug` until the handler exists (step 4).
        let hotplug = HotplugRelay()
        var monitor: UdevMonitor? = nil
        if watchHotplug {
            let udevMonitor = UdevMonitor(logger: logger) { event in hotplug.deliver(event) }
            do {
                try await udevMonitor.start()
                monitor = udevMonitor
            } catch {
                logger.warning("hotplug monitoring unavailable", metadata: ["error": "\(error)"])
            }
        }
        var sensors: Sensors? = nil
        do {
            // 2. The hub. An unknown privileged group fails here; a bad socket path at step 5,
            // before any sensor is opened (nothing is claimed before it).
            let server = try await OrientationSocketServer.prepare(configuration: configuration, logger: logger,
                                                                   listeningSocket: listeningSocket)
            let hub = server.hub
            // What clients are told about the sensor (issue 21).
            let status = SensorStatusTracker { status in hub.setSensorStatus(status) }
            // The display accelerometer's lifecycle: a socket subscriber, a D-Bus claimer and the
            // posture claim it alike (issue 7).
            let display = ClaimedSensor(releaseDelay: SensorPipeline.defaultReleaseDelay, sleeper: sleeper,
                                        onClaimChange: { status.claimed($0) })
            // A slow polled accelerometer is raised to 10 Hz at start, as iio-sensor-proxy does.
            // Its enumeration also says whether there is an accelerometer (below).
            let preparedPresence = await (source as? DiscoveringAccelerometerSource)?.prepare()
            // Whether there is an accelerometer at all, known before anyone subscribes (issue 29):
            // clients see it in every state-carrying message, and the log says so at start.
            let presentAtStart: Bool
            if let preparedPresence { presentAtStart = preparedPresence } else { presentAtStart = await source.isPresent() }
            if let discovering = source as? DiscoveringAccelerometerSource {
                status.present(presentAtStart)
                if !presentAtStart {
                    logger.warning("no display accelerometer found: orientation stays unknown until one appears (orientationd --list-sensors shows what there is)")
                } else {
                    // Issue 40: the start log names the sensor (read only while someone subscribes).
                    logger.info("display accelerometer found", metadata: ["sensor": "\(discovering.prepared ?? "(not enumerated)")"])
                }
            }
            // 3. The facade, then the sensors.
            let sensorProxy = dbus ? SensorProxyBus(initial: SensorProxyState(hasAccelerometer: presentAtStart), logger: logger) : nil
            let made = try await Sensors.make(
                source: source, display: display, detector: detector, posture: postureConfiguration,
                auxiliarySensors: auxiliarySensors, tabletModeSwitch: tabletModeSwitch, uinputPath: uinputPath,
                dbusHoldsInLaptop: dbus && dbusHoldsInLaptop, exitWhenDone: exitWhenDone,
                hub: hub, bus: sensorProxy, status: status, sleeper: sleeper, logger: logger)
            sensors = made
            // 4. Who claims what, and what happens on hotplug.
            let routes = ClaimRoutes(display: display, auxiliary: made.auxiliary, posture: made.posture?.lifecycle,
                                     replaysPosture: made.replayedPosture != nil, busClaimsPosture: made.facadeHold != nil,
                                     bus: sensorProxy)
            if monitor != nil {
                let handler = HotplugHandler(pipeline: made.pipeline, auxiliary: made.auxiliary, posture: made.posture,
                                             tabletModeSwitch: made.tabletModeSwitch, status: status, bus: sensorProxy, logger: logger)
                // The events that came while the daemon was being wired are handled first, in
                // order (on an owner thread: the handler enumerates udev).
                let wired: Void? = await OwnerThread.run(name: "od-udev-wiring") { hotplug.connect { handler.handle($0) } }
                // No thread at all: a daemon that cannot start one cannot read a sensor either.
                if wired == nil { throw SensorError.cannotStartThread(errno: EAGAIN) }
            }
            // 5. Accept clients, join the bus.
            let facadeHold = made.facadeHold
            let listening = try await OrientationSocketServer.listen(
                server,
                onClaimChange: { routes.socket(.orientation, $0) },
                onStateChange: { state in
                    guard let shown = facadeHold.map({ $0.orientation(state) }) ?? state else { return }
                    sensorProxy?.publish { $0.update(device: shown.orientation, locked: shown.locked) }
                },
                onTopicClaimChange: { topic, claimed in routes.socket(topic, claimed) })
            if let sensorProxy {
                do {
                    try sensorProxy.start(onClaimChange: { sensor, claimed in routes.bus(sensor, claimed) })
                } catch {
                    await listening.shutdown(reason: "orientationd could not start")
                    throw error
                }
            }
            return OrientationService(server: listening, pipeline: made.pipeline, sensorProxy: sensorProxy, auxiliary: made.auxiliary,
                                      posture: made.posture, tabletModeSwitch: made.tabletModeSwitch, monitor: monitor, sleeper: sleeper)
        } catch {
            // Nothing runs: the monitor's thread and the sensors' loops must not outlive the
            // failed start (the socket is bound only by the listen that succeeds).
            await monitor?.stop()
            await sensors?.stop()
            throw error
        }
    }

    /// What a reload did: the settings that need a restart to change (kept as they were).
    public struct ReloadOutcome: Sendable, Equatable {
        public var needRestart: [String] = []
    }

    /// Applies reloaded settings without dropping a client: the detector's parameters (an open
    /// sensor is reopened at once with a fresh detector), the server's limits and privileges,
    /// and the sensor settings (a real sensor is reopened with them). Validates everything
    /// before changing anything: on a throw nothing changed.
    /// - Throws: the first problem (a detector parameter, an unknown privileged group).
    public func reload(detector: OrientationDetector.Configuration, server new: ServerConfiguration,
                       sensor: IIOSettings?, auxiliarySensors: AuxiliarySettings? = nil,
                       posture postureConfiguration: PostureDetector.Configuration? = nil,
                       tabletModeSwitch: Bool? = nil) async throws -> ReloadOutcome {
        _ = try OrientationDetector(configuration: detector)
        if let postureConfiguration { _ = try PostureDetector(configuration: postureConfiguration) }
        var outcome = ReloadOutcome()
        outcome.needRestart = try await server.reconfigure(new)
        try pipeline.reconfigure(detector)
        if let sensor, let iio = pipeline.source as? DiscoveringAccelerometerSource, sensor != iio.settings {
            iio.update(settings: sensor)
            pipeline.restart()
        }
        if let auxiliarySensors, let auxiliary { await auxiliary.update(settings: auxiliarySensors) }
        if let postureConfiguration { try posture?.reconfigure(postureConfiguration) }
        if let tabletModeSwitch, let keeper = self.tabletModeSwitch, let present = posture?.state.present {
            _ = await OwnerThread.run(name: "od-udev-scan") { keeper.update(enabled: tabletModeSwitch, present: present) }
        }
        return outcome
    }

    /// The service manager's STATUS= line: the socket, the sensor in use, the clients.
    public func statusLine() async -> String {
        guard let (connections, subscribers) = try? await server.hub.counts() else {
            return "shutting down; socket \(server.configuration.socketPath)"
        }
        let sensor: String
        if let iio = pipeline.source as? DiscoveringAccelerometerSource {
            sensor = iio.lastOpened.map { "sensor \($0)" } ?? "no sensor opened yet"
        } else {
            sensor = "replaying \(pipeline.source.name)"
        }
        let open = pipeline.health.isAlive ? "" : " (not responding)"
        return "\(sensor)\(open); \(connections) client\(connections == 1 ? "" : "s"), \(subscribers) subscribed; socket \(server.configuration.socketPath)"
    }

    /// The services: the socket server and the pipeline; a finished replay with `exitWhenDone`
    /// shuts the group down. SIGTERM and SIGINT shut it down gracefully: pass `shutdownSignals`
    /// created before ``start(source:detector:server:listeningSocket:exitWhenDone:watchHotplug:dbus:auxiliarySensors:posture:tabletModeSwitch:uinputPath:dbusHoldsInLaptop:sleeper:logger:)``
    /// so that a signal during startup is kept rather than fatal; without it the group traps
    /// them itself once it runs.
    ///
    /// `ignoredSignals` (SIGUSR1, SIGUSR2 from the daemon) are logged and otherwise ignored, so
    /// a stray one never kills the daemon.
    ///
    /// Shutdown is bounded: after ``gracefulShutdownLimit`` seconds ServiceGroup cancels the
    /// services still running, and orientationd exits by force at ``shutdownLimit``
    /// (``ProcessSignals/forceExit(afterShutdownTakesLongerThan:report:)``).
    /// `stallsShutdownForTesting` (the environment variable `ORIENTATIOND_TEST_STALL_SHUTDOWN`,
    /// read by debug builds only: tests) makes the pipeline never finish its shutdown, as a sensor whose close
    /// hangs would, so that those bounds can be tested.
    ///
    /// `reloadSignals` (SIGHUP) run `reload` each time, between `RELOADING=1` and `READY=1`.
    /// With `watchdogInterval` (from `WATCHDOG_USEC`), `WATCHDOG=1` is sent every half interval
    /// while the pipeline makes progress and the event loop answers (``WatchdogService``).
    public func serviceGroup(logger: Logger, shutdownSignals: AsyncStream<Int32>? = nil,
                             ignoredSignals: AsyncStream<Int32>? = nil,
                             reloadSignals: AsyncStream<Int32>? = nil, reload: (@Sendable () async -> Void)? = nil,
                             watchdogInterval: Double? = nil, stallsShutdownForTesting: Bool = false) -> ServiceGroup {
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: SocketServerService(server: server)),
            .init(service: PipelineService(pipeline: pipeline, monitor: monitor, auxiliary: auxiliary, posture: posture,
                                           tabletModeSwitch: tabletModeSwitch,
                                           stallsShutdown: stallsShutdownForTesting),
                  successTerminationBehavior: .gracefullyShutdownGroup),
        ]
        if let reloadSignals, let reload {
            services.append(.init(service: ReloadService(signals: reloadSignals, reload: reload, status: { await self.statusLine() })))
        }
        if let watchdogInterval {
            services.append(.init(service: WatchdogService(interval: watchdogInterval, health: pipeline.health, hub: server.hub,
                                                           status: { await self.statusLine() }, logger: logger, sleeper: sleeper)))
        }
        if let sensorProxy { services.append(.init(service: SensorProxyService(bus: sensorProxy))) }
        if let shutdownSignals {
            services.append(.init(service: ShutdownSignalService(signals: shutdownSignals, logger: logger),
                                  successTerminationBehavior: .gracefullyShutdownGroup))
        }
        if let ignoredSignals {
            services.append(.init(service: IgnoredSignalService(signals: ignoredSignals, logger: logger)))
        }
        var configuration = ServiceGroupConfiguration(
            services: services,
            gracefulShutdownSignals: shutdownSignals == nil ? [.sigterm, .sigint] : [],
            logger: logger
        )
        configuration.maximumGracefulShutdownDuration = .seconds(Self.gracefulShutdownLimit)
        return ServiceGroup(configuration: configuration)
    }

    /// Seconds a graceful shutdown may take before ServiceGroup cancels what still runs.
    public static let gracefulShutdownLimit = 10.0
    /// Seconds after the first SIGTERM/SIGINT at which the daemon exits by force (status 1).
    /// (Not ServiceGroup's `maximumCancellationDuration`: that one ends in `fatalError`.)
    public static let shutdownLimit = 15.0
}
