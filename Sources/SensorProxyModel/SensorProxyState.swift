import OrientationCore

/// What the net.hadess.SensorProxy facade publishes, derived from the daemon's state: pure
/// logic, tested without a bus.
///
/// Rules (docs/DBUS.md):
/// - `AccelerometerOrientation`: portrait → `normal`, portrait-upside-down → `bottom-up`,
///   landscape-left (right edge up, ARCHITECTURE.md §3) → `right-up`, landscape-right →
///   `left-up`, unknown → `undefined`. Face-up and face-down keep the last in-plane value, so a
///   desktop does not rotate when the device is laid flat.
/// - `AccelerometerTilt` (iio-sensor-proxy 3.6+): once ``update(tilt:)`` has been called (the
///   daemon: from the samples, ``TiltTracker``; `undefined` after a sensor failure), the peer's
///   five values by its thresholds, whatever the orientation. Before that (a client that sees only
///   orientation events, such as `monitor-sensor` on the socket), a coarse stand-in: `face-up`,
///   `face-down`, `vertical` for an in-plane orientation, `undefined` for unknown.
/// - While the system rotation lock is on, `AccelerometerOrientation` holds its value: desktops
///   stop rotating. Unlocking publishes the current value at once.
/// - The light, proximity and compass properties are plain values set by whoever reads those
///   sensors (until then: absent, 0, `lux`, not near).
public struct SensorProxyState: Equatable, Sendable {
    /// Whether a usable accelerometer exists (or a replay runs).
    public var hasAccelerometer: Bool
    /// `HasAmbientLight`.
    public var hasAmbientLight = false
    /// `LightLevel`, in ``lightLevelUnit``.
    public var lightLevel = 0.0
    /// `LightLevelUnit`: `lux`, or `vendor` for a sensor without a calibrated scale.
    public var lightLevelUnit = "lux"
    /// `HasProximity`.
    public var hasProximity = false
    /// `ProximityNear`.
    public var proximityNear = false
    /// `HasCompass` (on /net/hadess/SensorProxy/Compass).
    public var hasCompass = false
    /// `CompassHeading`, degrees.
    public var compassHeading = 0.0
    /// The `AccelerometerOrientation` string.
    public private(set) var orientation = "undefined"
    /// The `AccelerometerTilt` string.
    public private(set) var tilt = "undefined"
    /// The orientation as the detector has it, kept while the lock holds the published one.
    private var lastInPlane = "undefined"
    /// Whether the detector has decided an orientation (any but unknown, flat included) since
    /// the last unknown: what a `ClaimAccelerometer` waits for before it is answered.
    public private(set) var decided = false
    /// Whether the tilt comes from ``update(tilt:)`` (the samples) rather than the orientation.
    private var tiltFromSamples = false

    public init(hasAccelerometer: Bool) {
        self.hasAccelerometer = hasAccelerometer
    }

    /// Applies the daemon's current device orientation and rotation lock.
    public mutating func update(device: DeviceOrientation, locked: Bool) {
        decided = device != .unknown
        switch device {
        case .faceUp: if !tiltFromSamples { tilt = "face-up" }
        case .faceDown: if !tiltFromSamples { tilt = "face-down" }
        case .unknown:
            if !tiltFromSamples { tilt = "undefined" }
            lastInPlane = "undefined"
        case .portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight:
            if !tiltFromSamples { tilt = "vertical" }
            lastInPlane = Self.orientationName(device)
        }
        if !locked { orientation = lastInPlane }
    }

    /// Applies iio-sensor-proxy's tilt class of the newest samples; from then on the tilt no
    /// longer follows ``update(device:locked:)``. The lock never holds it (desktops use it for
    /// no rotation).
    public mutating func update(tilt: AccelerometerTilt) {
        tiltFromSamples = true
        self.tilt = tilt.rawValue
    }

    /// The properties in `properties` whose values differ between this state and `other`.
    public func properties(_ properties: SensorProxyProperties, differingFrom other: SensorProxyState) -> SensorProxyProperties {
        var differing: SensorProxyProperties = []
        func check(_ property: SensorProxyProperties, _ same: Bool) {
            if properties.contains(property) && !same { differing.insert(property) }
        }
        check(.hasAccelerometer, hasAccelerometer == other.hasAccelerometer)
        check(.accelerometerOrientation, orientation == other.orientation)
        check(.accelerometerTilt, tilt == other.tilt)
        check(.hasAmbientLight, hasAmbientLight == other.hasAmbientLight)
        check(.lightLevel, lightLevel == other.lightLevel)
        check(.lightLevelUnit, lightLevelUnit == other.lightLevelUnit)
        check(.hasProximity, hasProximity == other.hasProximity)
        check(.proximityNear, proximityNear == other.proximityNear)
        check(.hasCompass, hasCompass == other.hasCompass)
        check(.compassHeading, compassHeading == other.compassHeading)
        return differing
    }

    /// Takes the values of `properties` from `other`, the rest kept (what a client's cache holds
    /// after it was given those properties of `other`).
    public mutating func take(_ properties: SensorProxyProperties, from other: SensorProxyState) {
        if properties.contains(.hasAccelerometer) { hasAccelerometer = other.hasAccelerometer }
        if properties.contains(.accelerometerOrientation) { orientation = other.orientation }
        if properties.contains(.accelerometerTilt) { tilt = other.tilt }
        if properties.contains(.hasAmbientLight) { hasAmbientLight = other.hasAmbientLight }
        if properties.contains(.lightLevel) { lightLevel = other.lightLevel }
        if properties.contains(.lightLevelUnit) { lightLevelUnit = other.lightLevelUnit }
        if properties.contains(.hasProximity) { hasProximity = other.hasProximity }
        if properties.contains(.proximityNear) { proximityNear = other.proximityNear }
        if properties.contains(.hasCompass) { hasCompass = other.hasCompass }
        if properties.contains(.compassHeading) { compassHeading = other.compassHeading }
    }

    /// iio-sensor-proxy's name for an in-plane orientation.
    public static func orientationName(_ device: DeviceOrientation) -> String {
        switch device {
        case .portrait: "normal"
        case .portraitUpsideDown: "bottom-up"
        case .landscapeLeft: "right-up"
        case .landscapeRight: "left-up"
        case .faceUp, .faceDown, .unknown: "undefined"
        }
    }
}
