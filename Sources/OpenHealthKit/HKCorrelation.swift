import Foundation
import OpenHealthKitCore

/// HealthKit's correlation type identifiers.
public struct HKCorrelationTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let bloodPressure = HKCorrelationTypeIdentifier(TypeCatalogue.bloodPressureIdentifier)
    public static let food = HKCorrelationTypeIdentifier(TypeCatalogue.foodIdentifier)
}

/// A correlation type: `HKCorrelationType(.bloodPressure)`.
public final class HKCorrelationType: HKSampleType, @unchecked Sendable {
    public convenience init(_ identifier: HKCorrelationTypeIdentifier) {
        self.init(identifier: identifier.rawValue, known: nil)
    }

    override func checkKind(_ type: SampleType) throws(HKError) -> SampleType {
        guard type.kind == .correlation else { throw .invalid("\(identifier) is not a correlation type") }
        return type
    }
}

extension HKObjectType {
    /// The correlation type, or nil when HealthKit has no such identifier.
    public class func correlationType(forIdentifier identifier: HKCorrelationTypeIdentifier) -> HKCorrelationType? {
        guard TypeCatalogue.standard[identifier.rawValue]?.kind == .correlation else { return nil }
        return HKCorrelationType(identifier)
    }
}

/// A correlation (rule 33): samples that belong together, a blood
/// pressure's systolic and diastolic values, a meal's nutrients. Saving
/// one saves its objects first, in the same transaction. Of a correlation
/// read from the store, `objects` are read from it when first asked for.
public final class HKCorrelation: HKSample, @unchecked Sendable {
    public var correlationType: HKCorrelationType { sampleType as! HKCorrelationType }
    /// The member UUIDs, and their samples once known.
    private let memberUUIDs: [UUID]
    private let loader: (@Sendable ([UUID]) -> [HKSample])?
    private let lock = NSLock()
    private var loaded: Set<HKSample>?

    public var objects: Set<HKSample> {
        lock.withLock {
            if let loaded { return loaded }
            let made = Set(loader?(memberUUIDs) ?? [])
            loaded = made
            return made
        }
    }

    public func objects(for objectType: HKObjectType) -> Set<HKSample> {
        objects.filter { $0.sampleType == objectType }
    }

    public convenience init(type correlationType: HKCorrelationType, start startDate: Date, end endDate: Date,
                            objects: Set<HKSample>) {
        self.init(type: correlationType, start: startDate, end: endDate, objects: objects, device: nil, metadata: nil)
    }

    public convenience init(type correlationType: HKCorrelationType, start startDate: Date, end endDate: Date,
                            objects: Set<HKSample>, metadata: [String: Any]?) {
        self.init(type: correlationType, start: startDate, end: endDate, objects: objects, device: nil, metadata: metadata)
    }

    public init(type correlationType: HKCorrelationType, start startDate: Date, end endDate: Date,
                objects: Set<HKSample>, device: HKDevice?, metadata: [String: Any]?) {
        memberUUIDs = objects.map(\.uuid)
        loader = nil
        loaded = objects
        super.init(type: correlationType, start: startDate, end: endDate, uuid: RandomUUID.make(), sourceRevision: .local,
                   device: device, metadata: .given(metadata))
    }

    /// A correlation read from the store.
    init(members: [UUID], loader: @escaping @Sendable ([UUID]) -> [HKSample], type: HKSampleType, start: Date, end: Date,
         uuid: UUID, sourceRevision: HKSourceRevision, device: HKDevice?, metadata: ObjectMetadata,
         creationDate: Date?, utcOffset: Int?) {
        memberUUIDs = members
        self.loader = loader
        super.init(type: type, start: start, end: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata, creationDate: creationDate, utcOffset: utcOffset)
    }

    /// The objects to save before the correlation (a new one's).
    var newObjects: [HKSample] { loader == nil ? Array(objects) : [] }

    override func coreSample(in store: Store) throws(HKError) -> Sample {
        let type = try sampleType.resolve(in: store)
        let metadata = try MetadataBridge.core(metadata)
        return try hk {
            try Sample.correlation(type, members: memberUUIDs, start: startDate, end: endDate, source: sourceRevision.core,
                                   device: device?.core, metadata: metadata, uuid: uuid,
                                   creationDate: creationDate, utcOffset: utcOffset)
        }
    }
}

