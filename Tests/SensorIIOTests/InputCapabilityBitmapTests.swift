import SensorIIO
import SensorInput
import Testing

/// The kernel's capability bitmap text (drivers/input/input.c, input_print_bitmap: `%lx` words,
/// most significant first, leading zero words left out), issue 30. Rows from real machines'
/// `capabilities/sw` and `/key` where they exist.
struct InputCapabilityBitmapTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let text: String
        let bitsPerWord: Int
        /// The set bits, or nil when the text must be rejected.
        let bits: [Int]?
        var testDescription: String { "\"\(text)\" (\(bitsPerWord)-bit words)" }
    }

    static let rows: [Row] = [
        // ACPI's Lid Switch: SW_LID.
        Row(text: "1", bitsPerWord: 64, bits: [0]),
        Row(text: "1\n", bitsPerWord: 64, bits: [0]),
        // intel-hid's "Intel HID switches": SW_TABLET_MODE.
        Row(text: "2", bitsPerWord: 64, bits: [1]),
        // intel-vbtn's "Intel Virtual Switches": SW_TABLET_MODE and SW_DOCK.
        Row(text: "22", bitsPerWord: 64, bits: [1, 5]),
        // thinkpad_acpi's "ThinkPad Extra Buttons": SW_TABLET_MODE and SW_RFKILL_ALL.
        Row(text: "a", bitsPerWord: 64, bits: [1, 3]),
        // A headphone jack (SW_HEADPHONE_INSERT), HDMI audio (SW_LINEOUT_INSERT, SW_VIDEOOUT_INSERT).
        Row(text: "4", bitsPerWord: 64, bits: [2]),
        Row(text: "140", bitsPerWord: 64, bits: [6, 8]),
        // gpio-keys' SW_FRONT_PROXIMITY.
        Row(text: "800", bitsPerWord: 64, bits: [11]),
        Row(text: "0", bitsPerWord: 64, bits: []),
        // Multi-word: most significant word first. The Power Button's capabilities/key,
        // KEY_POWER = 116 = 64 + 52.
        Row(text: "10000000000000 0", bitsPerWord: 64, bits: [116]),
        Row(text: "1 2", bitsPerWord: 64, bits: [1, 64]),
        Row(text: "8000000000000000 1", bitsPerWord: 64, bits: [0, 127]),
        Row(text: "1 0 0", bitsPerWord: 64, bits: [128]),
        // The same bitmaps as a 32-bit kernel prints them.
        Row(text: "100000 0 0 0", bitsPerWord: 32, bits: [116]),
        Row(text: "1 2", bitsPerWord: 32, bits: [1, 32]),
        Row(text: "80000000 0", bitsPerWord: 32, bits: [63]),
        // A word wider than the kernel's long is not a bitmap it printed.
        Row(text: "100000000", bitsPerWord: 32, bits: nil),
        Row(text: "ffffffffffffffff", bitsPerWord: 64, bits: Array(0..<64)),
        Row(text: "10000000000000000", bitsPerWord: 64, bits: nil),
        // Not a bitmap at all.
        Row(text: "", bitsPerWord: 64, bits: nil),
        Row(text: " \n", bitsPerWord: 64, bits: nil),
        Row(text: "zz", bitsPerWord: 64, bits: nil),
        Row(text: "1 zz", bitsPerWord: 64, bits: nil),
        Row(text: "+2", bitsPerWord: 64, bits: nil),
        Row(text: "-2", bitsPerWord: 64, bits: nil),
        Row(text: "0x2", bitsPerWord: 64, bits: nil),
        Row(text: "2", bitsPerWord: 16, bits: nil),
    ]

    @Test(arguments: rows)
    func parsesTheKernelsBitmapText(_ row: Row) {
        let bitmap = InputCapabilityBitmap(row.text, bitsPerWord: row.bitsPerWord)
        #expect(bitmap?.bits == row.bits)
        guard let bits = row.bits, let bitmap else { return }
        // contains(_:) agrees with bits for every code up to past the last word.
        for bit in -1...(bitmap.words.count * row.bitsPerWord + 8) { #expect(bitmap.contains(bit) == bits.contains(bit), "bit \(bit)") }
    }

    /// The proximity switch's old entry point reads through the same parser.
    @Test func theProximitySwitchSharesTheParser() {
        #expect(EvdevProximitySwitch.bitmap("0 800", has: InputSwitchCode.frontProximity.rawValue))
        #expect(!EvdevProximitySwitch.bitmap("800 0", has: InputSwitchCode.frontProximity.rawValue))
        #expect(!EvdevProximitySwitch.bitmap("+800", has: InputSwitchCode.frontProximity.rawValue))
    }

    @Test func switchCodesAreTheKernels() {
        #expect([InputSwitchCode.lid, .tabletMode, .frontProximity].map(\.rawValue) == [0, 1, 11])
        #expect([InputSwitchCode.lid, .tabletMode, .frontProximity, InputSwitchCode(rawValue: 5)].map(\.description)
            == ["SW_LID", "SW_TABLET_MODE", "SW_FRONT_PROXIMITY", "SW_0x5"])
    }
}
