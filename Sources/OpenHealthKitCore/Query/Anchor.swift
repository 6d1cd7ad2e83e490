import FoundationEssentials

/// A position in a store's change order (rule 1 of docs/semantics.md): opaque bytes
/// holding a format version, the store's UUID, the position, and the
/// tombstone horizon in force when it was handed out, plus a checksum.
/// Its text form is base64 of its bytes.
public struct QueryAnchor: Hashable, Sendable, CustomStringConvertible {
    /// nil for a legacy integer anchor (`init(fromValue:)`), valid for any store.
    public let storeID: UUID?
    public let position: UInt64
    public let horizon: UInt64

    static let version: UInt8 = 1
    static let legacyVersion: UInt8 = 0x81
    static let size = 1 + 16 + 8 + 8 + 4
    static let legacySize = 1 + 8 + 4

    init(storeID: UUID, position: UInt64, horizon: UInt64) {
        self.storeID = storeID
        self.position = position
        self.horizon = horizon
    }

    /// HealthKit's legacy integer anchor: position `value`; 0 means "from
    /// the beginning", like a nil anchor (rule 3).
    public init(fromValue value: Int) {
        storeID = nil
        position = UInt64(max(0, value))
        horizon = 0
    }

    public var bytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.size)
        let n = out.withUnsafeMutableBytes { encode(into: $0) }
        out.removeLast(Self.size - n)
        return out
    }

    /// Writes `bytes` into `out` (room for `size` bytes) and returns how
    /// many it wrote; without an allocation, for the C API's anchors.
    public func encode(into out: UnsafeMutableRawBufferPointer) -> Int {
        precondition(out.count >= Self.size, "an anchor needs \(Self.size) bytes")
        var n = 0
        func put<T>(_ v: T) {
            withUnsafeBytes(of: v) { (out.baseAddress! + n).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            n += MemoryLayout<T>.size
        }
        if let storeID {
            put(Self.version)
            put(storeID.uuid)
            put(position.littleEndian)
            put(horizon.littleEndian)
        } else {
            put(Self.legacyVersion)
            put(position.littleEndian)
        }
        put(Self.checksum(UnsafeRawBufferPointer(rebasing: out[0..<n])).littleEndian)
        return n
    }

    /// Reads an anchor's bytes; a truncated, corrupt or unknown-version one
    /// is `OHKError.Code.anchorCorrupt` (rule 2).
    public init(bytes: [UInt8]) throws {
        self = try bytes.withUnsafeBytes { try QueryAnchor(bytes: $0) }
    }

    /// Reads an anchor from bytes in place (no copy: the C API's path).
    public init(bytes: UnsafeRawBufferPointer) throws {
        guard let first = bytes.first else {
            throw OHKError(.anchorCorrupt, "anchor is empty (truncated); no anchor is nil, not empty bytes or text")
        }
        let expected = first == Self.legacyVersion ? Self.legacySize : Self.size
        guard first == Self.version || first == Self.legacyVersion else {
            throw OHKError(.anchorCorrupt, "anchor has unknown format version \(first)")
        }
        guard bytes.count == expected else {
            throw OHKError(.anchorCorrupt, "anchor is \(bytes.count) bytes, expected \(expected) (truncated or corrupt)")
        }
        var r = ByteReader(bytes, offset: 1)
        let id: UUID? = first == Self.version ? try r.uuid() : nil
        let pos = try r.u64()
        let hor = first == Self.version ? try r.u64() : 0
        let sum = try r.u32()
        guard sum == Self.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<expected - 4])) else {
            throw OHKError(.anchorCorrupt, "anchor checksum does not match (corrupt anchor)")
        }
        storeID = id
        position = pos
        horizon = hor
    }

    public var base64: String { Base64.encode(bytes) }

    public init(base64 text: String) throws {
        guard let data = Base64.decode(text) else {
            throw OHKError(.anchorCorrupt, "anchor text is not base64")
        }
        try self.init(bytes: data)
    }

    public enum Order: Sendable { case before, same, after }

    /// Orders two anchors of one store by position; anchors of different
    /// stores do not compare.
    public func compare(to other: QueryAnchor) throws -> Order {
        if let a = storeID, let b = other.storeID, a != b {
            throw OHKError(.anchorWrongStore, "anchors of different stores do not compare")
        }
        return position < other.position ? .before : position == other.position ? .same : .after
    }

    public var description: String { "QueryAnchor(\(position))" }

    /// FNV-1a, enough to tell a damaged anchor from a real one.
    static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var h: UInt32 = 2_166_136_261
        for b in bytes { h = (h ^ UInt32(b)) &* 16_777_619 }
        return h
    }
}
