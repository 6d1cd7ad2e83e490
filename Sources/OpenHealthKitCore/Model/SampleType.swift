
/// A sample type: a HealthKit identifier with what its values are.
/// Instances are shared and compared by identifier.
public final class SampleType: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Values are stored in `canonicalUnit`.
        case quantity(canonicalUnit: HealthUnit, aggregation: AggregationStyle)
        /// Values are integers, one of `values` (case name → integer).
        case category(values: [String: Int])
        /// HealthKit's workout type: each value is a `Workout`.
        case workout
        /// HealthKit's workout route type: each value is a `WorkoutRoute`.
        case route
        /// A correlation type (blood pressure, food): each value is a
        /// `Correlation`.
        case correlation
        /// HealthKit's heartbeat series type: each value is a
        /// `HeartbeatSeries`.
        case heartbeatSeries
        /// HealthKit's audiogram type: each value is an `Audiogram`.
        case audiogram
        /// HealthKit's electrocardiogram type: each value is an
        /// `Electrocardiogram`.
        case electrocardiogram
        /// A clinical type (allergies, immunizations…): each value is a
        /// `ClinicalRecord`.
        case clinicalRecord
    }

    public let identifier: String
    public let kind: Kind
    /// True for types the store's owner registered, false for HealthKit's own.
    public var isCustom: Bool { catalogueIndex < 0 }
    /// Position in the standard catalogue (-1 for custom types): lets a
    /// store find its id for the type without hashing the identifier.
    let catalogueIndex: Int

    init(identifier: String, kind: Kind, isCustom: Bool, catalogueIndex: Int = -1) {
        precondition(isCustom == (catalogueIndex < 0), "standard types carry their catalogue index")
        self.identifier = identifier
        self.kind = kind
        self.catalogueIndex = catalogueIndex
        if case .quantity(let u, _) = kind { canonicalUnitText = u.description } else { canonicalUnitText = nil }
    }

    /// `canonicalUnit`'s text, kept: every sample printed names it.
    public let canonicalUnitText: String?

    public var canonicalUnit: HealthUnit? {
        if case .quantity(let u, _) = kind { return u }
        return nil
    }

    public var isQuantity: Bool { canonicalUnit != nil }

    /// "quantity", "category" or "workout", for messages.
    public var kindName: String {
        switch kind {
        case .quantity: "quantity"
        case .category: "category"
        case .workout: "workout"
        case .route: "route"
        case .correlation: "correlation"
        case .heartbeatSeries: "heartbeat series"
        case .audiogram: "audiogram"
        case .electrocardiogram: "electrocardiogram"
        case .clinicalRecord: "clinical record"
        }
    }

    /// The unit people read this type in (HealthKit's preferred units, in
    /// metric, decision): count/min for rates kept in count/s (heart rate),
    /// km/hr for speeds, km for cumulative distances, cm for body lengths
    /// (height, waist, step and stride length); else the canonical unit.
    /// What the command line and `to_pandas()` show unless told otherwise.
    public var displayUnit: HealthUnit? {
        guard case .quantity(let canonical, let style) = kind else { return nil }
        let text: String?
        switch canonical.description {
        case "count/s": text = "count/min"
        case "m/s": text = "km/hr"
        case "m" where style == .cumulative: text = "km"
        case "m" where ["Height", "WaistCircumference", "WalkingStepLength", "RunningStrideLength"]
            .contains(where: identifier.hasSuffix): text = "cm"
        default: text = nil
        }
        return text.flatMap { try? HealthUnit($0) } ?? canonical
    }

    /// Looks up one of HealthKit's identifiers
    /// (`HKQuantityTypeIdentifierStepCount`, `HKCategoryTypeIdentifierSleepAnalysis`)
    /// or its short name (`StepCount`, `SleepAnalysis`).
    /// Custom types are resolved through the store: `Store.sampleType(_:)`.
    public static func named(_ identifier: String) throws -> SampleType {
        guard let t = TypeCatalogue.lookup(identifier) else { throw TypeCatalogue.unknown(identifier) }
        return t
    }

    /// The integer of a category value by its case name ("AsleepCore") or
    /// HealthKit's full name, as exports write it
    /// ("HKCategoryValueSleepAnalysisAsleepCore"); nil for a name the type
    /// does not have, and for quantity types.
    public func categoryValue(named name: String) -> Int? {
        guard case .category(let values) = kind else { return nil }
        if let v = values[name] { return v }
        guard name.hasPrefix("HKCategoryValue") else { return nil }
        // The full name ends with the short one; the longest match wins
        // ("…AsleepUnspecified" over "…Unspecified").
        return values.keys.filter { name.hasSuffix($0) }.max { $0.count < $1.count }.flatMap { values[$0] }
    }

    /// The case name of a category value ("AsleepREM" for SleepAnalysis 5):
    /// of names that share a value, the longest, which is HealthKit's
    /// current one ("AsleepUnspecified", not the deprecated "Asleep"); nil
    /// for a value the type does not name, and for quantity types.
    public func categoryValueName(_ value: Int) -> String? {
        guard case .category(let values) = kind else { return nil }
        return values.filter { $0.value == value }.map(\.key).min { ($0.count, $1) > ($1.count, $0) }
    }

    public static func == (a: SampleType, b: SampleType) -> Bool { a.identifier == b.identifier }
    public func hash(into h: inout Hasher) { h.combine(identifier) }
    public var description: String { identifier }
}

