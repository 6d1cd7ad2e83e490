import FoundationEssentials
import OpenHealthKitCore

/// Why a record was not imported; reports count records per reason.
public struct SkipReason: Error, Hashable, Sendable, CustomStringConvertible, Comparable {
    public enum Kind: String, Sendable, Comparable {
        case unknownType = "unknown type"
        case badUnit = "unknown unit"
        case incompatibleUnit = "unit does not fit the type"
        case missingField = "missing attribute"
        case badValue = "bad value"
        case badDate = "bad date"
        case invalidSample = "invalid sample"

        public static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }

    public let kind: Kind
    /// What it concerns: the type, the unit or the attribute, never the
    /// record's own value; past 1,000 reasons, "(others)".
    public let subject: String

    public var description: String { "\(kind.rawValue): \(subject)" }
    public static func < (a: SkipReason, b: SkipReason) -> Bool { (a.kind, a.subject) < (b.kind, b.subject) }
}

/// Turns export records into samples: types by identifier (HealthKit's and
/// the store's custom ones), the export's units converted to canonical
/// ones, category case names to integers, the device description to
/// device fields, and a UUID derived from the content.
struct RecordMapper {
    let store: Store
    // Recent values first: the parser interns attribute text, so these
    // compare storage, not characters; the dictionaries are the fallback.
    private var recentTypes = RecentValues<String, SampleType?>()
    private var recentUnits = RecentValues<String, HealthUnit?>()
    private var recentSources = RecentValues<SourceKey, Source>()
    private var recentDevices = RecentValues<String, Device>()
    private var types: [String: SampleType?] = [:]
    private var units: [String: HealthUnit?] = [:]
    private var sources: [SourceKey: Source] = [:]
    private var devices: [String: Device] = [:]

    private struct SourceKey: Hashable {
        let name: String
        let version: String?
    }
    private let hasher = ContentUUID()
    private var name: [UInt8] = []
    /// The hashed leading fields of recent (type, source, device)s.
    private var prefixes = PrefixCache()

    init(store: Store) { self.store = store }

    mutating func sample(_ r: ExportRecord) -> Result<Sample, SkipReason> {
        if let w = r.workout { return workout(r, w) }
        guard let type = type(r.type) else { return .failure(SkipReason(kind: .unknownType, subject: r.type)) }
        let subject = type.identifier
        guard !r.sourceName.isEmpty else { return .failure(SkipReason(kind: .missingField, subject: "sourceName")) }
        guard let (start, offset) = r.start,
              let end = r.end else {
            return .failure(SkipReason(kind: .badDate, subject: subject))
        }
        let created = r.created
        let source = source(r.sourceName, r.sourceVersion)
        var device: Device?
        if let text = r.device { device = self.device(text) }
        let metadata = Self.metadata(r.metadata)
        let value: SampleValue
        if let canonical = type.canonicalUnit {
            guard let unitText = r.unit else { return .failure(SkipReason(kind: .missingField, subject: "unit of \(subject)")) }
            guard let unit = unit(unitText) else { return .failure(SkipReason(kind: .badUnit, subject: unitText)) }
            guard unit.isCompatible(with: canonical) else {
                return .failure(SkipReason(kind: .incompatibleUnit, subject: "\(unitText) for \(subject)"))
            }
            guard let text = r.value, let v = Double(text), v.isFinite, let stored = try? unit.convert(v, to: canonical) else {
                return .failure(SkipReason(kind: .badValue, subject: subject))
            }
            value = .quantity(stored)
        } else {
            // Types whose only value is NotApplicable have no value attribute.
            let text = r.value ?? "HKCategoryValueNotApplicable"
            guard let v = type.categoryValue(named: text) ?? Int(text) else {
                return .failure(SkipReason(kind: .badValue, subject: subject))
            }
            value = .category(v)
        }
        let uuid = contentUUID(type, source, device, start, end, created, value, metadata)
        let startDate = Date(timeIntervalSinceReferenceDate: start), endDate = Date(timeIntervalSinceReferenceDate: end)
        let creationDate = created.map(Date.init(timeIntervalSinceReferenceDate:))
        do {
            switch value {
            case .quantity(let q):
                return .success(try Sample.quantity(type, value: q, unit: type.canonicalUnit!, start: startDate, end: endDate,
                                                    source: source, device: device, metadata: metadata, uuid: uuid,
                                                    creationDate: creationDate, utcOffset: offset))
            case .category(let c):
                return .success(try Sample.category(type, value: c, start: startDate, end: endDate,
                                                    source: source, device: device, metadata: metadata, uuid: uuid,
                                                    creationDate: creationDate, utcOffset: offset))
            case .workout, .route, .correlation, .heartbeats, .audiogram, .electrocardiogram, .clinicalRecord:
                preconditionFailure("a record maps to a quantity or a category")
            }
        } catch let e as OHKError {
            // Values were parsed above: what remains is dates, a value out of its type's range (rule 56), metadata.
            let kind: SkipReason.Kind = e.code == .invalidDateRange ? .badDate : e.code == .invalidValue ? .badValue : .invalidSample
            return .failure(SkipReason(kind: kind, subject: subject))
        } catch {
            return .failure(SkipReason(kind: .invalidSample, subject: subject))
        }
    }

