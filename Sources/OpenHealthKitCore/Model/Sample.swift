import FoundationEssentials

/// Who wrote a sample: HealthKit's HKSource plus the revision's version.
///
/// Kept in a shared box, copied on write, as `Device` is: 8 bytes a sample.
public struct Source: Hashable, Sendable {
    private final class Storage: @unchecked Sendable {
        // Written only through `unique()`, when no other source holds it.
        var bundleIdentifier: String
        var name: String
        var version: String?

        init(_ bundleIdentifier: String, _ name: String, _ version: String?) {
            (self.bundleIdentifier, self.name, self.version) = (bundleIdentifier, name, version)
        }
    }

    private var storage: Storage

    /// The box, made this source's own first if another shares it.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(bundleIdentifier, name, version) }
        return storage
    }

    public var bundleIdentifier: String {
        get { storage.bundleIdentifier }
        set { unique().bundleIdentifier = newValue }
    }
    public var name: String {
        get { storage.name }
        set { unique().name = newValue }
    }
    public var version: String? {
        get { storage.version }
        set { unique().version = newValue }
    }

    public init(bundleIdentifier: String, name: String, version: String? = nil) {
        storage = Storage(bundleIdentifier, name, version)
    }

    public static func == (a: Source, b: Source) -> Bool {
        a.storage === b.storage
            || (a.bundleIdentifier == b.bundleIdentifier && a.name == b.name && a.version == b.version)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bundleIdentifier)
        hasher.combine(name)
        hasher.combine(version)
    }
}

/// HealthKit's eight HKDevice fields; any may be nil.
///
/// The fields live in a shared box, copied on write: a sample then holds
/// its device in 8 bytes rather than 129, and the samples of a device
/// (the millions of an import's batches, or of a query's results, whose
/// devices come from one cache) share one box.
public struct Device: Hashable, Sendable {
    private final class Storage: @unchecked Sendable {
        // Written only through `unique()`, when no other device holds it.
        var name, manufacturer, model, hardwareVersion, firmwareVersion,
            softwareVersion, localIdentifier, udiDeviceIdentifier: String?

        init(_ name: String?, _ manufacturer: String?, _ model: String?, _ hardwareVersion: String?,
             _ firmwareVersion: String?, _ softwareVersion: String?, _ localIdentifier: String?,
             _ udiDeviceIdentifier: String?) {
            (self.name, self.manufacturer, self.model, self.hardwareVersion) = (name, manufacturer, model, hardwareVersion)
            (self.firmwareVersion, self.softwareVersion, self.localIdentifier, self.udiDeviceIdentifier)
                = (firmwareVersion, softwareVersion, localIdentifier, udiDeviceIdentifier)
        }

        func copy() -> Storage {
            Storage(name, manufacturer, model, hardwareVersion, firmwareVersion, softwareVersion,
                    localIdentifier, udiDeviceIdentifier)
        }
    }

    private var storage: Storage

    /// The box, made this device's own first if another shares it.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    public var name: String? {
        get { storage.name }
        set { unique().name = newValue }
    }
    public var manufacturer: String? {
        get { storage.manufacturer }
        set { unique().manufacturer = newValue }
    }
    public var model: String? {
        get { storage.model }
        set { unique().model = newValue }
    }
    public var hardwareVersion: String? {
        get { storage.hardwareVersion }
        set { unique().hardwareVersion = newValue }
    }
    public var firmwareVersion: String? {
        get { storage.firmwareVersion }
        set { unique().firmwareVersion = newValue }
    }
    public var softwareVersion: String? {
        get { storage.softwareVersion }
        set { unique().softwareVersion = newValue }
    }
    public var localIdentifier: String? {
        get { storage.localIdentifier }
        set { unique().localIdentifier = newValue }
    }
    public var udiDeviceIdentifier: String? {
        get { storage.udiDeviceIdentifier }
        set { unique().udiDeviceIdentifier = newValue }
    }

    public init(name: String? = nil, manufacturer: String? = nil, model: String? = nil,
                hardwareVersion: String? = nil, firmwareVersion: String? = nil,
                softwareVersion: String? = nil, localIdentifier: String? = nil,
                udiDeviceIdentifier: String? = nil) {
        storage = Storage(name, manufacturer, model, hardwareVersion, firmwareVersion,
                          softwareVersion, localIdentifier, udiDeviceIdentifier)
    }

    public static func == (a: Device, b: Device) -> Bool {
        a.storage === b.storage || Field.allCases.allSatisfy { a[$0] == b[$0] }
    }

    public func hash(into hasher: inout Hasher) {
        for f in Field.allCases { hasher.combine(self[f]) }
    }

    /// The fields in HealthKit's order, for codecs and predicates.
    public enum Field: Int, CaseIterable, Sendable {
        case name, manufacturer, model, hardwareVersion, firmwareVersion,
             softwareVersion, localIdentifier, udiDeviceIdentifier
    }

    public subscript(field: Field) -> String? {
        get {
            switch field {
            case .name: name
            case .manufacturer: manufacturer
            case .model: model
            case .hardwareVersion: hardwareVersion
            case .firmwareVersion: firmwareVersion
            case .softwareVersion: softwareVersion
            case .localIdentifier: localIdentifier
            case .udiDeviceIdentifier: udiDeviceIdentifier
            }
        }
        set {
            switch field {
            case .name: name = newValue
            case .manufacturer: manufacturer = newValue
            case .model: model = newValue
            case .hardwareVersion: hardwareVersion = newValue
            case .firmwareVersion: firmwareVersion = newValue
            case .softwareVersion: softwareVersion = newValue
            case .localIdentifier: localIdentifier = newValue
            case .udiDeviceIdentifier: udiDeviceIdentifier = newValue
            }
        }
    }
}

