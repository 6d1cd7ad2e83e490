import FoundationEssentials

/// Appends little-endian fields to a byte array (records, anchors, tables).
struct ByteWriter {
    var bytes: [UInt8] = []

    init() {}

    /// A writer that will not reallocate below `capacity` bytes.
    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func f64(_ v: Double) { u64(v.bitPattern) }
    /// Doubles in one append, little-endian.
    mutating func f64Array(_ values: [Double]) {
        #if _endian(little)
        values.withUnsafeBytes { bytes.append(contentsOf: $0) }
        #else
        for v in values { f64(v) }
        #endif
    }
    mutating func uuid(_ u: UUID) { withUnsafeBytes(of: u.uuid) { bytes.append(contentsOf: $0) } }
    mutating func string(_ s: String) {
        let utf8 = Array(s.utf8)
        u32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }
    mutating func optionalString(_ s: String?) {
        if let s { string(s) } else { u32(UInt32.max) }
    }
}

/// Reads what ByteWriter wrote; every read checks bounds and throws on
/// truncated or corrupt input instead of trapping.
struct ByteReader {
    let buffer: UnsafeRawBufferPointer
    var offset: Int

    init(_ buffer: UnsafeRawBufferPointer, offset: Int = 0) {
        self.buffer = buffer
        self.offset = offset
    }

    var remaining: Int { buffer.count - offset }

    private mutating func take(_ n: Int) throws -> Int {
        guard n >= 0, remaining >= n else { throw OHKError(.storage, "truncated record") }
        defer { offset += n }
        return offset
    }

    mutating func u8() throws -> UInt8 { buffer[try take(1)] }
    mutating func u16() throws -> UInt16 { UInt16(littleEndian: buffer.loadUnaligned(fromByteOffset: try take(2), as: UInt16.self)) }
    mutating func u32() throws -> UInt32 { UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: try take(4), as: UInt32.self)) }
    mutating func u64() throws -> UInt64 { UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: try take(8), as: UInt64.self)) }
    mutating func f64() throws -> Double { Double(bitPattern: try u64()) }
    mutating func uuid() throws -> UUID {
        let at = try take(16)
        return UUID(uuid: buffer.loadUnaligned(fromByteOffset: at, as: uuid_t.self))
    }
    mutating func string() throws -> String {
        let n = Int(try u32())
        let at = try take(n)
        return String(decoding: UnsafeRawBufferPointer(rebasing: buffer[at..<at + n]), as: UTF8.self)
    }
    /// `count` bytes as they are.
    mutating func bytes(_ count: Int) throws -> [UInt8] {
        let at = try take(count)
        return Array(UnsafeRawBufferPointer(rebasing: buffer[at..<at + count]))
    }
    /// `count` doubles in one copy (a series' values, stored little-endian).
    mutating func f64Array(_ count: Int) throws -> [Double] {
        guard count <= remaining / 8 else { throw OHKError(.storage, "truncated record") }
        let at = try take(8 * count)
        return [Double](unsafeUninitializedCapacity: count) { out, n in
            UnsafeMutableRawBufferPointer(out).copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[at..<at + 8 * count]))
            #if _endian(big)
            for k in 0..<count { out[k] = Double(bitPattern: UInt64(littleEndian: out[k].bitPattern)) }
            #endif
            n = count
        }
    }
    mutating func optionalString() throws -> String? {
        let n = try u32()
        if n == UInt32.max { return nil }
        offset -= 4
        return try string()
    }
}

/// Big-endian UInt64 keys, so LMDB's memcmp order is numeric order.
@inline(__always) func bigEndianKey(_ v: UInt64) -> UInt64 { v.bigEndian }