    mutating func type(_ identifier: String) -> SampleType? {
        recentTypes.value(for: identifier) { id in
            if let known = types[id] { return known }
            let t = try? store.sampleType(id)
            types[id] = t
            return t
        }
    }

    mutating func unit(_ text: String) -> HealthUnit? {
        recentUnits.value(for: text) { t in
            if let known = units[t] { return known }
            let u = try? HealthUnit(t)
            units[t] = u
            return u
        }
    }

    /// The export has no bundle identifiers: the source's name stands in
    /// for one, so `source == "Renpho"` finds Renpho's samples.
    mutating func source(_ name: String, _ version: String?) -> Source {
        recentSources.value(for: SourceKey(name: name, version: version)) { key in
            if let s = sources[key] { return s }
            let s = Source(bundleIdentifier: name, name: name, version: version)
            sources[key] = s
            return s
        }
    }

    mutating func device(_ text: String) -> Device {
        recentDevices.value(for: text) { t in
            if let d = devices[t] { return d }
            let d = DeviceDescription.parse(t)
            devices[t] = d
            return d
        }
    }

    /// Exports write every metadata value as text; the keys HealthKit
    /// documents as numbers or booleans get those types back (the sync
    /// version must be a number for rule 14), the rest stay text.
    static func metadata(_ entries: [(key: String, value: String)]) -> [String: MetadataValue] {
        var out: [String: MetadataValue] = [:]
        for (k, v) in entries {
            if booleanKeys.contains(k), let n = Int(v) {
                out[k] = .bool(n != 0)
            } else if numberKeys.contains(k), let n = Double(v), n.isFinite {
                out[k] = .number(n)
            } else {
                out[k] = .string(v)
            }
        }
        return out
    }

    static let booleanKeys: Set<String> = [
        "HKWasUserEntered", "HKIndoorWorkout", "HKMetadataKeyAppleDeviceCalibrated", "HKMenstrualCycleStart",
        "HKSexualActivityProtectionUsed", "HKWasTakenInLab", "HKMetadataKeyHeadphoneGain",
    ]
    static let numberKeys: Set<String> = [
        MetadataKey.syncVersion, "HKVO2MaxTestType", "HKMetadataKeyDevicePlacementSide", "HKHeartRateSensorLocation",
        "HKMetadataKeyHeartRateMotionContext", "HKBloodGlucoseMealTime", "HKInsulinDeliveryReason",
        "HKMetadataKeyAppleECGAlgorithmVersion", "HKAlgorithmVersion", "HKMetadataKeySessionEstimate",
    ]

