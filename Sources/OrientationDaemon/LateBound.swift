import Synchronization

/// A value reachable from closures made before it exists: set once it does, read from any
/// thread (`nil` until then). The daemon's wiring has two such cycles: the sensor status
/// tracker and the light, proximity and compass sensors publish to the socket's hub, made after
/// them; those sensors publish to the D-Bus facade, whose claims need the sensors.
final class LateBound<Value: Sendable>: Sendable {
    private let stored = Mutex<Value?>(nil)
    var value: Value? { stored.withLock { $0 } }
    func set(_ value: Value?) { stored.withLock { $0 = value } }
}