/// HealthKit's type catalogue, built once from the generated data.
public enum TypeCatalogue {
    public static let quantityPrefix = "HKQuantityTypeIdentifier"
    public static let categoryPrefix = "HKCategoryTypeIdentifier"
    public static let correlationPrefix = "HKCorrelationTypeIdentifier"
    /// HealthKit's one workout type (`HKObjectType.workoutType()`).
    public static let workoutIdentifier = "HKWorkoutTypeIdentifier"
    public static var workoutType: SampleType { standard[workoutIdentifier]! }
    /// HealthKit's workout route type (`HKSeriesType.workoutRoute()`).
    public static let routeIdentifier = "HKWorkoutRouteTypeIdentifier"
    public static var routeType: SampleType { standard[routeIdentifier]! }
    /// HealthKit's heartbeat series type (`HKSeriesType.heartbeat()`).
    public static let heartbeatSeriesIdentifier = "HKDataTypeIdentifierHeartbeatSeries"
    public static var heartbeatSeriesType: SampleType { standard[heartbeatSeriesIdentifier]! }
    /// HealthKit's audiogram type (`HKObjectType.audiogramSampleType()`).
    public static let audiogramIdentifier = "HKDataTypeIdentifierAudiogram"
    public static var audiogramType: SampleType { standard[audiogramIdentifier]! }
    /// HealthKit's electrocardiogram type (`HKObjectType.electrocardiogramType()`).
    public static let electrocardiogramIdentifier = "HKDataTypeIdentifierElectrocardiogram"
    public static var electrocardiogramType: SampleType { standard[electrocardiogramIdentifier]! }
    /// HealthKit's clinical types (`HKClinicalTypeIdentifier`), by short name.
    public static let clinicalPrefix = "HKClinicalTypeIdentifier"
    public static let clinicalTypeNames = ["AllergyRecord", "ClinicalNoteRecord", "ConditionRecord", "CoverageRecord",
                                           "ImmunizationRecord", "LabResultRecord", "MedicationRecord",
                                           "ProcedureRecord", "VitalSignRecord"]

