import FoundationEssentials

/// A workout's stored form: the payload a workout record carries between
/// its head's optional fields and its metadata (`RecordCodec.flagPayload`).
/// Little-endian; a version byte first, so a later format can add fields.
enum WorkoutCodec {
    static let version: UInt8 = 1

    static func encode(_ w: Workout, into out: inout ByteWriter) {
        out.u8(version)
        out.u64(UInt64(w.activityType))
        out.f64(w.duration)
        let totals = [w.totalEnergyBurned, w.totalDistance, w.totalSwimmingStrokeCount, w.totalFlightsClimbed]
        encodeOptionals(totals, into: &out)
        out.u32(UInt32(w.events.count))
        for e in w.events {
            out.u8(UInt8(e.type))
            out.f64(e.start.timeIntervalSinceReferenceDate)
            out.f64(e.end.timeIntervalSinceReferenceDate)
            RecordCodec.encodeMetadata(e.metadata, into: &out)
        }
        out.u32(UInt32(w.activities.count))
        for a in w.activities {
            out.uuid(a.uuid)
            out.u64(UInt64(a.activityType))
            out.f64(a.start.timeIntervalSinceReferenceDate)
            encodeOptionals([a.end?.timeIntervalSinceReferenceDate, a.duration], into: &out)
            RecordCodec.encodeMetadata(a.metadata, into: &out)
            encode(a.statistics, into: &out)
        }
        encode(w.statistics, into: &out)
    }

    static func decode(_ r: inout ByteReader) throws -> Workout {
        guard try r.u8() == version else { throw OHKError(.storeCorrupt, "a workout of an unknown version") }
        let raw = try r.u64()
        guard raw <= UInt64(UInt32.max) else { throw OHKError(.storeCorrupt, "a corrupt workout") }
        let activityType = UInt(raw)
        let duration = try r.f64()
        let totals = try decodeOptionals(4, &r)
        var events: [WorkoutEvent] = []
        for _ in 0..<(try count(&r)) {
            let type = Int(try r.u8())
            let start = try r.f64(), end = try r.f64()
            events.append(WorkoutEvent(type: type, start: Date(timeIntervalSinceReferenceDate: start),
                                       end: Date(timeIntervalSinceReferenceDate: end),
                                       metadata: try RecordCodec.readMetadata(&r)))
        }
        var activities: [WorkoutActivity] = []
        for _ in 0..<(try count(&r)) {
            let uuid = try r.uuid()
            let type = UInt(try r.u64())
            let start = try r.f64()
            let optional = try decodeOptionals(2, &r)
            let metadata = try RecordCodec.readMetadata(&r)
            activities.append(WorkoutActivity(uuid: uuid, activityType: type, start: Date(timeIntervalSinceReferenceDate: start),
                                              end: optional[0].map(Date.init(timeIntervalSinceReferenceDate:)),
                                              duration: optional[1], metadata: metadata, statistics: try decodeStatistics(&r)))
        }
        return Workout(activityType: activityType, duration: duration, totalEnergyBurned: totals[0],
                       totalDistance: totals[1], totalSwimmingStrokeCount: totals[2], totalFlightsClimbed: totals[3],
                       events: events, activities: activities, statistics: try decodeStatistics(&r))
    }

    private static func encode(_ stats: [WorkoutStatistics], into out: inout ByteWriter) {
        out.u32(UInt32(stats.count))
        for s in stats {
            out.string(s.type.identifier)
            out.f64(s.start.timeIntervalSinceReferenceDate)
            out.f64(s.end.timeIntervalSinceReferenceDate)
            encodeOptionals([s.sum, s.average, s.minimum, s.maximum], into: &out)
        }
    }

    private static func decodeStatistics(_ r: inout ByteReader) throws -> [WorkoutStatistics] {
        var out: [WorkoutStatistics] = []
        for _ in 0..<(try count(&r)) {
            let id = try r.string()
            guard let type = TypeCatalogue.lookup(id), type.isQuantity else {
                throw OHKError(.storeCorrupt, "workout statistics of '\(id)', not a quantity type")
            }
            let start = try r.f64(), end = try r.f64()
            let v = try decodeOptionals(4, &r)
            out.append(WorkoutStatistics(type: type, start: Date(timeIntervalSinceReferenceDate: start),
                                         end: Date(timeIntervalSinceReferenceDate: end),
                                         sum: v[0], average: v[1], minimum: v[2], maximum: v[3]))
        }
        return out
    }

    /// A bit per value saying it is there, then the values that are.
    private static func encodeOptionals(_ values: [Double?], into out: inout ByteWriter) {
        var mask: UInt8 = 0
        for (i, v) in values.enumerated() where v != nil { mask |= 1 << UInt8(i) }
        out.u8(mask)
        for v in values { if let v { out.f64(v) } }
    }

    private static func decodeOptionals(_ n: Int, _ r: inout ByteReader) throws -> [Double?] {
        let mask = try r.u8()
        var out: [Double?] = []
        for i in 0..<n { out.append(mask & (1 << UInt8(i)) != 0 ? try r.f64() : nil) }
        return out
    }

    /// A count of what follows, bounded by the bytes left (each item takes
    /// at least one), so that damage cannot ask for a huge array.
    private static func count(_ r: inout ByteReader) throws -> Int {
        let n = Int(try r.u32())
        guard n <= r.remaining else { throw OHKError(.storeCorrupt, "a corrupt workout") }
        return n
    }
}
