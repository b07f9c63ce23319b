/// Decides whether and where an interface rotates, with the rules an iOS app lives by. The daemon
/// only reports the device's orientation; each client applies its own policy.
///
/// Rules (docs/ARCHITECTURE.md §7):
/// - The supported orientations are the app's mask ∧ the window's mask; an empty intersection is
///   an error when the policy is made, never a silent no-op.
/// - `shouldAutorotate == false`, or the system rotation lock, keeps the current orientation.
/// - Face-up, face-down and unknown never change the interface orientation; neither does a device
///   orientation whose interface orientation is not supported.
/// - A preferred orientation must be supported; it is the first interface orientation, and the
///   one taken when a change of masks leaves the current one unsupported.
/// - When the lock is released or autorotation re-enabled, the interface follows the device's
///   latest orientation at once, as on iOS.
public struct RotationPolicy: Hashable, Sendable {
    /// The app's and the window's supported orientations, and their intersection.
    public private(set) var appOrientations: InterfaceOrientationMask
    public private(set) var windowOrientations: InterfaceOrientationMask
    public var supportedOrientations: InterfaceOrientationMask { appOrientations.intersection(windowOrientations) }
    /// The preferred orientation for presentation, if any (always supported).
    public private(set) var preferredOrientation: InterfaceOrientation?
    /// The current interface orientation.
    public private(set) var interfaceOrientation: InterfaceOrientation
    /// The latest device orientation seen.
    public private(set) var deviceOrientation: DeviceOrientation = .unknown
    /// Whether the interface may follow the device at all.
    public private(set) var shouldAutorotate: Bool
    /// The system rotation lock, as published by the daemon.
    public private(set) var systemLocked = false

    /// Creates a policy; the interface starts in the preferred orientation, else the first
    /// supported one (portrait, landscape-right, landscape-left, upside down).
    ///
    /// - Throws: ``RotationPolicyError`` when the masks do not overlap or the preferred
    ///   orientation is not supported.
    public init(app: InterfaceOrientationMask = .all, window: InterfaceOrientationMask = .all,
                shouldAutorotate: Bool = true, preferred: InterfaceOrientation? = nil) throws(RotationPolicyError) {
        let supported = app.intersection(window)
        guard let first = supported.orientations.first else { throw .noCommonOrientation(app: app, window: window) }
        if let preferred, !supported.contains(preferred) { throw .preferredNotSupported(preferred, supported: supported) }
        appOrientations = app
        windowOrientations = window
        preferredOrientation = preferred
        self.shouldAutorotate = shouldAutorotate
        interfaceOrientation = preferred ?? first
    }

    /// The clockwise content rotation for the current interface orientation, in degrees.
    public var rotationDegrees: Int { interfaceOrientation.rotationDegrees }

    /// Feeds the device's orientation and the system lock (from the daemon's state). Returns the
    /// new interface orientation when it changed, else `nil`.
    @discardableResult
    public mutating func update(device: DeviceOrientation, locked: Bool) -> InterfaceOrientation? {
        deviceOrientation = device
        systemLocked = locked
        return reevaluate()
    }

    /// Changes whether the interface may rotate; enabling it follows the device at once.
    @discardableResult
    public mutating func setShouldAutorotate(_ value: Bool) -> InterfaceOrientation? {
        shouldAutorotate = value
        return reevaluate()
    }

    /// Changes the masks (a new window or view controller). If the current orientation is no
    /// longer supported, the interface moves to the device's orientation when supported, else to
    /// the preferred or first supported orientation — even when locked, as iOS must.
    @discardableResult
    public mutating func setSupported(app: InterfaceOrientationMask, window: InterfaceOrientationMask,
                                      preferred: InterfaceOrientation? = nil) throws(RotationPolicyError) -> InterfaceOrientation? {
        let replacement = try RotationPolicy(app: app, window: window, shouldAutorotate: shouldAutorotate, preferred: preferred)
        appOrientations = app
        windowOrientations = window
        preferredOrientation = preferred
        if !supportedOrientations.contains(interfaceOrientation) {
            let previous = interfaceOrientation
            if let target = InterfaceOrientation(device: deviceOrientation), supportedOrientations.contains(target) {
                interfaceOrientation = target
            } else {
                interfaceOrientation = replacement.interfaceOrientation
            }
            return interfaceOrientation == previous ? nil : interfaceOrientation
        }
        return reevaluate()
    }

    private mutating func reevaluate() -> InterfaceOrientation? {
        guard shouldAutorotate, !systemLocked,
              let target = InterfaceOrientation(device: deviceOrientation),
              supportedOrientations.contains(target), target != interfaceOrientation else { return nil }
        interfaceOrientation = target
        return target
    }
}
