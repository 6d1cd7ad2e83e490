/// The 4-byte check a value of the maintained statistics' trees ends with
/// (format 15): a hash of the entry's key and of the value's bytes before
/// it. Nothing else in the store repeats a bucket's figures, so without
/// it a byte changed on disk gave a wrong daily sum that `verify` could
/// not see. Reads check it too (a statistics query reads a few buckets),
/// so a damaged bucket is an error, never a wrong figure.
enum EntryCheck {
    static let size = 4

    /// `value` followed by the check of `key` and `value`.
    static func sealed(_ key: [UInt8], _ value: [UInt8]) -> [UInt8] {
        var out = value
        seal(key, &out)
        return out
    }

    /// Appends to `value` the check of `key` and `value` (what `sealed`
    /// returns, without a copy).
    static func seal(_ key: [UInt8], _ value: inout [UInt8]) {
        let check = key.withUnsafeBytes { k in value.withUnsafeBytes { v in of(k, v) } }
        withUnsafeBytes(of: check.littleEndian) { value.append(contentsOf: $0) }
    }

    /// The value of a stored entry without its check; throws
    /// `.storeCorrupt`, naming `what` and the key, when the check does not
    /// match.
    static func opened(_ key: UnsafeRawBufferPointer, _ raw: UnsafeRawBufferPointer,
                       _ what: @autoclosure () -> String) throws -> UnsafeRawBufferPointer {
        guard let value = valid(key, raw) else {
            throw OHKError(.storeCorrupt, "\(what()) under key \(hex(key)) does not match its check: its bytes changed on disk")
        }
        return value
    }

    static func opened(_ key: [UInt8], _ raw: UnsafeRawBufferPointer, _ what: @autoclosure () -> String) throws -> UnsafeRawBufferPointer {
        try key.withUnsafeBytes { try opened($0, raw, what()) }
    }

    /// The value without its check, or nil when the check does not match.
    static func valid(_ key: UnsafeRawBufferPointer, _ raw: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard raw.count >= size else { return nil }
        let value = UnsafeRawBufferPointer(rebasing: raw[..<(raw.count - size)])
        let stored = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: raw.count - size, as: UInt32.self))
        return stored == of(key, value) ? value : nil
    }

    /// The key's and the value's record checks combined: a change confined
    /// to either changes its own check, and so the sum.
    private static func of(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> UInt32 {
        RecordCheck.of(value) &+ RecordCheck.of(key) &* 0x9E37_79B1
    }

    static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
