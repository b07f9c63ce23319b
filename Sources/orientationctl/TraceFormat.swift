import OrientationCore

/// The per-sample trace (`--trace`): CSV a spreadsheet or gnuplot reads, one row per sample, so a
/// developer can see exactly why the detector did or did not rotate.
enum TraceFormat {
    static let header = "time,accel_x,accel_y,accel_z,gyro,magnitude,tilt,angle,spread,motion,candidate,pending,published,event,fast_magnitude,gate,steady"

    static func row(sample: Sample, detector: OrientationDetector, event: OrientationEvent?) -> String {
        let s = detector.snapshot
        let a = sample.acceleration
        let f = { (v: Double) in EventFormat.fixed(v, decimals: 3) }
        return [
            EventFormat.seconds(sample.time), f(a.x), f(a.y), f(a.z), sample.angularRate == nil ? "" : f(sample.angularRate!.length),
            f(s.magnitude), f(s.tilt), s.angle.isNaN ? "" : f(s.angle), f(s.spread), s.motion.rawValue,
            s.candidate?.rawValue ?? "", s.pending?.rawValue ?? "", detector.orientation.rawValue,
            event.map { "\($0.previous.rawValue)->\($0.orientation.rawValue)" } ?? "",
            f(s.fastMagnitude), s.accelerationGate ? "1" : "0", s.steady ? "1" : "0",
        ].joined(separator: ",")
    }
}
