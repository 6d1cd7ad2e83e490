import Foundation
import OpenHealthKitCore

/// A kind of object in the store, named by its HealthKit identifier.
/// Types compare equal by identifier.
public class HKObjectType: NSObject, @unchecked Sendable {
    public let identifier: String
    /// The core's type behind the identifier: HealthKit's own, or a
    /// store's custom type read from it; nil for an identifier HealthKit
    /// does not have (a custom type not yet resolved, or a mistake, found
    /// when the type is used).
    let known: SampleType?

    init(identifier: String, known: SampleType? = nil) {
        self.identifier = identifier
        self.known = known ?? TypeCatalogue.standard[identifier]
        super.init()
    }

    public override var description: String { identifier }
    public override var hash: Int { identifier.hashValue }
    public override func isEqual(_ object: Any?) -> Bool {
        guard let o = object as? HKObjectType else { return false }
        return o.identifier == identifier
    }

    /// The quantity type, or nil when HealthKit has no such identifier.
    public class func quantityType(forIdentifier identifier: HKQuantityTypeIdentifier) -> HKQuantityType? {
        guard TypeCatalogue.standard[identifier.rawValue]?.isQuantity == true else { return nil }
        return HKQuantityType(identifier)
    }

    /// The category type, or nil when HealthKit has no such identifier.
    public class func categoryType(forIdentifier identifier: HKCategoryTypeIdentifier) -> HKCategoryType? {
        guard let t = TypeCatalogue.standard[identifier.rawValue], !t.isQuantity else { return nil }
        return HKCategoryType(identifier)
    }

    /// The HealthKit type for a core type.
    static func make(_ type: SampleType) -> HKSampleType {
        switch type.kind {
        case .quantity: HKQuantityType(identifier: type.identifier, known: type)
        case .category: HKCategoryType(identifier: type.identifier, known: type)
        case .workout: HKWorkoutType(identifier: type.identifier, known: type)
        case .correlation: HKCorrelationType(identifier: type.identifier, known: type)
        case .route, .heartbeatSeries: HKSeriesType(identifier: type.identifier, known: type)
        case .audiogram: HKAudiogramSampleType(identifier: type.identifier, known: type)
        case .electrocardiogram: HKElectrocardiogramType(identifier: type.identifier, known: type)
        case .clinicalRecord: HKClinicalType(identifier: type.identifier, known: type)
        }
    }
}

/// A type of samples (objects with a start and an end).
public class HKSampleType: HKObjectType, @unchecked Sendable {
    /// The core's type, resolved in `store` (HealthKit's types, then the
    /// store's custom ones); an unknown identifier is HealthKit's
    /// `errorInvalidArgument`.
    func resolve(in store: Store) throws(HKError) -> SampleType {
        if let known { return try checkKind(known) }
        let custom = try hk { try store.sampleType(identifier) }
        return try checkKind(custom)
    }

    func checkKind(_ type: SampleType) throws(HKError) -> SampleType { type }

    /// True for types whose samples may last (every quantity and
    /// category type here).
    public var isMaximumDurationRestricted: Bool { false }
    public var isMinimumDurationRestricted: Bool { false }
    public var allowsRecalibrationForEstimates: Bool { false }
}

/// A type of quantity samples: `HKQuantityType(.stepCount)`.
public final class HKQuantityType: HKSampleType, @unchecked Sendable {
    /// The unit samples of this type are stored in, nil for an unknown type.
    let canonicalUnit: HKUnit?

    public convenience init(_ identifier: HKQuantityTypeIdentifier) {
        self.init(identifier: identifier.rawValue, known: nil)
    }

    override init(identifier: String, known: SampleType?) {
        let type = known ?? TypeCatalogue.standard[identifier]
        canonicalUnit = type?.canonicalUnit.map { HKUnit(core: $0) }
        super.init(identifier: identifier, known: type)
    }

    /// How samples of this type combine.
    public var aggregationStyle: HKQuantityAggregationStyle {
        guard case .quantity(_, let style)? = known?.kind else { return .cumulative }
        return HKQuantityAggregationStyle(rawValue: style.rawValue) ?? .cumulative
    }

    /// True when `unit` measures what this type measures.
    public func `is`(compatibleWith unit: HKUnit) -> Bool {
        known?.canonicalUnit?.isCompatible(with: unit.core) ?? false
    }

    override func checkKind(_ type: SampleType) throws(HKError) -> SampleType {
        guard type.isQuantity else { throw .invalid("\(identifier) is not a quantity type") }
        return type
    }
}

/// A type of category samples: `HKCategoryType(.sleepAnalysis)`.
public final class HKCategoryType: HKSampleType, @unchecked Sendable {
    public convenience init(_ identifier: HKCategoryTypeIdentifier) {
        self.init(identifier: identifier.rawValue, known: nil)
    }

    override init(identifier: String, known: SampleType?) {
        super.init(identifier: identifier, known: known)
    }

    override func checkKind(_ type: SampleType) throws(HKError) -> SampleType {
        guard case .category = type.kind else { throw .invalid("\(identifier) is not a category type") }
        return type
    }
}

// HKQuantityAggregationStyle's cases are generated (api/enums.toml).
extension HKQuantityAggregationStyle {
    @available(*, deprecated, renamed: "discreteArithmetic")
    public static var discrete: Self { .discreteArithmetic }
}
