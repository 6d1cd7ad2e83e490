import FoundationEssentials

/// An electrocardiogram (HealthKit's `HKElectrocardiogram`, rule 41): the
/// value of a sample of `HKDataTypeIdentifierElectrocardiogram`, the
/// algorithm's classification, the symptoms status, the average heart
/// rate, and the voltages of its one lead, evenly spaced at the sampling
/// frequency from the sample's start.
public struct Electrocardiogram: Hashable, Sendable {

    public var classification: Classification
    public var symptomsStatus: SymptomsStatus
    /// Beats per minute; nil where the recording has none.
    public var averageHeartRate: Double?
    /// Hertz; nil only for a recording without voltages.
    public var samplingFrequency: Double?
    public var lead: Lead
    /// Microvolts, the k-th measured k / samplingFrequency seconds after
    /// the sample's start.
    public var voltages: [Double]

    /// A recording of `voltages` (µV) at `samplingFrequency` Hz.
    public init(classification: Classification = .notSet, symptomsStatus: SymptomsStatus = .notSet,
                averageHeartRate: Double? = nil, samplingFrequency: Double?, lead: Lead = .appleWatchSimilarToLeadI,
                voltages: [Double]) {
        self.classification = classification
        self.symptomsStatus = symptomsStatus
        self.averageHeartRate = averageHeartRate
        self.samplingFrequency = samplingFrequency
        self.lead = lead
        self.voltages = voltages
    }

    /// Seconds from the sample's start to the k-th voltage.
    public func timeSinceSampleStart(_ k: Int) -> Double { Double(k) / (samplingFrequency ?? .nan) }

    /// What a save refuses (rule 41): voltages without a positive finite
    /// sampling frequency, a voltage or heart rate that is not finite (or
    /// a negative heart rate), voltages that run past the sample's end.
    func validate(_ uuid: UUID, duration: Double) throws {
        if let f = samplingFrequency, !(f.isFinite && f > 0) {
            throw OHKError(.invalidValue, "electrocardiogram \(uuid): a sampling frequency of \(f) Hz")
        }
        if let hr = averageHeartRate, !(hr.isFinite && hr >= 0) {
            throw OHKError(.invalidValue, "electrocardiogram \(uuid): an average heart rate of \(hr) beats per minute")
        }
        guard !voltages.isEmpty else { return }
        guard voltages.count <= Int(UInt32.max) else {
            throw OHKError(.invalidValue, "electrocardiogram \(uuid): \(voltages.count) voltages; a recording holds at most \(UInt32.max)")
        }
        guard let f = samplingFrequency else {
            throw OHKError(.invalidValue, "electrocardiogram \(uuid) has voltages and no sampling frequency")
        }
        guard voltages.allSatisfy(\.isFinite) else {
            throw OHKError(.invalidValue, "electrocardiogram \(uuid): a voltage is not finite")
        }
        // The last voltage is measured within the sample (a microsecond of
        // rounding allowed): the sample's interval is the recording's.
        let last = Double(voltages.count - 1) / f
        guard last <= duration + 1e-6 else {
            throw OHKError(.invalidValue, "electrocardiogram \(uuid): \(voltages.count) voltages at \(f) Hz run \(last) s, "
                           + "past its end (\(duration) s after its start)")
        }
    }
}

/// The fields an electrocardiogram predicate compares (rule 41), by their
/// name in predicate text.
public enum ElectrocardiogramField: String, Sendable, CaseIterable {
    case classification = "ecgClassification"
    case symptomsStatus = "ecgSymptomsStatus"
}

extension RecordView {
    /// An electrocardiogram record's classification and symptoms status,
    /// read from its payload's head without its voltages; nil for a
    /// record without such a payload.
    func electrocardiogramCodes() -> (classification: UInt8, symptomsStatus: UInt8)? {
        let at = payloadOffset + 4
        guard hasPayload, payloadLength >= 3, bytes.count >= at + 3,
              bytes[at] == ElectrocardiogramCodec.version else { return nil }
        return (bytes[at + 1], bytes[at + 2])
    }
}

/// An electrocardiogram's stored form (a record payload): a version, the
/// classification, symptoms status and lead (a byte each), the heart rate
/// and frequency (NaN when absent), the count, then the voltages as one
/// little-endian array of doubles, copied in and out whole.
enum ElectrocardiogramCodec {
    static let version: UInt8 = 1

    static func encode(_ e: Electrocardiogram, into out: inout ByteWriter) {
        out.u8(version)
        out.u8(e.classification.rawValue)
        out.u8(e.symptomsStatus.rawValue)
        out.u8(e.lead.rawValue)
        out.f64(e.averageHeartRate ?? .nan)
        out.f64(e.samplingFrequency ?? .nan)
        out.u32(UInt32(e.voltages.count))
        out.f64Array(e.voltages)
    }

    static func decode(_ r: inout ByteReader) throws -> Electrocardiogram {
        guard try r.u8() == version else { throw OHKError(.storeCorrupt, "an electrocardiogram of an unknown version") }
        guard let classification = Electrocardiogram.Classification(rawValue: try r.u8()),
              let symptoms = Electrocardiogram.SymptomsStatus(rawValue: try r.u8()),
              let lead = Electrocardiogram.Lead(rawValue: try r.u8()) else {
            throw OHKError(.storeCorrupt, "a corrupt electrocardiogram")
        }
        let hr = try r.f64(), f = try r.f64()
        let voltages = try r.f64Array(Int(try r.u32()))
        return Electrocardiogram(classification: classification, symptomsStatus: symptoms,
                                 averageHeartRate: hr.isNaN ? nil : hr, samplingFrequency: f.isNaN ? nil : f,
                                 lead: lead, voltages: voltages)
    }
}
