/// Makes a constant scale error harmless: learns what the device reads for 1 g and, when that
/// is far from standard gravity, rescales every sample before the detector sees it.
///
/// Why: the detector's acceleration gate compares the magnitude with g. A driver with a wrong
/// `in_accel_scale` (26× too large is a real report), or none at all (raw counts taken as
/// m/s²), reads a still device as 26 g or 16384 m/s²: the gate would hold forever and nothing
/// would ever be published. iio-sensor-proxy does not notice, because its decision ignores the
/// magnitude; orientationd keeps the gate and normalises instead.
///
/// Contract:
/// - A *still stretch* is at least ``Configuration/stillDuration`` seconds (by sample time,
///   never the wall clock) in which every magnitude stays within ``Configuration/stillSpread``
///   (a fraction) of the stretch's mean and the direction within ``Configuration/stillAngle``
///   degrees of its first sample; its mean magnitude is one measurement of the device's 1 g.
///   Measurements are averaged (newest weighted 0.3); a gap longer than the stretch, or time
///   going backwards, starts a new stretch.
/// - Until the first still stretch, the median of the first usable magnitudes (up to five:
///   the first sample's alone, then of those so far) stands in, but only when it is implausible
///   for a hand-held device (outside g ÷ 3 … g × 3): a gross error is corrected from the first
///   sample on, a plausible reading waits for a still stretch.
/// - The learned 1 g within ``Configuration/tolerance`` (a fraction) of g is trusted as it is:
///   ``factor`` stays exactly 1 and samples pass unchanged, so a correct sensor is never touched.
///   Outside it, ``factor`` is g ÷ learned and multiplies acceleration (not angular rate).
/// - Zero or non-finite vectors pass unchanged and teach nothing.
/// - ``isCorrecting`` says whether ``factor`` differs from 1 (the caller warns once).
public struct GravityNormalizer: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Standard gravity, m/s².
        public var gravity = 9.80665
        /// Seconds of stillness that make one measurement.
        public var stillDuration = 0.5
        /// Largest distance of any magnitude from the stretch's mean, as a fraction of it.
        public var stillSpread = 0.03
        /// Largest angle from the stretch's first direction, degrees.
        public var stillAngle = 4.0
        /// A learned 1 g this close to ``gravity`` (fraction) is left alone.
        public var tolerance = 0.15

        public init() {}
    }

    public let configuration: Configuration
    /// What samples are multiplied by: 1 while the sensor's scale is plausible.
    public private(set) var factor = 1.0
    /// The device's own 1 g, in its units, from still stretches (`nil` before the first).
    public private(set) var learnedGravity: Double? = nil
    /// The stand-in from the first samples, when they were implausible (`nil` otherwise).
    public private(set) var provisionalGravity: Double? = nil
    /// How many still stretches were measured.
    public private(set) var stillStretches = 0

    private var firstMagnitudes: [Double] = []
    private var stretch: Stretch? = nil

    private struct Stretch: Sendable {
        var start: Double
        var last: Double
        var direction: Vector3
        var sum: Double
        var count: Int
        var minimum: Double
        var maximum: Double
        var mean: Double { sum / Double(count) }
    }

    /// cos(``Configuration/stillAngle``), computed once.
    private let cosineLimit: Double

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        cosineLimit = cMath_cos(radians(configuration.stillAngle))
    }

    /// True when samples are being rescaled.
    public var isCorrecting: Bool { factor != 1 }

    /// The device's 1 g as currently believed (learned, else provisional).
    public var deviceGravity: Double? { learnedGravity ?? provisionalGravity }

    /// The sample as the detector should see it.
    public mutating func normalize(_ sample: Sample) -> Sample {
        let magnitude = sample.acceleration.length
        // (A magnitude that overflows is no reading: it must not set the scale, or a first row of
        // 1e308 would scale the next ones to zero.)
        guard sample.acceleration.isFinite, magnitude > 0, magnitude.isFinite, sample.time.isFinite else { return rescaled(sample) }
        bootstrap(magnitude)
        observe(time: sample.time, vector: sample.acceleration, magnitude: magnitude)
        return rescaled(sample)
    }

    private func rescaled(_ sample: Sample) -> Sample {
        guard factor != 1 else { return sample }
        var copy = sample
        copy.acceleration = sample.acceleration * factor
        return copy
    }

    private mutating func bootstrap(_ magnitude: Double) {
        guard learnedGravity == nil, firstMagnitudes.count < 5 else { return }
        firstMagnitudes.append(magnitude)
        // The median of what has come so far (from the first sample on, so that the detector's
        // filters never start from a wrong magnitude), settled at the fifth.
        let median = firstMagnitudes.sorted()[firstMagnitudes.count / 2]
        let g = configuration.gravity
        provisionalGravity = median > g * 3 || median < g / 3 ? median : nil
        factor = 1
        updateFactor()
    }

    private mutating func observe(time: Double, vector: Vector3, magnitude: Double) {
        let direction = vector * (1 / magnitude)
        guard var current = stretch, time > current.last, time - current.last <= configuration.stillDuration else {
            stretch = Stretch(start: time, last: time, direction: direction, sum: magnitude, count: 1, minimum: magnitude, maximum: magnitude)
            return
        }
        current.sum += magnitude
        current.count += 1
        current.last = time
        current.minimum = min(current.minimum, magnitude)
        current.maximum = max(current.maximum, magnitude)
        let mean = current.mean
        let spread = configuration.stillSpread * mean
        guard current.maximum - mean <= spread, mean - current.minimum <= spread, direction.dot(current.direction) >= cosineLimit else {
            stretch = Stretch(start: time, last: time, direction: direction, sum: magnitude, count: 1, minimum: magnitude, maximum: magnitude)
            return
        }
        if time - current.start >= configuration.stillDuration, current.count >= 5 {
            learnedGravity = learnedGravity.map { 0.7 * $0 + 0.3 * mean } ?? mean
            stillStretches += 1
            updateFactor()
            stretch = nil
        } else {
            stretch = current
        }
    }

    private mutating func updateFactor() {
        guard let measured = deviceGravity, measured > 0 else { return }
        let g = configuration.gravity
        factor = abs(measured - g) <= configuration.tolerance * g ? 1 : g / measured
    }
}
