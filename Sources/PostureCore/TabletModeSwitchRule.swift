import OrientationCore

/// What a convertible's own tablet-mode switch says of its posture (issue 39): most convertibles
/// (Yogas, ThinkPad X1 Yogas, HP x360s, Dell 2-in-1s) have one accelerometer, in the display,
/// and report folding through their firmware (intel-vbtn, intel-hid, thinkpad_acpi, asus-wmi,
/// ...: an input device with `SW_TABLET_MODE`).
///
/// The switch is the machine's own word on whether the keyboard is folded away; a measured
/// hinge angle (two accelerometers, or the machine's hinge sensor) adds which folded posture
/// (tablet, tent, stand) or which open one (laptop, flat). So:
/// - No switch (`nil`): the measured posture.
/// - Switch on: the measured posture if it is a folded one (tablet, tent, stand), else `tablet`
///   (nothing measured, or an angle that says otherwise: the switch wins).
/// - Switch off: `closed` while a lid switch says shut; the measured posture if it is an open one
///   (laptop, flat, closed), else `laptop`.
public enum TabletModeSwitchRule {
    /// The posture to publish.
    public static func posture(measured: Posture, tabletMode: Bool?, lidClosed: Bool?) -> Posture {
        guard let tabletMode else { return measured }
        if tabletMode {
            return measured.isTabletMode == true ? measured : .tablet
        }
        if lidClosed == true { return .closed }
        return measured.isTabletMode == false ? measured : .laptop
    }
}
