/// The stored form of a bucket (format 18): a source count, then each
/// source's figures, the fields a cumulative type does not use left out.
///
///     count          varint
///     per source     source id, count, cross count (varints);
///                    discrete: weighted, weight, arithmetic, cross
///                    arithmetic, minimum, maximum; cumulative: sum;
///                    then recent end, recent start (against the end),
///                    recent value (numbers) and recent order (varint)
///
/// A number is a varint whose low two bits say what it holds: 0 a whole
/// number (zigzag, in the bits above), 1 a Float32 that follows, 2 a
/// Float64 that follows, 3 a whole number of seconds before or after the
/// field it is measured against. Most figures are whole (step counts,
/// seconds, beats a minute), so a source takes 15-30 bytes where fixed
/// widths took 52 (cumulative) or 92 (discrete); every value reads back
/// exactly.
enum BucketCodec {
    static func encode(_ figures: [BucketFigures], _ style: AggregationStyle) -> [UInt8] {
        let discrete = style != .cumulative
        var w = CompactWriter()
        w.bytes.reserveCapacity(2 + figures.count * (discrete ? 32 : 20))
        w.varint(UInt64(figures.count))
        for f in figures {
            w.varint(UInt64(f.sourceID))
            w.varint(UInt64(f.count))
            w.varint(UInt64(f.crossCount))
            if discrete {
                for v in [f.weighted, f.weight, f.arithmetic, f.crossArithmetic, f.minimum, f.maximum] { w.number(v) }
            } else {
                w.number(f.sum)
            }
            w.number(f.recentEnd)
            w.number(f.recentStart, against: f.recentEnd)
            w.number(f.recentValue)
            w.varint(f.recentOrder)
        }
        return w.bytes
    }

    static func decode(_ raw: UnsafeRawBufferPointer, _ style: AggregationStyle) throws -> [BucketFigures] {
        var out: [BucketFigures] = []
        try forEach(raw, style) { out.append($0) }
        return out
    }

    /// Decodes a bucket's sources one at a time, without an array; throws
    /// on bytes that are not a whole bucket.
    static func forEach(_ raw: UnsafeRawBufferPointer, _ style: AggregationStyle,
                        _ body: (BucketFigures) -> Void) throws {
        let discrete = style != .cumulative
        var r = CompactReader(raw)
        let n = try r.varint()
        // Every source takes at least 7 bytes: no count can promise more.
        guard n <= UInt64(raw.count / 7) else { throw CompactReader.corrupt }
        for _ in 0..<n {
            var f = BucketFigures(sourceID: try r.u32())
            f.count = try r.u32()
            f.crossCount = try r.u32()
            if discrete {
                f.weighted = try r.number()
                f.weight = try r.number()
                f.arithmetic = try r.number()
                f.crossArithmetic = try r.number()
                f.minimum = try r.number()
                f.maximum = try r.number()
            } else {
                f.sum = try r.number()
            }
            f.recentEnd = try r.number()
            f.recentStart = try r.number(against: f.recentEnd)
            f.recentValue = try r.number()
            f.recentOrder = try r.varint()
            body(f)
        }
        guard r.remaining == 0 else { throw CompactReader.corrupt }
    }

    /// Adds `more` into `figures`, source by source.
    static func merge(_ more: [BucketFigures], into figures: inout [BucketFigures]) {
        for m in more {
            if let i = figures.firstIndex(where: { $0.sourceID == m.sourceID }) {
                figures[i].merge(m)
            } else {
                figures.append(m)
            }
        }
    }
}

/// Writes varints and the two-bit-tagged numbers of `BucketCodec`.
private struct CompactWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ v: UInt64) { LEB128.append(v, to: &bytes) }

    /// `x` exactly, as few bytes as it allows; whole seconds from
    /// `reference` when that is shorter and exact.
    mutating func number(_ x: Double, against reference: Double? = nil) {
        if let whole = Self.whole(x) {
            if let reference, let base = Self.whole(reference), let d = Self.whole(x - reference),
               Double(base + d) == x, Self.zigzag(d) < Self.zigzag(whole) {
                varint(Self.zigzag(d) << 2 | 3)
            } else {
                varint(Self.zigzag(whole) << 2)
            }
        } else if Double(Float(x)).bitPattern == x.bitPattern {
            varint(1)
            withUnsafeBytes(of: Float(x).bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        } else {
            varint(2)
            withUnsafeBytes(of: x.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }
    }

    /// `x` as a whole number that reads back as the same bits (not -0),
    /// when it is one of at most 53 bits.
    static func whole(_ x: Double) -> Int64? {
        guard x.rounded() == x, abs(x) < 0x1p53, x.bitPattern != (-0.0).bitPattern else { return nil }
        return Int64(x)
    }

    static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
}

/// Reads what `CompactWriter` wrote, bounds-checked: bytes that run out
/// or do not parse are a corrupt bucket.
private struct CompactReader {
    static let corrupt = OHKError(.storeCorrupt, "corrupt statistics bucket")
    let raw: UnsafeRawBufferPointer
    var at = 0

    init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }

    var remaining: Int { raw.count - at }

    /// Most varints of a bucket are one byte: that case stays inline.
    @inline(__always)
    mutating func varint() throws -> UInt64 {
        guard at < raw.count else { throw Self.corrupt }
        let first = raw[at]
        at += 1
        if first < 0x80 { return UInt64(first) }
        at -= 1
        guard let v = LEB128.read(raw, at: &at) else { throw Self.corrupt }
        return v
    }

    @inline(__always)
    mutating func u32() throws -> UInt32 {
        guard let v = UInt32(exactly: try varint()) else { throw Self.corrupt }
        return v
    }

    @inline(__always)
    mutating func number(against reference: Double? = nil) throws -> Double {
        let tagged = try varint()
        let whole = Double(Int64(bitPattern: tagged >> 3) ^ -Int64(bitPattern: (tagged >> 2) & 1))
        switch tagged & 3 {
        case 0: return whole
        case 3:
            guard let reference else { throw Self.corrupt }
            return reference + whole
        default: return try float(tagged)
        }
    }

    /// The Float32 (tag 1) or Float64 (tag 2) after a tag, which stands alone.
    private mutating func float(_ tagged: UInt64) throws -> Double {
        let width = tagged == 1 ? 4 : 8
        guard tagged < 3, remaining >= width else { throw Self.corrupt }
        defer { at += width }
        return width == 4
            ? Double(Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self))))
            : Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
    }
}
