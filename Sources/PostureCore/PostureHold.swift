/// Why the ``PostureDetector`` is not deciding from the current sample: it keeps the posture it
/// published (or, for ``closedOrFoldedBack``, goes to ``Posture/unknown``) and says why.
///
/// The raw values are the spelling for logs and diagnostics.
public enum PostureHold: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// One of the two accelerometers has not delivered a usable reading yet, or its latest is
    /// older than `pairing-window`: there is no pair to compare.
    case waitingForSensors = "waiting-for-sensors"
    /// The hinge axis is within `hinge-vertical-margin` of vertical (the device stands on its
    /// side, or a tablet is held in the other orientation): turning the hinge hardly changes
    /// what either sensor reads, so the angle is unknowable.
    case hingeVertical = "hinge-vertical"
    /// The display's accelerometer is accelerating: its magnitude is off 1 g by more than
    /// `acceleration-tolerance`, or its direction turns faster than `turn-rate` (the lid is
    /// being moved), now or within `motion-holdoff`.
    case displayMoving = "display-moving"
    /// The same for the base's accelerometer (the machine is being carried, lifted, set down).
    case baseMoving = "base-moving"
    /// The halves lie together (the angle is within `closed-folded-band` of 0°/360°) and
    /// neither the path the hinge took nor a lid switch told whether the lid is shut or folded
    /// all the way back.
    case closedOrFoldedBack = "closed-or-folded-back"

    public var description: String { rawValue }
}
