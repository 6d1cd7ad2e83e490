import FoundationEssentials

/// A heartbeat series (HealthKit's `HKHeartbeatSeriesSample`, rule 39):
/// the value of a sample of `HKDataTypeIdentifierHeartbeatSeries`, each
/// beat's time since the sample's start, in order, and whether a gap in
/// the data (beats that may be missing) came just before it.
public struct HeartbeatSeries: Hashable, Sendable {
    public struct Beat: Hashable, Sendable {
        /// Seconds since the series' start date.
        public var timeSinceStart: Double
        public var precededByGap: Bool

        /// A beat `timeSinceStart` seconds after the series' start.
        public init(timeSinceStart: Double, precededByGap: Bool = false) {
            self.timeSinceStart = timeSinceStart
            self.precededByGap = precededByGap
        }
    }

    /// In time order (sorted when made, as HealthKit's builder sorts).
    public internal(set) var beats: [Beat]

    /// The beats, sorted by time.
    public init(beats: [Beat]) {
        self.beats = beats.sorted { $0.timeSinceStart < $1.timeSinceStart }
    }

    /// What a save refuses (rule 39): no beat, a time that is negative,
    /// not finite, or after the sample's end.
    func validate(_ uuid: UUID, duration: Double) throws {
        guard !beats.isEmpty else { throw OHKError(.invalidValue, "heartbeat series \(uuid) has no beat") }
        for b in beats {
            guard b.timeSinceStart.isFinite, b.timeSinceStart >= 0 else {
                throw OHKError(.invalidValue, "heartbeat series \(uuid): a beat at \(b.timeSinceStart) s is not a time since its start")
            }
        }
        // `beats` can only be set sorted; the check keeps the stored form so.
        guard zip(beats, beats.dropFirst()).allSatisfy({ $0.timeSinceStart <= $1.timeSinceStart }) else {
            throw OHKError(.invalidValue, "heartbeat series \(uuid): its beats are not in time order")
        }
        guard beats.last!.timeSinceStart <= duration else {
            throw OHKError(.invalidValue, "heartbeat series \(uuid): a beat at \(beats.last!.timeSinceStart) s is after its end "
                           + "(\(duration) s after its start)")
        }
    }
}

/// A heartbeat series' stored form (a record payload): a version, the
/// count, then per beat its time (8 bytes) and its gap flag (1 byte).
enum HeartbeatCodec {
    static let version: UInt8 = 1

    static func encode(_ s: HeartbeatSeries, into out: inout ByteWriter) {
        out.u8(version)
        out.u32(UInt32(s.beats.count))
        let at = out.bytes.count
        out.bytes.append(contentsOf: repeatElement(0, count: 9 * s.beats.count))
        out.bytes.withUnsafeMutableBytes { b in
            for (k, beat) in s.beats.enumerated() {
                b.storeBytes(of: beat.timeSinceStart.bitPattern.littleEndian, toByteOffset: at + 9 * k, as: UInt64.self)
                b[at + 9 * k + 8] = beat.precededByGap ? 1 : 0
            }
        }
    }

    static func decode(_ r: inout ByteReader) throws -> HeartbeatSeries {
        guard try r.u8() == version else { throw OHKError(.storeCorrupt, "a heartbeat series of an unknown version") }
        let n = Int(try r.u32())
        guard n <= r.remaining / 9 else { throw OHKError(.storeCorrupt, "a corrupt heartbeat series") }
        var beats: [HeartbeatSeries.Beat] = []
        beats.reserveCapacity(n)
        for _ in 0..<n {
            let t = try r.f64()
            beats.append(HeartbeatSeries.Beat(timeSinceStart: t, precededByGap: try r.u8() != 0))
        }
        // Stored sorted: no sort on the way out.
        var s = HeartbeatSeries(beats: [])
        s.beats = beats
        return s
    }
}
