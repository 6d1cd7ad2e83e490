import Foundation
import OpenHealthKitCore

/// Something in the store, with a UUID. Objects are immutable and
/// compare equal by UUID.
public class HKObject: NSObject, @unchecked Sendable {
    public let uuid: UUID
    /// Who wrote it: this program, for an object it created.
    public let sourceRevision: HKSourceRevision
    public let device: HKDevice?
    private let storedMetadata: ObjectMetadata

    /// The metadata; of an object read from the store it is decoded from
    /// the stored entries on each read (a new dictionary, equal each time).
    public var metadata: [String: Any]? {
        switch storedMetadata {
        case .given(let m): m
        case .stored(let m): MetadataBridge.healthKit(m)
        }
    }

    init(uuid: UUID, sourceRevision: HKSourceRevision, device: HKDevice?, metadata: ObjectMetadata) {
        self.uuid = uuid
        self.sourceRevision = sourceRevision
        self.device = device
        self.storedMetadata = metadata
        super.init()
    }

    @available(*, deprecated, renamed: "sourceRevision.source")
    public var source: HKSource { sourceRevision.source }

    public override var hash: Int { uuid.hashValue }
    public override func isEqual(_ object: Any?) -> Bool { (object as? HKObject)?.uuid == uuid }
}

/// An object with a type, a start and an end.
public class HKSample: HKObject, @unchecked Sendable {
    public let sampleType: HKSampleType
    public let startDate: Date
    public let endDate: Date
    /// OpenHealthKit's addition: when the sample was made, as its source
    /// said (an Apple Health export's `creationDate`); nil when not known
    /// (rule 24).
    public let creationDate: Date?
    /// OpenHealthKit's addition: the UTC offset of the sample's local time,
    /// in seconds east of UTC, as an Apple Health export gives it; nil when
    /// not known. HealthKit apps read `HKMetadataKeyTimeZone` for this.
    public let utcOffset: Int?

    init(type: HKSampleType, start: Date, end: Date, uuid: UUID, sourceRevision: HKSourceRevision,
         device: HKDevice?, metadata: ObjectMetadata, creationDate: Date? = nil, utcOffset: Int? = nil) {
        self.sampleType = type
        self.startDate = start
        self.endDate = end
        self.creationDate = creationDate
        self.utcOffset = utcOffset
        super.init(uuid: uuid, sourceRevision: sourceRevision, device: device, metadata: metadata)
    }

    public var hasUndeterminedDuration: Bool { endDate == .distantFuture }

    /// The core's sample, checked as a save checks it.
    func coreSample(in store: Store) throws(HKError) -> Sample {
        throw .invalid("\(type(of: self)) cannot be saved")
    }
}

/// A quantity measured over a time: steps, heart rate, body mass.
public final class HKQuantitySample: HKSample, @unchecked Sendable {
    private let value: Double
    /// The unit `value` is in: the caller's for a new sample, the type's
    /// canonical unit for one read from the store.
    private let unit: HKUnit

    public var quantityType: HKQuantityType { sampleType as! HKQuantityType }
    public var quantity: HKQuantity { HKQuantity(unit: unit, doubleValue: value) }
    /// Samples here hold one quantity each (HealthKit's series are not kept).
    public var count: Int { 1 }

    /// A new sample from this program. Nothing is checked until it is
    /// saved: a unit the type does not measure, or an end before the
    /// start, fails the save with `errorInvalidArgument`.
    public init(type quantityType: HKQuantityType, quantity: HKQuantity, start startDate: Date, end endDate: Date,
                device: HKDevice?, metadata: [String: Any]?) {
        value = quantity.value
        unit = quantity.unit
        super.init(type: quantityType, start: startDate, end: endDate, uuid: RandomUUID.make(),
                   sourceRevision: .local, device: device, metadata: .given(metadata))
    }

    public convenience init(type quantityType: HKQuantityType, quantity: HKQuantity, start startDate: Date,
                            end endDate: Date, metadata: [String: Any]?) {
        self.init(type: quantityType, quantity: quantity, start: startDate, end: endDate, device: nil, metadata: metadata)
    }