/// A metadata value: HealthKit allows strings, numbers, dates and bools.
public enum MetadataValue: Hashable, Sendable {
    case string(String)
    case number(Double)
    case date(Date)
    case bool(Bool)
}

/// HealthKit's metadata keys that the engine itself interprets.
public enum MetadataKey {
    public static let syncIdentifier = "HKMetadataKeySyncIdentifier"
    public static let syncVersion = "HKMetadataKeySyncVersion"
    public static let wasUserEntered = "HKWasUserEntered"
}

/// A sample's value: a quantity in its type's canonical unit, a category
/// integer, a workout's fields, a workout route's locations, a
/// correlation's members, or a heartbeat series' beats.
public enum SampleValue: Hashable, Sendable {
    case quantity(Double)
    case category(Int)
    // Boxed: inline, a workout's fields made every sample (quantities
    // included) 72 bytes larger, which saves and reads copy.
    indirect case workout(Workout)
    indirect case route(WorkoutRoute)
    case correlation(Correlation)
    indirect case heartbeats(HeartbeatSeries)
    indirect case audiogram(Audiogram)
    indirect case electrocardiogram(Electrocardiogram)
    indirect case clinicalRecord(ClinicalRecord)
}

/// An immutable health sample. Build one with `quantity(…)` or
/// `category(…)`, which validate everything a save would refuse.
public struct Sample: Hashable, Sendable {
    public let uuid: UUID
    public let type: SampleType
    public let startDate: Date
    public let endDate: Date
    public let value: SampleValue
    public let source: Source
    public let device: Device?
    public let metadata: [String: MetadataValue]
    /// When the sample was first made, as its source says (an Apple Health
    /// export's `creationDate`); nil when not given. Saves keep what they
    /// are given and stamp nothing (rule 24).
    public let creationDate: Date?
    /// The UTC offset of the sample's local time, in seconds east of UTC
    /// (an export's `-0800` is -28,800): what "the user's day" is for this
    /// sample. Nil when not known.
    public let utcOffset: Int?

    /// The largest UTC offset a sample takes: 18 hours either way, as
    /// ISO 8601 and Foundation's `TimeZone` allow.
    public static let maxUTCOffset = 18 * 3600

    init(uuid: UUID, type: SampleType, startDate: Date, endDate: Date, value: SampleValue,
         source: Source, device: Device?, metadata: [String: MetadataValue],
         creationDate: Date? = nil, utcOffset: Int? = nil) {
        self.uuid = uuid
        self.type = type
        self.startDate = startDate
        self.endDate = endDate
        self.value = value
        self.source = source
        self.device = device
        self.metadata = metadata
        self.creationDate = creationDate
        self.utcOffset = utcOffset
    }

