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
/// returns once the socket accepts connections (a bad socket path fails here, before anything
/// else runs).
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
        // The pipeline's inbox exists before the server: a client queued on an activated socket
        // can claim the sensor the moment the server accepts it, and the claim waits in the
        // inbox until the pipeline runs (issue 10: a relay between the two lost it).
        let commands = SensorPipeline.Commands()
        // What clients are told about the sensor (issue 21); the hub exists only below, so the
        // tracker reaches it through a box set once the server has started.
        let hubBox = LateBound<SubscriptionHub.Handle>()
        // The posture (issue 30) needs the pipeline's sample tap, so it is made after the pipeline
        // and the server; claims made before it exists are kept for it (issue 36: a subscriber
        // that came the instant the socket appeared was dropped).
        let postureClaims = PendingClaims()
        let status = SensorStatusTracker { status in hubBox.value?.setSensorStatus(status) }
        // A socket subscriber and a D-Bus claimer claim the sensor alike (issue 7).
        let claims = ClaimSources(commands: commands, onChange: { status.claimed($0) })
        // The udev monitor listens before the first discovery below (the accelerometer's
        // preparation and presence, the light sensors' scan), so that a sensor appearing at any
        // moment from here on is found by that discovery or reported by an event (issue 31). Its
        // events wait in `hotplug` until the handler can be made, once everything exists.
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
        do {
            // A slow polled accelerometer is raised to 10 Hz at start, as iio-sensor-proxy does.
            // Its enumeration also says whether there is an accelerometer (below).
            let preparedPresence = await (source as? DiscoveringAccelerometerSource)?.prepare()
            // Light, proximity and compass (issue 17): every state change, live or replayed, goes
            // through this one closure, to the socket's hub and to the D-Bus facade.
            let busBox = LateBound<SensorProxyBus>()
            let publishSensor: @Sendable (AuxiliarySensorState) -> Void = { sensor in
                hubBox.value?.publish(sensor: sensor)
                busBox.value?.publish { $0.update(sensor) }
            }
            let auxiliary = auxiliarySensors.map { settings in AuxiliarySensors(settings: settings, logger: logger, sleeper: sleeper, onChange: publishSensor) }
            await auxiliary?.rescan()
            // A replayed v2 log's light and proximity levels (none for live sensors).
            let replayed = (source as? ReplaySource).flatMap { replay in ReplayedReadings(replay: replay, logger: logger, publish: publishSensor) }
            // A replayed convertible's log (v3): its posture, from the log's base and lid columns
            // beside the display's samples (issue 39); the replay runs for a posture subscriber too.
            let replayedPosture = try (source as? ReplaySource).flatMap { replay in
                try ReplayedPosture(replay: replay, configuration: postureConfiguration) { hubBox.value?.publish(posture: $0) }
            }
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
            // Its light, proximity and compass values come with the first publishSensor below, before
            // the bus thread starts.
            // [posture] dbus-hold-in-laptop: the facade's orientation waits while a convertible is a
            // laptop, so the posture is read whenever a D-Bus client claims the accelerometer.
            let facadeHold = dbus && dbusHoldsInLaptop ? FacadeOrientationHold() : nil
            let sensorProxy = dbus ? SensorProxyBus(initial: SensorProxyState(hasAccelerometer: presentAtStart), logger: logger,
                                                    onClaimChange: { sensor, claimed in
                guard let kind = sensor.auxiliaryKind else {
                    if facadeHold != nil { postureClaims.set("dbus", claimed) }
                    return claims.set("dbus", claimed: claimed)
                }
                guard let service = auxiliary?.service(kind) else {
                    // No live sensor of this kind (a replay): nothing to wait for.
                    if claimed { busBox.value?.readingReady(sensor) }
                    return
                }
                guard claimed else { return service.setClaimed("dbus", false) }
                // The claim is answered once the first reading is published (bounded by the bus).
                // Called on the thread that took the reading (no lock held): only hand the state over.
                service.setClaimed("dbus") { state in
                    busBox.value?.publish { $0.update(state) }
                    busBox.value?.readingReady(sensor)
                }
            }) : nil
            busBox.set(sensorProxy)
            let server = try await OrientationSocketServer.start(
                configuration: configuration, logger: logger, listeningSocket: listeningSocket,
                onClaimChange: { claims.set("socket", claimed: $0) },
                onStateChange: { state in
                    guard let shown = facadeHold.map({ $0.orientation(state) }) ?? state else { return }
                    sensorProxy?.publish { $0.update(device: shown.orientation, locked: shown.locked) }
                },
                onTopicClaimChange: { topic, claimed in
                    if let kind = topic.sensor { auxiliary?.service(kind).setClaimed("socket", claimed) }
                    if topic == .posture { postureClaims.set("socket", claimed) }
                    if topic == .posture, replayedPosture != nil { claims.set("posture", claimed: claimed) }
                },
                sensorStatus: status.current)
            let hub = server.hub
            hubBox.set(hub)
            status.republish()
            // What the closure could not hand over before the hub existed (and the facade's first
            // values of these sensors).
            for kind in AuxiliarySensorKind.allCases {
                if let sensor = auxiliary?.service(kind).state { publishSensor(sensor) }
            }
            for sensor in replayed?.initial ?? [] { publishSensor(sensor) }
            if let replayedPosture { hub.publish(posture: replayedPosture.initial) }
            let pipeline = try SensorPipeline(source: source, configuration: detector, logger: logger, commands: commands,
                                              sleeper: sleeper) { event in
                switch event {
                case .orientation(let change):
                    logger.info("orientation", metadata: ["orientation": "\(change.orientation)", "previous": "\(change.previous)",
                                                          "time": "\(change.time)"])
                    hub.publish(orientation: change.orientation, time: change.time)
                case .sensorActive(let active):
                    hub.setSensorActive(active)
                    status.active(active)
                case .sensorFailed(let reason):
                    hub.publish(orientation: .unknown, time: nil)
                    // Not source.isPresent(): that enumerates udev, and this runs in the reader's task.
                    status.failed(reason, present: !source.lastOpenFoundNoSensor)
                case .recordedReadings(let light, let proximity):
                    replayed?.take(light: light, proximity: proximity)
                case .sourceFinished:
                    status.ended()
                    if exitWhenDone { commands.finish() }
                case .tilt(let tilt):
                    // The facade's AccelerometerTilt, from the samples (iio-sensor-proxy's classes).
                    sensorProxy?.publish { $0.update(tilt: tilt) }
                }
            }
            // A convertible's posture (issue 30): the display's readings through the pipeline's tap,
            // the base accelerometer opened by the service while someone subscribes to `posture`.
            // orientationd's tablet-mode switch ([posture] tablet-mode-switch) follows it.
            if let replayedPosture { pipeline.sampleTap.set { replayedPosture.take($0) } }
            var postureService: PostureService? = nil
            var keeper: TabletModeSwitchKeeper? = nil
            if let discovering = source as? DiscoveringAccelerometerSource {
                let keeperBox = LateBound<TabletModeSwitchKeeper>()
                let service = try PostureService(configuration: postureConfiguration, source: discovering, tap: pipeline.sampleTap,
                                                 claims: claims, logger: logger, sleeper: sleeper) { state in
                    hub.publish(posture: state)
                    keeperBox.value?.postureChanged(state)
                    if let shown = facadeHold?.posture(state.posture) {
                        sensorProxy?.publish { $0.update(device: shown.orientation, locked: shown.locked) }
                    }
                }
                postureService = service
                // `get` reads the state of now: the hinge angle of the last reading, how long held.
                hub.setPostureProvider { [weak service] in service?.state ?? PostureState() }
                let switchKeeper = TabletModeSwitchKeeper(logger: logger, path: uinputPath) { claimed in
                    service.setClaimed(TabletModeSwitchKeeper.claimer, claimed)
                }
                keeperBox.set(switchKeeper)
                keeper = switchKeeper
                let present = await OwnerThread.run(name: "od-udev-scan") { () -> Bool in
                    let present = discovering.presenceOnCallingThread().posture
                    service.setPresent(present)
                    switchKeeper.update(enabled: tabletModeSwitch, present: present)
                    return present
                } ?? false
                // Present first, then the claims held since the server started: one open, at once.
                postureClaims.bind { claimer, claimed in service.setClaimed(claimer, claimed) }
                if present { logger.info("a convertible: posture can be known (a base accelerometer or a hinge angle beside the display's, or the machine's tablet-mode switch); served on the socket's posture topic") }
            }
            let posture = postureService
            let tabletModeKeeper = keeper
            // Hotplug: a sensor appearing, disappearing or changing (mount matrix) reopens the sensor
            // at once if someone listens; a vanished one publishes `unknown` and the daemon goes on.
            // The events that came while the daemon was being wired are handled first, in order (on
            // an owner thread: the handler enumerates udev).
            if monitor != nil {
                let wired: Void? = await OwnerThread.run(name: "od-udev-wiring") {
                    hotplug.connect { event in
                        logger.info("udev event", metadata: ["action": "\(event.action)", "device": "\(event.device)"])
                        if ["add", "remove", "change"].contains(event.action) {
                            // On the monitor's own thread (or the wiring thread above, for an
                            // event that came during start), like the presence check below.
                            auxiliary?.rescanOnCallingThread(removed: event.action == "remove" ? event.device : nil)
                            // The accelerometer is an IIO device or an input node; a hwmon device is a light sensor.
                            guard event.subsystem != "hwmon" else { return }
                            // A switch (a lid, a tablet-mode switch: orientationd's own virtual one
                            // too, at its creation) brings no accelerometer: the display's reader
                            // goes on undisturbed (issue 36); only presence is looked at again.
                            if !event.isInputSwitch { pipeline.restart() }
                            // On an owner thread: enumerating here blocks nothing else.
                            if let discovering = source as? DiscoveringAccelerometerSource {
                                // One enumeration for both (issue 30 had added a second, and a
                                // third for the hinge channel, at every udev event).
                                let (present, convertible) = discovering.presenceOnCallingThread()
                                status.present(present)
                                sensorProxy?.publish { $0.hasAccelerometer = present }
                                posture?.setPresent(convertible)
                                // Presence only: the key is the configuration's (a reload's), never a stale copy.
                                tabletModeKeeper?.update(present: convertible)
                            }
                        }
                    }
                }
                // No thread at all: a daemon that cannot start one cannot read a sensor either.
                if wired == nil {
                    await server.shutdown(reason: "orientationd could not start")
                    throw SensorError.cannotStartThread(errno: EAGAIN)
                }
            }
            if let sensorProxy {
                do {
                    try sensorProxy.start()
                } catch {
                    await server.shutdown(reason: "orientationd could not start")
                    throw error
                }
            }
            return OrientationService(server: server, pipeline: pipeline, sensorProxy: sensorProxy, auxiliary: auxiliary,
                                      posture: posture, tabletModeSwitch: tabletModeKeeper, monitor: monitor, sleeper: sleeper)
        } catch {
            // Nothing runs: the monitor's thread must not outlive the failed start.
            await monitor?.stop()
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
