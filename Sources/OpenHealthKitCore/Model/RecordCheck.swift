/// The 32-bit check a record ends with (format 6): a hash of everything
/// before it, so that `Store.verify` finds a record whose bytes changed on
/// disk, which no structure of the store records otherwise. Reads do not
/// compute it (docs/reliability.md, "Record checks", has the cost).
///
/// Eight bytes at a time, each word mixed in by an odd multiplication and
/// a shift, both invertible: a change confined to one word always changes
/// the 64-bit state, and the folded 32 bits miss one change in 2^32.
enum RecordCheck {
    static let size = 4

    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        let h = absorb(bytes, into: 0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count))
        return UInt32(truncatingIfNeeded: h ^ h >> 32)
    }

    /// The 64-bit state `h` with `bytes` mixed in, eight at a time (a
    /// short last word padded with zeros): what `of` folds, and what
    /// `TableChecks` chains over a table's entries.
    static func absorb(_ bytes: UnsafeRawBufferPointer, into h: UInt64) -> UInt64 {
        var h = h, at = 0
        while at + 8 <= bytes.count {
            h = mix(h, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
            at += 8
        }
        if at < bytes.count {
            var tail: UInt64 = 0
            for i in at..<bytes.count { tail |= UInt64(bytes[i]) << (8 * UInt64(i - at)) }
            h = mix(h, tail)
        }
        return h
    }

    @inline(__always) static func mix(_ h: UInt64, _ word: UInt64) -> UInt64 {
        let m = (h ^ word) &* 0x9E37_79B9_7F4A_7C15
        return m ^ m >> 29
    }
}
