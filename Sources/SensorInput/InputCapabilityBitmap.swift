/// A capability bitmap as the kernel prints it in an input device's sysfs `capabilities/…`
/// files (`capabilities/sw`, `/ev`, `/key`…; issue 30): one parser for every reader of them
/// (the proximity switch's ``EvdevProximitySwitch``, the lid and tablet-mode switches'
/// ``InputSwitchDiscovery``).
///
/// The format (drivers/input/input.c, `input_print_bitmap`): the bitmap's `unsigned long` words
/// in lower-case hexadecimal without leading zeros (`%lx`), **most significant word first**,
/// separated by single spaces; leading zero words are left out, so a bitmap with only bit 1 set
/// reads `2` however long it is, and an empty one reads `0`. Bit `n` is bit `n % W` of word
/// `n / W` counted from the right, `W` being the kernel's `long` width: 64 on a 64-bit kernel
/// (`KEY=10000000000000 0` is KEY_POWER, bit 116 = 64 + 52), 32 on a 32-bit one.
///
/// Contract: text that is not that format (an empty file, a word that is not hexadecimal, a
/// sign, a word wider than `W` bits) is rejected (`nil`), never read as "no capability" with a
/// wrong bit found by accident; surrounding white space and the file's newline are accepted.
public struct InputCapabilityBitmap: Sendable, Hashable {
    /// The words, least significant first (the reverse of the text's order).
    public let words: [UInt64]
    /// Bits per word: the kernel's `long` width the text was printed with.
    public let bitsPerWord: Int

    /// Parses `text`. `bitsPerWord` is the kernel's `long` width; the default, this process's
    /// `Int` width, is right for every native build (a 32-bit program on a 64-bit kernel would
    /// have to pass 64).
    public init?(_ text: String, bitsPerWord: Int = Int.bitWidth) {
        guard bitsPerWord == 32 || bitsPerWord == 64 else { return nil }
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
        guard !fields.isEmpty else { return nil }
        var words: [UInt64] = []
        for field in fields.reversed() {
            // UInt64(_:radix:) takes a leading "+" or "-"; the kernel never prints one.
            guard field.allSatisfy(\.isHexDigit), let word = UInt64(field, radix: 16) else { return nil }
            if bitsPerWord < 64, word >> UInt64(bitsPerWord) != 0 { return nil }
            words.append(word)
        }
        self.words = words
        self.bitsPerWord = bitsPerWord
    }

    /// Whether bit `bit` (an event code: `SW_TABLET_MODE` = 1) is set; false beyond the words
    /// printed (the kernel leaves out leading zero words).
    public func contains(_ bit: Int) -> Bool {
        guard bit >= 0 else { return false }
        let index = bit / bitsPerWord
        guard index < words.count else { return false }
        return words[index] & (1 << UInt64(bit % bitsPerWord)) != 0
    }

    /// The set bits, ascending.
    public var bits: [Int] {
        var result: [Int] = []
        for (index, word) in words.enumerated() where word != 0 {
            for bit in 0..<bitsPerWord where word & (1 << UInt64(bit)) != 0 { result.append(index * bitsPerWord + bit) }
        }
        return result
    }
}
