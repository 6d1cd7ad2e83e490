import Glibc

/// One source's figures over one bucket of maintained statistics (an hour
/// or a day of local time; docs/architecture.md, "Maintained statistics").
/// Everything a collection interval needs can be combined from the
/// buckets that tile it: sums add, extremes take the extreme, and a sample
/// that spans buckets is counted once per interval through `count` (the
/// samples that start in the bucket) and `crossCount` (those that cross
/// its start, which count only in an interval's first bucket).
struct BucketFigures: Equatable {
    var sourceID: UInt32
    var count: UInt32 = 0
    var crossCount: UInt32 = 0
    /// Σ value × the share of the sample's time inside the bucket.
    var sum = 0.0
    /// Σ v × time and Σ time, v the value (its energy for sound levels).
    var weighted = 0.0, weight = 0.0
    /// Σ v of the samples in `count`, and of those in `crossCount`.
    var arithmetic = 0.0, crossArithmetic = 0.0
    var minimum = Double.infinity, maximum = -Double.infinity
    /// The sample that ends last (then starts last, then was saved last).
    var recentEnd = -Double.infinity, recentStart = -Double.infinity, recentValue = 0.0
    var recentOrder: UInt64 = 0

    init(sourceID: UInt32) { self.sourceID = sourceID }

    var isEmpty: Bool { count == 0 && crossCount == 0 }

    /// Adds the part of a sample inside the bucket: `share` of its value
    /// and `time` seconds of it; `first` when the sample starts here.
    mutating func add(value: Double, level: Double, share: Double, time: Double, first: Bool,
                      start: Double, end: Double, order: UInt64) {
        sum += value * share
        weighted += level * time
        weight += time
        if first {
            count += 1
            arithmetic += level
        } else {
            crossCount += 1
            crossArithmetic += level
        }
        minimum = min(minimum, value)
        maximum = max(maximum, value)
        if (end, start, order) > (recentEnd, recentStart, recentOrder) {
            (recentEnd, recentStart, recentValue, recentOrder) = (end, start, value, order)
        }
    }

    /// Adds figures of the same bucket (another transaction's samples), or,
    /// without `crossing`, of a later bucket of an interval: the samples
    /// that cross its start are counted in an earlier one.
    mutating func merge(_ o: BucketFigures, crossing: Bool = true) {
        count += o.count
        arithmetic += o.arithmetic
        if crossing {
            crossCount += o.crossCount
            crossArithmetic += o.crossArithmetic
        }
        sum += o.sum
        weighted += o.weighted
        weight += o.weight
        minimum = min(minimum, o.minimum)
        maximum = max(maximum, o.maximum)
        if (o.recentEnd, o.recentStart, o.recentOrder) > (recentEnd, recentStart, recentOrder) {
            (recentEnd, recentStart, recentValue, recentOrder) = (o.recentEnd, o.recentStart, o.recentValue, o.recentOrder)
        }
    }

    /// Sound levels (dB) average as energies: the equivalent continuous level.
    static func level(_ value: Double, _ style: AggregationStyle) -> Double {
        style == .discreteEquivalentContinuousLevel ? pow(10, value / 10) : value
    }
}

/// The stored form of a bucket: a count, then its sources' figures, the
/// fields a cumulative type does not use left out (52 bytes a source, 92
/// for a discrete type).
enum BucketCodec {
    static func size(_ style: AggregationStyle) -> Int { style == .cumulative ? 52 : 92 }

    /// Written and read with plain stores and loads: buckets are encoded
    /// once per transaction each, and days decode 24 hours at a time.
    static func encode(_ figures: [BucketFigures], _ style: AggregationStyle) -> [UInt8] {
        let discrete = style != .cumulative, size = size(style)
        return [UInt8](unsafeUninitializedCapacity: 2 + figures.count * size) { buffer, count in
            let p = UnsafeMutableRawBufferPointer(buffer)
            p.storeBytes(of: UInt16(figures.count).littleEndian, as: UInt16.self)
            var at = 2
            func put<T: FixedWidthInteger>(_ v: T) {
                p.storeBytes(of: v.littleEndian, toByteOffset: at, as: T.self)
                at += MemoryLayout<T>.size
            }
            func put(_ v: Double) { put(v.bitPattern) }
            for f in figures {
                put(f.sourceID)
                put(f.count)
                put(f.crossCount)
                if discrete {
                    put(f.weighted)
                    put(f.weight)
                    put(f.arithmetic)
                    put(f.crossArithmetic)
                    put(f.minimum)
                    put(f.maximum)
                } else {
                    put(f.sum)
                }
                put(f.recentEnd)
                put(f.recentStart)
                put(f.recentValue)
                put(f.recentOrder)
            }
            count = at
        }
    }

    static func decode(_ raw: UnsafeRawBufferPointer, _ style: AggregationStyle) throws -> [BucketFigures] {
        var out: [BucketFigures] = []
        out.reserveCapacity(raw.count / size(style))
        try forEach(raw, style) { out.append($0) }
        return out
    }

    /// Decodes a bucket's sources one at a time, without an array.
    static func forEach(_ raw: UnsafeRawBufferPointer, _ style: AggregationStyle,
                        _ body: (BucketFigures) -> Void) throws {
        let discrete = style != .cumulative
        guard raw.count >= 2 else { throw OHKError(.storeCorrupt, "corrupt statistics bucket") }
        let n = Int(UInt16(littleEndian: raw.loadUnaligned(as: UInt16.self)))
        guard raw.count == 2 + n * size(style) else { throw OHKError(.storeCorrupt, "corrupt statistics bucket") }
        var at = 2
        func get<T: FixedWidthInteger>(_: T.Type) -> T {
            defer { at += MemoryLayout<T>.size }
            return T(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: T.self))
        }
        func double() -> Double { Double(bitPattern: get(UInt64.self)) }
        for _ in 0..<n {
            var f = BucketFigures(sourceID: get(UInt32.self))
            f.count = get(UInt32.self)
            f.crossCount = get(UInt32.self)
            if discrete {
                f.weighted = double()
                f.weight = double()
                f.arithmetic = double()
                f.crossArithmetic = double()
                f.minimum = double()
                f.maximum = double()
            } else {
                f.sum = double()
            }
            f.recentEnd = double()
            f.recentStart = double()
            f.recentValue = double()
            f.recentOrder = get(UInt64.self)
            body(f)
        }
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
