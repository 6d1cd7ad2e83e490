import FoundationEssentials

/// An audiogram (HealthKit's `HKAudiogramSample`, rule 40): the value of a
/// sample of `HKDataTypeIdentifierAudiogram`, its sensitivity points in
/// order of frequency. Each point has a frequency in hertz and, per ear,
/// the hearing level in dBHL where it was tested, whether the test was
/// masked, and the range the level was clamped to, where the source says.
public struct Audiogram: Hashable, Sendable {
    /// The range an ear's hearing level may have been clamped to (for the
    /// user's safety, the hardware's limits; HealthKit's
    /// `HKAudiogramSensitivityPointClampingRange`), in dBHL: either bound
    /// may be open, not both.
    public struct ClampingRange: Hashable, Sendable {
        public var lowerBound: Double?
        public var upperBound: Double?

        /// A range with at least one bound.
        public init(lowerBound: Double? = nil, upperBound: Double? = nil) {
            self.lowerBound = lowerBound
            self.upperBound = upperBound
        }
    }

    public struct Ear: Hashable, Sendable {
        /// dBHL (decibels hearing level).
        public var sensitivity: Double
        /// Whether the other ear was masked; nil where the source does not say.
        public var masked: Bool?
        /// The range the level was clamped to; nil where the source gives none.
        public var clampingRange: ClampingRange?

        /// One ear's result at a point.
        public init(sensitivity: Double, masked: Bool? = nil, clampingRange: ClampingRange? = nil) {
            self.sensitivity = sensitivity
            self.masked = masked
            self.clampingRange = clampingRange
        }
    }

    public struct Point: Hashable, Sendable {
        /// Hertz.
        public var frequency: Double
        public var left: Ear?
        public var right: Ear?

        /// A point at `frequency` Hz with each ear's result (nil: not tested).
        public init(frequency: Double, left: Ear? = nil, right: Ear? = nil) {
            self.frequency = frequency
            self.left = left
            self.right = right
        }
    }

    /// In order of frequency (sorted when made).
    public internal(set) var points: [Point]

    /// The points, sorted by frequency.
    public init(points: [Point]) {
        self.points = points.sorted { $0.frequency < $1.frequency }
    }

    /// What a save refuses (rule 40): no point, a frequency that is not a
    /// positive finite number or that appears twice, a point with neither
    /// ear, a hearing level that is not finite, a clamping range without
    /// a bound, with a bound that is not finite, or with its lower bound
    /// above its upper one.
    func validate(_ uuid: UUID) throws {
        guard !points.isEmpty else { throw OHKError(.invalidValue, "audiogram \(uuid) has no sensitivity point") }
        var last = -Double.infinity
        for p in points {
            guard p.frequency.isFinite, p.frequency > 0 else {
                throw OHKError(.invalidValue, "audiogram \(uuid): a frequency of \(p.frequency) Hz")
            }
            guard p.frequency > last else {
                throw OHKError(.invalidValue, "audiogram \(uuid): \(p.frequency) Hz twice or out of order")
            }
            last = p.frequency
            guard p.left != nil || p.right != nil else {
                throw OHKError(.invalidValue, "audiogram \(uuid): the point at \(p.frequency) Hz has neither ear")
            }
            for ear in [p.left, p.right].compactMap({ $0 }) {
                guard ear.sensitivity.isFinite else {
                    throw OHKError(.invalidValue, "audiogram \(uuid): a hearing level at \(p.frequency) Hz is not finite")
                }
                guard let range = ear.clampingRange else { continue }
                let bounds = [range.lowerBound, range.upperBound].compactMap { $0 }
                guard !bounds.isEmpty, bounds.allSatisfy(\.isFinite), (range.lowerBound ?? -.infinity) <= (range.upperBound ?? .infinity) else {
                    throw OHKError(.invalidValue, "audiogram \(uuid): the clamping range at \(p.frequency) Hz "
                                   + "(\(range.lowerBound.map { "\($0)" } ?? "open") to \(range.upperBound.map { "\($0)" } ?? "open") dBHL) is not a range")
                }
            }
        }
    }
}

/// An audiogram's stored form (a record payload): a version, the count,
/// then per point its frequency and per ear a presence byte (0 absent, 1
/// unmasked, 2 masked, 3 not said) and its level. Version 2 (format 14)
/// follows each level with a byte of clamping bounds (bit 0 lower, bit 1
/// upper) and those bounds; an audiogram without a clamping range is
/// written as version 1, as before.
enum AudiogramCodec {
    static func encode(_ a: Audiogram, into out: inout ByteWriter) {
        let clamped = a.points.contains { $0.left?.clampingRange != nil || $0.right?.clampingRange != nil }
        out.u8(clamped ? 2 : 1)
        out.u32(UInt32(a.points.count))
        for p in a.points {
            out.f64(p.frequency)
            for ear in [p.left, p.right] {
                guard let ear else { out.u8(0); continue }
                out.u8(ear.masked.map { $0 ? 2 : 1 } ?? 3)
                out.f64(ear.sensitivity)
                guard clamped else { continue }
                let range = ear.clampingRange
                out.u8((range?.lowerBound != nil ? 1 : 0) | (range?.upperBound != nil ? 2 : 0))
                if let lower = range?.lowerBound { out.f64(lower) }
                if let upper = range?.upperBound { out.f64(upper) }
            }
        }
    }

    static func decode(_ r: inout ByteReader) throws -> Audiogram {
        let version = try r.u8()
        guard version == 1 || version == 2 else { throw OHKError(.storeCorrupt, "an audiogram of an unknown version") }
        let n = Int(try r.u32())
        guard n <= r.remaining / 10 else { throw OHKError(.storeCorrupt, "a corrupt audiogram") }
        var points: [Audiogram.Point] = []
        points.reserveCapacity(n)
        for _ in 0..<n {
            let frequency = try r.f64()
            func ear() throws -> Audiogram.Ear? {
                let tag = try r.u8()
                guard tag != 0 else { return nil }
                guard tag <= 3 else { throw OHKError(.storeCorrupt, "a corrupt audiogram ear") }
                var ear = Audiogram.Ear(sensitivity: try r.f64(), masked: tag == 3 ? nil : tag == 2)
                guard version == 2 else { return ear }
                let bounds = try r.u8()
                guard bounds <= 3 else { throw OHKError(.storeCorrupt, "a corrupt audiogram clamping range") }
                if bounds != 0 {
                    ear.clampingRange = Audiogram.ClampingRange(lowerBound: bounds & 1 != 0 ? try r.f64() : nil,
                                                                upperBound: bounds & 2 != 0 ? try r.f64() : nil)
                }
                return ear
            }
            let left = try ear()
            points.append(Audiogram.Point(frequency: frequency, left: left, right: try ear()))
        }
        // Stored sorted: no sort on the way out.
        var a = Audiogram(points: [])
        a.points = points
        return a
    }
}
