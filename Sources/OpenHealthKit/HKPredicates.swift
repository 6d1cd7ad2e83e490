import Foundation
import OpenHealthKitCore

/// The options of `HKQuery.predicateForSamples(withStart:end:options:)`.
public struct HKQueryOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// The sample must start in the range.
    public static let strictStartDate = HKQueryOptions(rawValue: 1)
    /// The sample must end in the range.
    public static let strictEndDate = HKQueryOptions(rawValue: 2)
}

/// The NSPredicate the factories return: it carries the core's predicate
/// (or why there is none, for an operator HealthKit refuses). Queries
/// read it; `evaluate(with:)` is not supported, as NSPredicate's format
/// machinery does not exist on Linux.
final class SamplesPredicate: NSPredicate {
    let core: Result<SamplePredicate, HKError>

    init(_ core: SamplePredicate) {
        self.core = .success(core)
        super.init(value: true)
    }

    init(refusing message: String) {
        self.core = .failure(.invalid(message))
        super.init(value: false)
    }

    required init?(coder: NSCoder) { nil }

    override var predicateFormat: String {
        switch core {
        case .success(let p): "\(p)"
        case .failure(let e): "INVALID(\(e.localizedDescription))"
        }
    }
}

extension HKQuery {
    /// The core's predicate for an NSPredicate: one of the factories', or
    /// NSCompoundPredicate's AND / OR / NOT of them, or
    /// `NSPredicate(value:)`. Anything else (a format string, a block) is
    /// `errorInvalidArgument`: the store cannot evaluate it.
    static func corePredicate(_ predicate: NSPredicate?) throws(HKError) -> SamplePredicate? {
        guard let predicate else { return nil }
        if let p = predicate as? SamplesPredicate { return try p.core.get() }
        // Resolved against the store, as a query's whole predicate only
        // (HKQueryDescriptor.core); inside a compound it would read as
        // TRUEPREDICATE and match everything.
        if predicate is StoreResolvedPredicate {
            throw .invalid("predicateForObjectsWithNoCorrelation() is a query's whole predicate here; it cannot be combined yet")
        }
        if let c = predicate as? NSCompoundPredicate {
            var parts: [SamplePredicate] = []
            for sub in c.subpredicates {
                parts.append(try corePredicate(sub) ?? .and([]))
            }
            switch c.compoundPredicateType {
            case .and: return .and(parts)
            case .or: return .or(parts)
            case .not:
                // NOT with several subpredicates is NOT of their AND.
                return .not(parts.count == 1 ? parts[0] : .and(parts))
            @unknown default: break
            }
        }
        let format = (predicate as Any as? FormatReadable)?.formatText ?? "\(predicate)"
        switch format {
        case "TRUEPREDICATE": return .and([])
        case "FALSEPREDICATE": return .or([])
        default:
            throw .invalid("predicate '\(format)' is not one the store evaluates: build it with HKQuery's factories, NSCompoundPredicate, or HKQuery.predicate(text:arguments:)")
        }
    }

    // MARK: Dates

    /// Samples in [startDate, endDate): without options, a sample that
    /// overlaps the range; nil bounds are open.
    public class func predicateForSamples(withStart startDate: Date?, end endDate: Date?,
                                          options: HKQueryOptions = []) -> NSPredicate {
        var o: DateRangeOptions = []
        if options.contains(.strictStartDate) { o.insert(.strictStartDate) }
        if options.contains(.strictEndDate) { o.insert(.strictEndDate) }
        return SamplesPredicate(.dateRange(start: startDate, end: endDate, options: o))
    }

    // MARK: Objects

    public class func predicateForObject(with uuid: UUID) -> NSPredicate {
        SamplesPredicate(.uuids([uuid]))
    }

    public class func predicateForObjects(with uuids: Set<UUID>) -> NSPredicate {
        SamplesPredicate(.uuids(uuids))
    }

    public class func predicateForObjects(from source: HKSource) -> NSPredicate {
        SamplesPredicate(.sources([source.bundleIdentifier]))
    }

    public class func predicateForObjects(from sources: Set<HKSource>) -> NSPredicate {
        SamplesPredicate(.sources(Set(sources.map(\.bundleIdentifier))))
    }

    public class func predicateForObjects(from sourceRevisions: Set<HKSourceRevision>) -> NSPredicate {
        SamplesPredicate(.sourceRevisions(Set(sourceRevisions.map(\.core))))
    }

