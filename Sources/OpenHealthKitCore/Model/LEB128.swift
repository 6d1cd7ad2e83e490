/// LEB128 varints: seven bits a byte, the low ones first, the top bit
/// set on every byte but the last. The start index, the UUID index's
/// buckets and the statistics buckets keep their numbers so.
enum LEB128 {
    @inline(__always)
    static func append(_ v: UInt64, to out: inout [UInt8]) {
        var v = v
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// The varint at `at` in `bytes`, with `at` moved past it; nil when
    /// the bytes run out before its last byte, or it runs past 64 bits
    /// (damage: the callers throw their own `.storeCorrupt`).
    @inline(__always)
    static func read(_ bytes: UnsafeRawBufferPointer, at: inout Int) -> UInt64? {
        var v: UInt64 = 0, shift: UInt64 = 0
        while at < bytes.count, shift < 64 {
            let b = bytes[at]
            at += 1
            v |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return v }
            shift += 7
        }
        return nil
    }
}