extension ResultConversion {
    /// The HealthKit object of a sample whose value is a payload.
    func payloadSample(_ payload: SampleValue, _ type: HKSampleType, _ start: Date, _ end: Date, _ uuid: UUID,
                       _ revision: HKSourceRevision, _ device: HKDevice?, _ metadata: ObjectMetadata,
                       _ created: Date?, _ offset: Int?) -> HKSample {
        switch payload {
        case .workout(let w):
            return HKWorkout(w, type: type, start: start, end: end, uuid: uuid, sourceRevision: revision, device: device,
                             metadata: metadata, creationDate: created, utcOffset: offset)
        case .correlation(let c):
            return HKCorrelation(members: c.members, loader: { [weak self] uuids in self?.members(uuids, of: type) ?? [] },
                                 type: type, start: start, end: end, uuid: uuid, sourceRevision: revision, device: device,
                                 metadata: metadata, creationDate: created, utcOffset: offset)
        case .audiogram(let a):
            return HKAudiogramSample(a, type: type, start: start, end: end, uuid: uuid, sourceRevision: revision,
                                     device: device, metadata: metadata, creationDate: created, utcOffset: offset)
        case .electrocardiogram(let e):
            return HKElectrocardiogram(e, type: type, start: start, end: end, uuid: uuid, sourceRevision: revision,
                                       device: device, metadata: metadata, creationDate: created, utcOffset: offset)
        case .clinicalRecord(let c):
            return HKClinicalRecord(c, type: type, start: start, end: end, uuid: uuid, sourceRevision: revision,
                                    device: device, metadata: metadata, creationDate: created, utcOffset: offset)
        case .heartbeats(let h):
            return HKHeartbeatSeriesSample(h, type: type, start: start, end: end, uuid: uuid, sourceRevision: revision,
                                           device: device, metadata: metadata, creationDate: created, utcOffset: offset)
        case .route(let r):
            return HKWorkoutRoute(r, type: type, start: start, end: end, uuid: uuid, sourceRevision: revision, device: device,
                                  metadata: metadata, creationDate: created, utcOffset: offset)
        case .quantity, .category:
            return HKSample(type: type, start: start, end: end, uuid: uuid, sourceRevision: revision, device: device,
                            metadata: metadata, creationDate: created, utcOffset: offset)
        }
    }

    /// A correlation's members that are live in the store.
    func members(_ uuids: [UUID], of type: HKSampleType) -> [HKSample] {
        guard let store = core else { return [] }
        let descriptors = TypeCatalogue.correlationMembers(type.identifier).sorted().compactMap { id in
            TypeCatalogue.standard[id].map { QueryDescriptor(type: $0, predicate: .uuids(Set(uuids))) }
        }
        guard let r = try? store.anchoredQuery(descriptors, anchor: nil) else { return [] }
        return samples(r.samples)
    }
}

/// `HKQuery.predicateForObjectsWithNoCorrelation()`: samples no
/// correlation holds (rule 33), resolved against the store when a query
/// starts.
final class NoCorrelationPredicate: NSPredicate, StoreResolvedPredicate {
    init() { super.init(value: true) }

    required init?(coder: NSCoder) { nil }

    /// The core's predicate for `type` in `store`: none of the members of
    /// the correlations that can hold `type`.
    func core(for type: SampleType, in store: Store) throws(HKError) -> SamplePredicate {
        var members = Set<UUID>()
        for id in [TypeCatalogue.bloodPressureIdentifier, TypeCatalogue.foodIdentifier]
        where TypeCatalogue.correlationMembers(id).contains(type.identifier) {
            guard let correlationType = TypeCatalogue.standard[id] else { continue }
            for s in try hk({ try store.anchoredQuery(type: correlationType, anchor: nil).samples }) {
                if case .correlation(let c) = s.value { members.formUnion(c.members) }
            }
        }
        return members.isEmpty ? .and([]) : .not(.uuids(members))
    }
}

extension HKQuery {
    /// Samples that no correlation holds (a blood pressure's own systolic
    /// value is left out, one saved alone is not). Resolved when the query
    /// starts, as the query's whole predicate.
    public class func predicateForObjectsWithNoCorrelation() -> NSPredicate {
        NoCorrelationPredicate()
    }
}