    public class func predicateForObjects(from devices: Set<HKDevice>) -> NSPredicate {
        SamplesPredicate(.devices(Set(devices.map(\.core))))
    }

    /// Samples whose device has one of `allowedValues` under `key`
    /// (`HKDevicePropertyKeyModel`, …).
    public class func predicateForObjects(withDeviceProperty key: String, allowedValues: Set<String>) -> NSPredicate {
        guard let field = Device.Field(propertyKey: key) else {
            return SamplesPredicate(refusing: "'\(key)' is not a device property key")
        }
        return SamplesPredicate(.device(field, allowed: Set(allowedValues.map { Optional($0) })))
    }

    // MARK: Metadata

    public class func predicateForObjects(withMetadataKey key: String) -> NSPredicate {
        SamplesPredicate(.metadataExists(key))
    }

    public class func predicateForObjects(withMetadataKey key: String, allowedValues: [Any]) -> NSPredicate {
        do {
            let values = try allowedValues.map { v throws(HKError) in try metadataValue(key, v) }
            return SamplesPredicate(.metadata(key, allowedValues: values))
        } catch {
            return SamplesPredicate(refusing: error.localizedDescription)
        }
    }

    /// `metadata[key] <operator> value`; for strings also BEGINSWITH,
    /// ENDSWITH and CONTAINS.
    public class func predicateForObjects(withMetadataKey key: String,
                                          operatorType: HKComparisonOperator,
                                          value: Any) -> NSPredicate {
        do {
            let v = try metadataValue(key, value)
            if case .string(let s) = v, let match = textMatch(operatorType) {
                return SamplesPredicate(.text(.metadata(key), match, s))
            }
            return SamplesPredicate(.metadata(key, try comparison(operatorType), v))
        } catch {
            return SamplesPredicate(refusing: error.localizedDescription)
        }
    }

    // MARK: Values

    /// Quantity samples compared with `quantity` (in any compatible unit).
    public class func predicateForQuantitySamples(with operatorType: HKComparisonOperator,
                                                  quantity: HKQuantity) -> NSPredicate {
        do {
            return SamplesPredicate(.quantity(try comparison(operatorType), quantity.value, quantity.unit.core))
        } catch {
            return SamplesPredicate(refusing: error.localizedDescription)
        }
    }

    public class func predicateForCategorySamples(with operatorType: HKComparisonOperator,
                                                  value: Int) -> NSPredicate {
        do {
            return SamplesPredicate(.categoryValue(try comparison(operatorType), value))
        } catch {
            return SamplesPredicate(refusing: error.localizedDescription)
        }
    }

    public class func predicateForCategorySamples(valueIn values: Set<Int>) -> NSPredicate {
        SamplesPredicate(.or(values.sorted().map { .categoryValue(.equal, $0) }))
    }

    // MARK: Text (not in HealthKit)

    /// A predicate in the store's text syntax (docs/predicates.md), with
    /// `$1…$n` bound to `arguments` (strings, numbers, booleans, dates,
    /// UUIDs, HKQuantity, nil, and arrays of them for IN and BETWEEN):
    /// Linux's stand-in for `NSPredicate(format:)`.
    public class func predicate(text: String, arguments: [Any?] = []) throws(HKError) -> NSPredicate {
        var values: [PredicateValue] = []
        for a in arguments { values.append(try predicateValue(a)) }
        let parsed = try hk { try SamplePredicate(text, arguments: values) }
        return SamplesPredicate(parsed)
    }

    private static func predicateValue(_ value: Any?) throws(HKError) -> PredicateValue {
        switch value {
        case nil: return .null
        case let v as HKQuantity: return .quantity(v.value, v.unit.core)
        case let v as UUID: return .uuid(v)
        case let v as [Any?]:
            var list: [PredicateValue] = []
            for item in v { list.append(try predicateValue(item)) }
            return .list(list)
        case let v?:
            switch try metadataValue("argument", v) {
            case .string(let s): return .string(s)
            case .number(let n): return .number(n)
            case .bool(let b): return .bool(b)
            case .date(let d): return .date(d)
            }
        }
    }

    private static func metadataValue(_ key: String, _ value: Any) throws(HKError) -> MetadataValue {
        // One conversion for metadata values everywhere.
        guard let v = try MetadataBridge.core([key: value])[key] else { throw .invalid("no value for '\(key)'") }
        return v
    }