    /// A quantity sample; `value` in `unit` is stored in the type's canonical unit.
    /// Throws for a category type, a unit of another dimension, a NaN or
    /// infinite value, `end` before `start`, a non-finite creation date or
    /// a UTC offset beyond ±18 hours.
    public static func quantity(_ type: SampleType, value: Double, unit: HealthUnit,
                                start: Date, end: Date, source: Source,
                                device: Device? = nil, metadata: [String: MetadataValue] = [:],
                                uuid: UUID = RandomUUID.make(), creationDate: Date? = nil,
                                utcOffset: Int? = nil) throws -> Sample {
        guard let canonical = type.canonicalUnit else {
            throw OHKError(.invalidArgument, "\(type.identifier) is not a quantity type; it takes no quantity")
        }
        guard value.isFinite else {
            throw OHKError(.invalidValue, "quantity value must be finite, got \(value)")
        }
        guard unit.isCompatible(with: canonical) else {
            throw OHKError(.incompatibleUnit, "unit '\(unit)' is not compatible with \(type.identifier) (canonical unit '\(canonical)')")
        }
        let stored = try unit.convert(value, to: canonical)
        let s = Sample(uuid: uuid, type: type, startDate: start, endDate: end, value: .quantity(stored),
                       source: source, device: device, metadata: metadata,
                       creationDate: creationDate, utcOffset: utcOffset)
        try s.validate()
        return s
    }

    /// A category sample; `value` must be one of the type's values.
    public static func category(_ type: SampleType, value: Int, start: Date, end: Date,
                                source: Source, device: Device? = nil,
                                metadata: [String: MetadataValue] = [:],
                                uuid: UUID = RandomUUID.make(), creationDate: Date? = nil,
                                utcOffset: Int? = nil) throws -> Sample {
        let s = Sample(uuid: uuid, type: type, startDate: start, endDate: end, value: .category(value),
                       source: source, device: device, metadata: metadata,
                       creationDate: creationDate, utcOffset: utcOffset)
        try s.validate()
        return s
    }

    /// A workout (rule 31): its own fields, and what every sample has.
    /// Throws for what a save refuses: an unknown activity or event type,
    /// a negative or non-finite duration or total, an interval that ends
    /// before it starts.
    public static func workout(_ workout: Workout, start: Date, end: Date, source: Source,
                               device: Device? = nil, metadata: [String: MetadataValue] = [:],
                               uuid: UUID = RandomUUID.make(), creationDate: Date? = nil,
                               utcOffset: Int? = nil) throws -> Sample {
        let s = Sample(uuid: uuid, type: TypeCatalogue.workoutType, startDate: start, endDate: end,
                       value: .workout(workout), source: source, device: device, metadata: metadata,
                       creationDate: creationDate, utcOffset: utcOffset)
        try s.validate()
        return s
    }

    /// A workout route (rule 32): its locations, in time order, and its
    /// workout's UUID. Throws for a route without locations, a location
    /// off the Earth or a value that is not finite.
    public static func route(_ route: WorkoutRoute, start: Date, end: Date, source: Source,
                             device: Device? = nil, metadata: [String: MetadataValue] = [:],
                             uuid: UUID = RandomUUID.make(), creationDate: Date? = nil,
                             utcOffset: Int? = nil) throws -> Sample {
        let s = Sample(uuid: uuid, type: TypeCatalogue.routeType, startDate: start, endDate: end,
                       value: .route(route), source: source, device: device, metadata: metadata,
                       creationDate: creationDate, utcOffset: utcOffset)
        try s.validate()
        return s
    }

    /// A heartbeat series (rule 39): its beats' times since `start`, each
    /// at most `end`. Throws for a series without beats or a beat outside
    /// it.
    public static func heartbeatSeries(_ series: HeartbeatSeries, start: Date, end: Date, source: Source,
                                       device: Device? = nil, metadata: [String: MetadataValue] = [:],
                                       uuid: UUID = RandomUUID.make(), creationDate: Date? = nil,
                                       utcOffset: Int? = nil) throws -> Sample {
        let s = Sample(uuid: uuid, type: TypeCatalogue.heartbeatSeriesType, startDate: start, endDate: end,
                       value: .heartbeats(series), source: source, device: device, metadata: metadata,
                       creationDate: creationDate, utcOffset: utcOffset)
        try s.validate()
        return s
    }

    /// An audiogram (rule 40): its sensitivity points. Throws for an
    /// audiogram without points, a frequency twice, a point with neither
    /// ear.
    public static func audiogram(_ audiogram: Audiogram, start: Date, end: Date, source: Source,
                                 device: Device? = nil, metadata: [String: MetadataValue] = [:],
                                 uuid: UUID = RandomUUID.make(), creationDate: Date? = nil,
                                 utcOffset: Int? = nil) throws -> Sample {
        let s = Sample(uuid: uuid, type: TypeCatalogue.audiogramType, startDate: start, endDate: end,
                       value: .audiogram(audiogram), source: source, device: device, metadata: metadata,
                       creationDate: creationDate, utcOffset: utcOffset)
        try s.validate()
        return s
    }