    /// What identifies a record across exports: every field, with instants
    /// rather than the text of their local times and device fields rather
    /// than the description's memory address, which both change from one
    /// export to the next.
    mutating func contentUUID(_ type: SampleType, _ source: Source, _ device: Device?,
                                      _ start: Double, _ end: Double, _ created: Double?,
                                      _ value: SampleValue, _ metadata: [String: MetadataValue]) -> UUID {
        // The type, the source and the device lead the name: a run of
        // records shares them, and their hash state is kept.
        let prefix = prefixes.prefix(type, source, device) {
            name.removeAll(keepingCapacity: true)
            Self.append(type.identifier, to: &name)
            Self.append(source.name, to: &name)
            Self.append(source.version, to: &name)
            for f in Device.Field.allCases { Self.append(device?[f], to: &name) }
            return hasher.prefix(name)
        }
        name.removeAll(keepingCapacity: true)
        func text(_ s: String?) { Self.append(s, to: &name) }
        func bits(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { name.append(contentsOf: $0) } }
        bits(start.bitPattern)
        bits(end.bitPattern)
        bits(created?.bitPattern ?? 0)
        switch value {
        case .quantity(let q): name.append(1); bits(q.bitPattern)
        case .category(let c): name.append(2); bits(UInt64(bitPattern: Int64(c)))
        case .workout(let w):
            name.append(3)
            bits(UInt64(w.activityType))
            bits(w.duration.bitPattern)
            for total in [w.totalEnergyBurned, w.totalDistance, w.totalSwimmingStrokeCount, w.totalFlightsClimbed] {
                bits(total?.bitPattern ?? 0)
            }
        case .correlation(let c):
            name.append(5)
            for m in c.members { text(m.uuidString) }
        case .route(let r):
            // A route is its workout's and the file's: the first and last
            // points and their count tell it from any other.
            name.append(4)
            text(r.workout?.uuidString)
            bits(UInt64(r.locations.count))
            for l in [r.locations.first, r.locations.last].compactMap({ $0 }) {
                bits(l.timestamp.timeIntervalSinceReferenceDate.bitPattern)
                bits(l.latitude.bitPattern)
                bits(l.longitude.bitPattern)
            }
        case .audiogram(let a):
            name.append(7)
            for p in a.points {
                bits(p.frequency.bitPattern)
                for ear in [p.left, p.right] {
                    bits(ear?.sensitivity.bitPattern ?? 0)
                    name.append(ear == nil ? 0 : ear!.masked.map { $0 ? 2 : 1 } ?? 3)
                    // Not the clamping ranges: 0.16 imported the same
                    // audiograms without them, under this UUID (rule 40).
                }
            }
        case .electrocardiogram(let e):
            // Every voltage: two recordings of one moment differ in them.
            name.append(8)
            name.append(contentsOf: [e.classification.rawValue, e.symptomsStatus.rawValue, e.lead.rawValue])
            bits(e.averageHeartRate?.bitPattern ?? 0)
            bits(e.samplingFrequency?.bitPattern ?? 0)
            for v in e.voltages { bits(v.bitPattern) }
        case .clinicalRecord(let c):
            name.append(9)
            text(c.fhirResource?.resourceType)
            text(c.fhirResource?.identifier)
            text(c.fhirResource?.fhirVersion)
            text(c.fhirResource?.sourceURL)
            name.append(contentsOf: c.fhirResource?.data ?? [])
        case .heartbeats(let h):
            // Every beat: a series is short (a minute's beats).
            name.append(6)
            for b in h.beats {
                bits(b.timeSinceStart.bitPattern)
                name.append(b.precededByGap ? 1 : 0)
            }
        }
        func entry(_ k: String, _ v: MetadataValue) {
            text(k)
            switch v {
            case .string(let s): text(s)
            case .number(let n): bits(n.bitPattern)
            case .bool(let b): name.append(b ? 1 : 0)
            case .date(let d): bits(d.timeIntervalSinceReferenceDate.bitPattern)
            }
        }
        // By key; one entry, the usual case, needs no sorted copy.
        if metadata.count == 1, let (k, v) = metadata.first {
            entry(k, v)
        } else {
            for (k, v) in metadata.sorted(by: { $0.key < $1.key }) { entry(k, v) }
        }
        return hasher.uuid(after: prefix, of: name, start: start + 978_307_200)
    }

    /// A text field of a record's name: its UTF-8, then a zero (nil: the zero alone).
    private static func append(_ s: String?, to name: inout [UInt8]) {
        if let s { name.append(contentsOf: s.utf8) }
        name.append(0)
    }
}

/// The hash states of the leading fields (type, source, device) of a few
/// recent records, found by comparing in place: keys copied out to be
/// compared cost more in reference counting than the hashing they saved.
struct PrefixCache {
    private var types: [SampleType] = []
    private var sources: [Source] = []
    private var devices: [Device?] = []
    private var prefixes: [ContentUUID.Prefix] = []
    private var next = 0
    private static let capacity = 16

    mutating func prefix(_ type: SampleType, _ source: Source, _ device: Device?,
                         _ make: () -> ContentUUID.Prefix) -> ContentUUID.Prefix {
        for i in types.indices where types[i] === type && sources[i] == source && devices[i] == device {
            return prefixes[i]
        }
        let p = make()
        if types.count < Self.capacity {
            types.append(type)
            sources.append(source)
            devices.append(device)
            prefixes.append(p)
        } else {
            (types[next], sources[next], devices[next], prefixes[next]) = (type, source, device, p)
            next = (next + 1) % Self.capacity
        }
        return p
    }
}
