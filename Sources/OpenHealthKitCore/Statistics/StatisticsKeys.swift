/// Keys of the maintained statistics' trees (big-endian, so that memcmp
/// order is numeric order and a type's buckets of one level and family
/// are one range).
///
/// A family is the samples of a type counted in one local time: those
/// that carry a UTC offset, one family per offset, their buckets in that
/// local time (rule 28: each sample in its own offset); those without,
/// the floating family, their buckets in UTC.
enum StatisticsKeys {
    static let floating = Int32.min
    /// The family of a sample with this UTC offset (nil: none).
    static func family(_ offset: Int?) -> Int32 { offset.map { Int32($0) } ?? floating }
    /// Seconds from UTC to a family's bucket time.
    static func shift(_ family: Int32) -> Double { family == floating ? 0 : Double(family) }

    enum Level: UInt8 {
        case hour = 0, day = 1
        var seconds: Double { self == .hour ? 3600 : 86_400 }
    }

    static func biased(_ v: Int64) -> UInt64 { UInt64(bitPattern: v) ^ (1 << 63) }

    /// `stat_buckets`: type · family · level · bucket index (bucket time ÷
    /// the level's length).
    static func bucket(type: UInt16, family: Int32, level: Level, index: Int64) -> [UInt8] {
        var k = [UInt8](repeating: 0, count: 15)
        k.withUnsafeMutableBytes { p in
            p.storeBytes(of: type.bigEndian, toByteOffset: 0, as: UInt16.self)
            p.storeBytes(of: (UInt32(bitPattern: family) ^ (1 << 31)).bigEndian, toByteOffset: 2, as: UInt32.self)
            p.storeBytes(of: level.rawValue, toByteOffset: 6, as: UInt8.self)
            p.storeBytes(of: biased(index).bigEndian, toByteOffset: 7, as: UInt64.self)
        }
        return k
    }

    /// The bucket index of a `bucket` key.
    static func index(ofBucket k: UnsafeRawBufferPointer) -> Int64 {
        Int64(bitPattern: UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 7, as: UInt64.self)) ^ (1 << 63))
    }

    /// The key of a type's summary (`TypeSummary`), after its buckets.
    static func summary(type: UInt16) -> [UInt8] {
        bucket(type: type, family: Int32.max, level: .day, index: 0)
    }

    /// `stat_cover` and `stat_overlaps`: type · UTC hour.
    static func hour(type: UInt16, _ hour: Int64) -> [UInt8] {
        var k = [UInt8](repeating: 0, count: 10)
        k.withUnsafeMutableBytes { p in
            p.storeBytes(of: type.bigEndian, toByteOffset: 0, as: UInt16.self)
            p.storeBytes(of: biased(hour).bigEndian, toByteOffset: 2, as: UInt64.self)
        }
        return k
    }

    static func hour(ofKey k: UnsafeRawBufferPointer) -> Int64 {
        Int64(bitPattern: UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 2, as: UInt64.self)) ^ (1 << 63))
    }

    static func type(ofKey k: UnsafeRawBufferPointer) -> UInt16 {
        UInt16(bigEndian: k.loadUnaligned(as: UInt16.self))
    }
}

/// What the statistics of one type know of all its samples: the longest
/// sample (how far before a time a sample may start and still reach it),
/// how many live samples no bucket holds (`outsized`), and the families
/// present.
struct TypeSummary: Equatable {
    var longest = 0.0
    var outsized: Int64 = 0
    var families: [Int32] = []

    /// Samples longer than this, or with a date beyond `dateBound`, are
    /// kept out of the buckets (a year-long sample would write 8,760 hour
    /// buckets); while a type has one, its collections read its samples.
    static let longestBucketed = 31 * 86_400.0
    /// Seconds from 2001 either way (about 31,700 years): the dates whose
    /// hours are whole numbers everywhere they are used.
    static let dateBound = 1e12

    static func isBucketed(start: Double, end: Double) -> Bool {
        abs(start) < dateBound && abs(end) < dateBound && end - start <= longestBucketed
    }

    func encode() -> [UInt8] {
        var w = ByteWriter()
        w.f64(longest)
        w.u64(UInt64(bitPattern: outsized))
        for f in families { w.u32(UInt32(bitPattern: f)) }
        return w.bytes
    }

    static func decode(_ raw: UnsafeRawBufferPointer) throws -> TypeSummary {
        guard raw.count >= 16, raw.count % 4 == 0 else { throw OHKError(.storeCorrupt, "corrupt statistics summary") }
        var r = ByteReader(raw)
        var s = TypeSummary(longest: try r.f64(), outsized: Int64(bitPattern: try r.u64()))
        for _ in 0..<((raw.count - 16) / 4) { s.families.append(Int32(bitPattern: try r.u32())) }
        return s
    }
}