    /// An electrocardiogram (rule 41): its classification, heart rate and
    /// voltages. Throws for voltages without a sampling frequency, a value
    /// that is not finite, voltages that run past `end`.
    public static func electrocardiogram(_ ecg: Electrocardiogram, start: Date, end: Date, source: Source,
                                         device: Device? = nil, metadata: [String: MetadataValue] = [:],
                                         uuid: UUID = RandomUUID.make(), creationDate: Date? = nil,
                                         utcOffset: Int? = nil) throws -> Sample {
        let s = Sample(uuid: uuid, type: TypeCatalogue.electrocardiogramType, startDate: start, endDate: end,
                       value: .electrocardiogram(ecg), source: source, device: device, metadata: metadata,
                       creationDate: creationDate, utcOffset: utcOffset)
        try s.validate()
        return s
    }

    /// A clinical record (rule 42) of a clinical `type`
    /// (`HKClinicalTypeIdentifierImmunizationRecord`…): its display name
    /// and FHIR resource. Throws for another kind of type, a resource type
    /// HealthKit does not read, data that is not a JSON object.
    public static func clinicalRecord(_ type: SampleType, _ record: ClinicalRecord, start: Date, end: Date,
                                      source: Source, device: Device? = nil, metadata: [String: MetadataValue] = [:],
                                      uuid: UUID = RandomUUID.make(), creationDate: Date? = nil,
                                      utcOffset: Int? = nil) throws -> Sample {
        guard case .clinicalRecord = type.kind else { throw OHKError(.invalidArgument, "\(type.identifier) is not a clinical type") }
        let s = Sample(uuid: uuid, type: type, startDate: start, endDate: end, value: .clinicalRecord(record),
                       source: source, device: device, metadata: metadata, creationDate: creationDate, utcOffset: utcOffset)
        try s.validate()
        return s
    }

    /// A correlation (rule 33) of `type` (blood pressure or food): its
    /// members' UUIDs. The members are saved before it, in the same save or
    /// an earlier one; the save checks them.
    public static func correlation(_ type: SampleType, members: [UUID], start: Date, end: Date, source: Source,
                                   device: Device? = nil, metadata: [String: MetadataValue] = [:],
                                   uuid: UUID = RandomUUID.make(), creationDate: Date? = nil,
                                   utcOffset: Int? = nil) throws -> Sample {
        guard case .correlation = type.kind else { throw OHKError(.invalidArgument, "\(type.identifier) is not a correlation type") }
        let s = Sample(uuid: uuid, type: type, startDate: start, endDate: end,
                       value: .correlation(Correlation(members: members)), source: source, device: device,
                       metadata: metadata, creationDate: creationDate, utcOffset: utcOffset)
        try s.validate()
        return s
    }

    /// The quantity in `unit`; throws for category samples and other dimensions.
    public func quantity(in unit: HealthUnit) throws -> Double {
        guard case .quantity(let v) = value, let canonical = type.canonicalUnit else {
            throw OHKError(.invalidArgument, "\(type.identifier) samples have no quantity")
        }
        return try canonical.convert(v, to: unit)
    }

    /// "HeartRate -3 count/min is out of range: HeartRate lies from 0 to
    /// 600 count/min", in the type's display unit (rule 56).
    private static func implausible(_ v: Double, _ range: ClosedRange<Double>, _ type: SampleType,
                                    _ canonical: HealthUnit) -> String {
        let shown = type.displayUnit ?? canonical
        func text(_ x: Double) -> String {
            let y = (try? canonical.convert(x, to: shown)) ?? x
            return y == y.rounded() && abs(y) < 1e15 ? String(Int64(y)) : "\(y)"
        }
        let name = TypeCatalogue.shortName(type)
        guard range.upperBound < .greatestFiniteMagnitude else {
            return "\(name) \(text(v)) \(shown) is out of range: \(name) is never negative"
        }
        return "\(name) \(text(v)) \(shown) is out of range: \(name) lies from \(text(range.lowerBound)) to \(text(range.upperBound)) \(shown)"
    }