    public convenience init(type quantityType: HKQuantityType, quantity: HKQuantity, start startDate: Date,
                            end endDate: Date) {
        self.init(type: quantityType, quantity: quantity, start: startDate, end: endDate, device: nil, metadata: nil)
    }

    /// A sample read from the store.
    init(type: HKQuantityType, canonicalUnit: HKUnit, value: Double, start: Date, end: Date, uuid: UUID,
         sourceRevision: HKSourceRevision, device: HKDevice?, metadata: ObjectMetadata,
         creationDate: Date?, utcOffset: Int?) {
        self.value = value
        self.unit = canonicalUnit
        super.init(type: type, start: start, end: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata, creationDate: creationDate, utcOffset: utcOffset)
    }

    override func coreSample(in store: Store) throws(HKError) -> Sample {
        let type = try sampleType.resolve(in: store)
        let metadata = try MetadataBridge.core(metadata)
        return try hk {
            try Sample.quantity(type, value: value, unit: unit.core, start: startDate, end: endDate,
                                source: sourceRevision.core, device: device?.core, metadata: metadata, uuid: uuid,
                                creationDate: creationDate, utcOffset: utcOffset)
        }
    }

    public override var description: String {
        "\(uuid) \(value) \(unit) \"\(sourceRevision.source.name)\" (\(sourceRevision.version ?? "")) \"\(device?.name ?? "")\" (\(startDate) - \(endDate))"
    }
}

/// A value from a type's list of values over a time: sleep stages,
/// stand hours, events.
public final class HKCategorySample: HKSample, @unchecked Sendable {
    /// One of the type's values (`HKCategoryValueSleepAnalysis.asleepCore.rawValue`).
    public let value: Int

    public var categoryType: HKCategoryType { sampleType as! HKCategoryType }

    /// A new sample from this program; a value the type does not have,
    /// or an end before the start, fails the save with
    /// `errorInvalidArgument`.
    public init(type: HKCategoryType, value: Int, start startDate: Date, end endDate: Date,
                device: HKDevice?, metadata: [String: Any]?) {
        self.value = value
        super.init(type: type, start: startDate, end: endDate, uuid: RandomUUID.make(),
                   sourceRevision: .local, device: device, metadata: .given(metadata))
    }

    public convenience init(type: HKCategoryType, value: Int, start startDate: Date, end endDate: Date,
                            metadata: [String: Any]?) {
        self.init(type: type, value: value, start: startDate, end: endDate, device: nil, metadata: metadata)
    }

    public convenience init(type: HKCategoryType, value: Int, start startDate: Date, end endDate: Date) {
        self.init(type: type, value: value, start: startDate, end: endDate, device: nil, metadata: nil)
    }

    /// A sample read from the store.
    init(type: HKCategoryType, value: Int, start: Date, end: Date, uuid: UUID,
         sourceRevision: HKSourceRevision, device: HKDevice?, metadata: ObjectMetadata,
         creationDate: Date?, utcOffset: Int?) {
        self.value = value
        super.init(type: type, start: start, end: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata, creationDate: creationDate, utcOffset: utcOffset)
    }

    override func coreSample(in store: Store) throws(HKError) -> Sample {
        let type = try sampleType.resolve(in: store)
        let metadata = try MetadataBridge.core(metadata)
        return try hk {
            try Sample.category(type, value: value, start: startDate, end: endDate, source: sourceRevision.core,
                                device: device?.core, metadata: metadata, uuid: uuid,
                                creationDate: creationDate, utcOffset: utcOffset)
        }
    }

    public override var description: String {
        "\(uuid) \(sampleType) \(value) \"\(sourceRevision.source.name)\" (\(startDate) - \(endDate))"
    }
}

/// What a query reports of a deleted sample: its UUID, and its sync
/// identifier and version as metadata.
public final class HKDeletedObject: NSObject, @unchecked Sendable {
    public let uuid: UUID
    public let metadata: [String: Any]?

    init(_ core: DeletedObject) {
        uuid = core.uuid
        metadata = MetadataBridge.healthKit(core.metadata)
        super.init()
    }

    public override var description: String { "<HKDeletedObject> \(uuid)" }
    public override var hash: Int { uuid.hashValue }
    public override func isEqual(_ object: Any?) -> Bool { (object as? HKDeletedObject)?.uuid == uuid }
}
