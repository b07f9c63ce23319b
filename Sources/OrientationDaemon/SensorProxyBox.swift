import SensorProxyBus
import Synchronization

/// The D-Bus facade, reachable from closures made before it exists (the light, proximity and
/// compass sensors publish through one closure made before the facade, whose claims need the
/// sensors): set once, read from any thread.
final class SensorProxyBox: Sendable {
    private let value = Mutex<SensorProxyBus?>(nil)
    var bus: SensorProxyBus? { value.withLock { $0 } }
    func set(_ bus: SensorProxyBus?) { value.withLock { $0 = bus } }
}