    /// Everything a save refuses (rules 13, 14, 17 and 56 of docs/semantics.md).
    func validate() throws {
        let s = startDate.timeIntervalSinceReferenceDate, e = endDate.timeIntervalSinceReferenceDate
        guard s.isFinite, e.isFinite else {
            throw OHKError(.invalidDateRange, "sample \(uuid) has a non-finite date")
        }
        guard s <= e else {
            throw OHKError(.invalidDateRange, "sample \(uuid) ends (\(endDate)) before it starts (\(startDate))")
        }
        if let c = creationDate, !c.timeIntervalSinceReferenceDate.isFinite {
            throw OHKError(.invalidDateRange, "sample \(uuid) has a non-finite creation date")
        }
        if let o = utcOffset, abs(o) > Self.maxUTCOffset {
            throw OHKError(.invalidArgument, "sample \(uuid) has a UTC offset of \(o) s; offsets lie within ±\(Self.maxUTCOffset) s (18 hours)")
        }
        switch (type.kind, value) {
        case (.quantity(let canonical, _), .quantity(let v)):
            guard v.isFinite else { throw OHKError(.invalidValue, "quantity value must be finite, got \(v)") }
            if let range = PlausibleValues.range(of: type), !range.contains(v) {
                throw OHKError(.invalidValue, Self.implausible(v, range, type, canonical))
            }
        case (.category(let values), .category(let v)):
            guard values.values.contains(v) else {
                throw OHKError(.invalidValue, "\(v) is not a value of \(type.identifier) (allowed: \(Set(values.values).sorted()))")
            }
        case (.workout, .workout(let w)):
            try w.validate(uuid)
        case (.route, .route(let r)):
            try r.validate(uuid)
        case (.correlation, .correlation):
            break  // its members, against the store, when saved
        case (.heartbeatSeries, .heartbeats(let h)):
            try h.validate(uuid, duration: e - s)
        case (.audiogram, .audiogram(let a)):
            try a.validate(uuid)
        case (.electrocardiogram, .electrocardiogram(let ecg)):
            try ecg.validate(uuid, duration: e - s)
        case (.clinicalRecord, .clinicalRecord(let c)):
            try c.validate(uuid)
        default:
            throw OHKError(.invalidArgument, "value kind does not match \(type.identifier)")
        }
        guard !source.bundleIdentifier.isEmpty else {
            throw OHKError(.invalidArgument, "sample \(uuid) has an empty source bundle identifier")
        }
        // A record holds the count and each key's length in 16 bits.
        guard metadata.count <= Int(UInt16.max) else {
            throw OHKError(.invalidMetadata, "sample \(uuid) has \(metadata.count) metadata entries; a sample holds up to 65,535")
        }
        for (k, v) in metadata {
            guard !k.isEmpty else { throw OHKError(.invalidMetadata, "metadata key must not be empty") }
            guard k.utf8.count <= Int(UInt16.max) else {
                throw OHKError(.invalidMetadata, "a metadata key of \(k.utf8.count) bytes; keys go up to 65,535 bytes")
            }
            if case .number(let n) = v, !n.isFinite {
                throw OHKError(.invalidMetadata, "metadata '\(k)' must be finite, got \(n)")
            }
            if case .date(let d) = v, !d.timeIntervalSinceReferenceDate.isFinite {
                throw OHKError(.invalidMetadata, "metadata '\(k)' has a non-finite date")
            }
        }
        _ = try syncInfo()
    }

    /// The sync identifier and version (rule 14): both or neither.
    func syncInfo() throws -> (identifier: String, version: Double)? {
        // Most samples have no metadata: two key hashes saved per sample.
        guard !metadata.isEmpty else { return nil }
        let id = metadata[MetadataKey.syncIdentifier]
        let version = metadata[MetadataKey.syncVersion]
        switch (id, version) {
        case (nil, nil):
            return nil
        case (.string(let i)?, .number(let v)?):
            return (i, v)
        case (_?, nil):
            throw OHKError(.invalidMetadata, "sample \(uuid) has \(MetadataKey.syncIdentifier) without \(MetadataKey.syncVersion)")
        case (nil, _?):
            throw OHKError(.invalidMetadata, "sample \(uuid) has \(MetadataKey.syncVersion) without \(MetadataKey.syncIdentifier)")
        default:
            throw OHKError(.invalidMetadata, "\(MetadataKey.syncIdentifier) must be a string and \(MetadataKey.syncVersion) a number")
        }
    }
}

/// What is kept of a deleted sample (rule 8 of docs/semantics.md).
public struct DeletedObject: Hashable, Sendable {
    public let uuid: UUID
    public let type: SampleType
    public let startDate: Date
    public let endDate: Date
    public let source: Source
    public let deletionDate: Date
    public let syncIdentifier: String?
    public let syncVersion: Double?

    /// HealthKit's public metadata of a deleted object: the sync identifier
    /// and version only.
    public var metadata: [String: MetadataValue] {
        guard let i = syncIdentifier, let v = syncVersion else { return [:] }
        return [MetadataKey.syncIdentifier: .string(i), MetadataKey.syncVersion: .number(v)]
    }
}
