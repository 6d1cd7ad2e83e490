import FoundationEssentials

/// An audiogram (HealthKit's `HKAudiogramSample`, rule 40): the value of a
/// sample of `HKDataTypeIdentifierAudiogram`, its sensitivity points in
/// order of frequency. Each point has a frequency in hertz and, per ear,
/// the hearing level in dBHL where it was tested, and whether the test
/// was masked where the source says.
public struct Audiogram: Hashable, Sendable {
    public struct Ear: Hashable, Sendable {
        /// dBHL (decibels hearing level).
        public var sensitivity: Double
        /// Whether the other ear was masked; nil where the source does not say.
        public var masked: Bool?

        /// One ear's result at a point.
        public init(sensitivity: Double, masked: Bool? = nil) {
            self.sensitivity = sensitivity
            self.masked = masked
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
    /// ear, a hearing level that is not finite.
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
            for ear in [p.left, p.right].compactMap({ $0 }) where !ear.sensitivity.isFinite {
                throw OHKError(.invalidValue, "audiogram \(uuid): a hearing level at \(p.frequency) Hz is not finite")
            }
        }
    }
}

/// An audiogram's stored form (a record payload): a version, the count,
/// then per point its frequency and per ear a presence byte (0 absent, 1
/// unmasked, 2 masked, 3 not said) and its level.
enum AudiogramCodec {
    static let version: UInt8 = 1

    static func encode(_ a: Audiogram, into out: inout ByteWriter) {
        out.u8(version)
        out.u32(UInt32(a.points.count))
        for p in a.points {
            out.f64(p.frequency)
            for ear in [p.left, p.right] {
                guard let ear else { out.u8(0); continue }
                out.u8(ear.masked.map { $0 ? 2 : 1 } ?? 3)
                out.f64(ear.sensitivity)
            }
        }
    }

    static func decode(_ r: inout ByteReader) throws -> Audiogram {
        guard try r.u8() == version else { throw OHKError(.storeCorrupt, "an audiogram of an unknown version") }
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
                return Audiogram.Ear(sensitivity: try r.f64(), masked: tag == 3 ? nil : tag == 2)
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
