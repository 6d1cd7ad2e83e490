import FoundationEssentials

/// Rows in PostgreSQL's binary COPY format (the COPY page of its manual,
/// "Binary Format"): a signature, then per row a field count and each
/// field as a length and its bytes in the type's binary send form, then a
/// trailer. Binary rather than text: no escaping, no number formatting,
/// and timestamps and UUIDs as 8 and 16 bytes. Flushed to libpq every
/// mebibyte, so a batch of any size holds little memory.
struct CopyWriter {
    private var buffer: [UInt8] = []
    private let flush: ([UInt8]) throws -> Void
    private static let flushAt = 1 << 20
    /// Seconds from PostgreSQL's epoch (2000-01-01) to Date's reference date (2001-01-01).
    private static let epochShift = 31_622_400.0

    init(flush: @escaping ([UInt8]) throws -> Void) {
        self.flush = flush
        buffer.reserveCapacity(Self.flushAt + 4096)
        buffer += Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00]
        put(UInt32(0))  // flags
        put(UInt32(0))  // header extension length
    }

    private mutating func put<T: FixedWidthInteger>(_ v: T) {
        withUnsafeBytes(of: v.bigEndian) { buffer.append(contentsOf: $0) }
    }

    mutating func beginRow(fields: Int16) { put(fields) }

    mutating func null() { put(Int32(-1)) }

    mutating func text(_ s: String) {
        var s = s
        s.withUTF8 { u in
            put(Int32(u.count))
            buffer.append(contentsOf: u)
        }
    }

    mutating func text(_ s: String?) { if let s { text(s) } else { null() } }

    mutating func uuid(_ u: UUID) {
        put(Int32(16))
        withUnsafeBytes(of: u.uuid) { buffer.append(contentsOf: $0) }
    }

    mutating func float8(_ v: Double?) {
        guard let v else { return null() }
        put(Int32(8))
        put(v.bitPattern)
    }

    mutating func int4(_ v: Int32?) {
        guard let v else { return null() }
        put(Int32(4))
        put(v)
    }

    mutating func int8(_ v: Int64?) {
        guard let v else { return null() }
        put(Int32(8))
        put(v)
    }

    /// A `timestamptz` from seconds since 2001-01-01 UTC, to the microsecond.
    mutating func timestamp(_ secondsSinceReferenceDate: Double?) {
        guard let t = secondsSinceReferenceDate else { return null() }
        int8(Int64(((t + Self.epochShift) * 1e6).rounded()))
    }

    /// A `jsonb` from JSON text (format version 1, then the text).
    mutating func jsonb(_ json: String?) {
        guard var json else { return null() }
        json.withUTF8 { u in
            put(Int32(u.count + 1))
            buffer.append(1)
            buffer.append(contentsOf: u)
        }
    }

    /// Ends a row; hands the buffer to libpq once it passes a mebibyte.
    mutating func endRow() throws {
        if buffer.count >= Self.flushAt {
            try flush(buffer)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Writes the trailer and the rest of the buffer.
    mutating func finish() throws {
        put(Int16(-1))
        try flush(buffer)
        buffer.removeAll()
    }
}
