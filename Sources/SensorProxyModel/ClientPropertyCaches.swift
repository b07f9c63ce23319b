/// What each client of net.hadess.SensorProxy holds of the facade's properties, as far as the
/// facade has told it: the values its `Get`/`GetAll` calls returned and the `PropertiesChanged`
/// signals sent to it. A GLib proxy (gsd-power, mutter, GeoClue, monitor-sensor) loads every
/// property when it is made and from then on learns only from signals, and signals go to
/// claimers only: a client that made its proxy while a sensor was closed, and claims it after
/// someone else opened it, would keep the old value for as long as the value does not change
/// (issue 42). The facade answers a claim, then sends the claimer what is stale here
/// (``stale(_:of:against:)``), addressed to it alone.
///
/// Contract:
/// - A client is told a property by a `GetAll` or a signal (``told(_:_:from:)``); what it was told
///   last is what it holds.
/// - ``stale(_:of:against:)`` is every asked property the client was never told, or was told a
///   different value of: so a client unknown here (never read anything, or past ``capacity``)
///   is stale in everything, and gets every property, never fewer.
/// - At most ``capacity`` clients are remembered (a client is forgotten when it leaves the bus,
///   ``forget(_:)``); one more is not remembered, which costs it only a signal it did not need.
public struct ClientPropertyCaches: Sendable {
    private struct Cache {
        var known: SensorProxyProperties = []
        var values = SensorProxyState(hasAccelerometer: false)
    }

    /// The most clients remembered at once (the system bus allows 256 connections per user;
    /// each entry is about 200 bytes).
    public let capacity: Int
    private var caches: [String: Cache] = [:]

    public init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// Clients remembered.
    public var count: Int { caches.count }

    /// `name` was told `properties` with their values in `state` (it read them, or a signal
    /// carried them).
    public mutating func told(_ name: String, _ properties: SensorProxyProperties, from state: SensorProxyState) {
        guard !properties.isEmpty else { return }
        if caches[name] == nil {
            guard caches.count < capacity else { return }
            caches[name] = Cache()
        }
        caches[name]!.known.formUnion(properties)
        caches[name]!.values.take(properties, from: state)
    }

    /// Those of `properties` that `name` does not hold with the values of `state`.
    public func stale(_ properties: SensorProxyProperties, of name: String, against state: SensorProxyState) -> SensorProxyProperties {
        guard let cache = caches[name] else { return properties }
        return properties.subtracting(cache.known).union(cache.values.properties(properties.intersection(cache.known), differingFrom: state))
    }

    /// `name` left the bus.
    public mutating func forget(_ name: String) {
        caches[name] = nil
    }

    /// Every client forgotten (the connection to the bus ended).
    public mutating func forgetAll() {
        caches = [:]
    }
}