    static func comparison(_ op: HKComparisonOperator) throws(HKError) -> Comparison {
        switch op {
        case .lessThan: return .lessThan
        case .lessThanOrEqualTo: return .lessThanOrEqual
        case .greaterThan: return .greaterThan
        case .greaterThanOrEqualTo: return .greaterThanOrEqual
        case .equalTo: return .equal
        case .notEqualTo: return .notEqual
        default: throw .invalid("operator \(op) is not a comparison HealthKit accepts here")
        }
    }

    private static func textMatch(_ op: HKComparisonOperator) -> TextMatch? {
        switch op {
        case .beginsWith: .beginsWith
        case .endsWith: .endsWith
        case .contains: .contains
        default: nil
        }
    }
}

/// The operators of HealthKit's predicate factories, with the names and
/// raw values of `NSComparisonPredicate.Operator` (not in HealthKit):
/// swift-corelibs-foundation marks that type deprecated, so naming it in
/// the factories' signatures printed warnings in every build of a user's
/// package. Code written for HealthKit (`with: .greaterThan`) compiles
/// unchanged against these names; the factories refuse the ones HealthKit
/// refuses (`.matches`, `.like`, …) as they do.
public enum HKComparisonOperator: UInt, Sendable {
    case lessThan = 0
    case lessThanOrEqualTo = 1
    case greaterThan = 2
    case greaterThanOrEqualTo = 3
    case equalTo = 4
    case notEqualTo = 5
    case matches = 6
    case like = 7
    case beginsWith = 8
    case endsWith = 9
    case `in` = 10
    case customSelector = 11
    case contains = 99
    case between = 100
}

/// The factories' forms that take `NSComparisonPredicate.Operator`
/// itself, for code that spells the type out. Deprecated as that type is,
/// which also keeps its deprecation from warning in this library's build;
/// the forms above win wherever the operator is written `.greaterThan`.
extension HKQuery {
    @available(*, deprecated, message: "NSComparisonPredicate is deprecated in swift-corelibs-foundation: write the operator alone (.greaterThan), an HKComparisonOperator")
    @_disfavoredOverload
    public class func predicateForObjects(withMetadataKey key: String, operatorType: NSComparisonPredicate.Operator,
                                          value: Any) -> NSPredicate {
        guard let op = HKComparisonOperator(rawValue: operatorType.rawValue) else { return refusing(operatorType) }
        return predicateForObjects(withMetadataKey: key, operatorType: op, value: value)
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated in swift-corelibs-foundation: write the operator alone (.greaterThan), an HKComparisonOperator")
    @_disfavoredOverload
    public class func predicateForQuantitySamples(with operatorType: NSComparisonPredicate.Operator,
                                                  quantity: HKQuantity) -> NSPredicate {
        guard let op = HKComparisonOperator(rawValue: operatorType.rawValue) else { return refusing(operatorType) }
        return predicateForQuantitySamples(with: op, quantity: quantity)
    }

    @available(*, deprecated, message: "NSComparisonPredicate is deprecated in swift-corelibs-foundation: write the operator alone (.greaterThan), an HKComparisonOperator")
    @_disfavoredOverload
    public class func predicateForCategorySamples(with operatorType: NSComparisonPredicate.Operator,
                                                  value: Int) -> NSPredicate {
        guard let op = HKComparisonOperator(rawValue: operatorType.rawValue) else { return refusing(operatorType) }
        return predicateForCategorySamples(with: op, value: value)
    }

    @available(*, deprecated, message: "reads NSComparisonPredicate.Operator, deprecated in swift-corelibs-foundation")
    private static func refusing(_ op: NSComparisonPredicate.Operator) -> NSPredicate {
        SamplesPredicate(refusing: "operator \(op) is not one HealthKit accepts here")
    }
}

/// An NSPredicate's format text (for `NSPredicate(value:)`, whose format
/// is TRUEPREDICATE or FALSEPREDICATE). `predicateFormat` is deprecated in
/// swift-corelibs-foundation; read through this conformance, declared
/// deprecated, it warns in no build.
private protocol FormatReadable { var formatText: String { get } }

@available(*, deprecated, message: "reads predicateFormat, deprecated in swift-corelibs-foundation")
extension NSPredicate: FormatReadable {
    fileprivate var formatText: String { predicateFormat }
}