    /// Every standard type by identifier.
    public static let standard: [String: SampleType] = {
        var out: [String: SampleType] = [:]
        for (suffix, unit, style) in quantityCatalogue {
            // The catalogue's units are checked by a test; a bad one is a bug.
            let u = try! HealthUnit(unit)
            let id = quantityPrefix + suffix
            out[id] = SampleType(identifier: id, kind: .quantity(canonicalUnit: u, aggregation: style),
                                 isCustom: false, catalogueIndex: out.count)
        }
        for (suffix, enumName) in categoryCatalogue {
            let values = Dictionary(categoryValueEnums[enumName, default: []], uniquingKeysWith: { a, _ in a })
            let id = categoryPrefix + suffix
            out[id] = SampleType(identifier: id, kind: .category(values: values), isCustom: false,
                                 catalogueIndex: out.count)
        }
        out[workoutIdentifier] = SampleType(identifier: workoutIdentifier, kind: .workout, isCustom: false,
                                            catalogueIndex: out.count)
        out[routeIdentifier] = SampleType(identifier: routeIdentifier, kind: .route, isCustom: false,
                                          catalogueIndex: out.count)
        for id in [bloodPressureIdentifier, foodIdentifier] {
            out[id] = SampleType(identifier: id, kind: .correlation, isCustom: false, catalogueIndex: out.count)
        }
        out[heartbeatSeriesIdentifier] = SampleType(identifier: heartbeatSeriesIdentifier, kind: .heartbeatSeries,
                                                    isCustom: false, catalogueIndex: out.count)
        out[audiogramIdentifier] = SampleType(identifier: audiogramIdentifier, kind: .audiogram, isCustom: false,
                                              catalogueIndex: out.count)
        out[electrocardiogramIdentifier] = SampleType(identifier: electrocardiogramIdentifier, kind: .electrocardiogram,
                                                      isCustom: false, catalogueIndex: out.count)
        for name in clinicalTypeNames {
            out[clinicalPrefix + name] = SampleType(identifier: clinicalPrefix + name, kind: .clinicalRecord, isCustom: false,
                                                    catalogueIndex: out.count)
        }
        return out
    }()

    /// All standard types, sorted by identifier.
    public static var all: [SampleType] { standard.values.sorted { $0.identifier < $1.identifier } }

    /// A standard type by its identifier or by its short name, the
    /// identifier without its prefix (`HeartRate`, `SleepAnalysis`): no
    /// quantity type and category type share one.
    public static func lookup(_ name: String) -> SampleType? {
        standard[name] ?? standard[quantityPrefix + name] ?? standard[categoryPrefix + name]
            ?? (name == "Workout" ? standard[workoutIdentifier] : name == "WorkoutRoute" ? standard[routeIdentifier] : nil)
            ?? (name == "HeartbeatSeries" ? standard[heartbeatSeriesIdentifier] : name == "Audiogram" ? standard[audiogramIdentifier] : nil)
            ?? (name == "Electrocardiogram" ? standard[electrocardiogramIdentifier] : nil)
            ?? standard[correlationPrefix + name] ?? standard[clinicalPrefix + name]
    }

    /// The error for a name no type has, with the names it may have
    /// meant: the same name in another case (`stepcount`), else names that
    /// start with it, else names that hold it (`Sleep`).
    public static func unknown(_ name: String) -> OHKError {
        let guesses = suggestions(for: name)
        let hint = guesses.isEmpty ? "" : "; did you mean " + guesses.joined(separator: ", ") + "?"
        return OHKError(.unknownType, "unknown sample type identifier '\(name)'\(hint) (names are case-sensitive)")
    }

    /// Up to four short names close to `name`, best first.
    static func suggestions(for name: String) -> [String] {
        let wanted = name.lowercased()
        guard wanted.count >= 3 else { return [] }
        let names = all.map(shortName)
        let same = names.filter { $0.lowercased() == wanted || $0.lowercased() == wanted.split(separator: "identifier").last.map(String.init) }
        if !same.isEmpty { return same }
        let starting = names.filter { $0.lowercased().hasPrefix(wanted) }.sorted()
        let holding = names.filter { $0.lowercased().contains(wanted) && !$0.lowercased().hasPrefix(wanted) }
            .sorted { ($0.count, $0) < ($1.count, $1) }
        return Array((starting + holding).prefix(4))
    }

    /// The short name of a standard type (its identifier without the
    /// prefix); a custom type's identifier as it is.
    public static func shortName(_ type: SampleType) -> String {
        guard !type.isCustom else { return type.identifier }
        for prefix in [quantityPrefix, categoryPrefix, correlationPrefix, clinicalPrefix] where type.identifier.hasPrefix(prefix) {
            return String(type.identifier.dropFirst(prefix.count))
        }
        if type.identifier == workoutIdentifier { return "Workout" }
        if type.identifier == routeIdentifier { return "WorkoutRoute" }
        if type.identifier == heartbeatSeriesIdentifier { return "HeartbeatSeries" }
        if type.identifier == audiogramIdentifier { return "Audiogram" }
        if type.identifier == electrocardiogramIdentifier { return "Electrocardiogram" }
        return type.identifier
    }
}
