import FoundationEssentials

/// A comparison operator of a predicate term.
public enum Comparison: Hashable, Sendable {
    case lessThan, lessThanOrEqual, equal, notEqual, greaterThanOrEqual, greaterThan

    @inline(__always) func holds<T: Comparable>(_ a: T, _ b: T) -> Bool {
        switch self {
        case .lessThan: a < b
        case .lessThanOrEqual: a <= b
        case .equal: a == b
        case .notEqual: a != b
        case .greaterThanOrEqual: a >= b
        case .greaterThan: a > b
        }
    }
}

/// HealthKit's `HKQueryOptions` for date-range predicates.
public struct DateRangeOptions: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The sample's start must fall in [start, end) (HKQuery.h).
    public static let strictStartDate = DateRangeOptions(rawValue: 1)
    /// The sample's end must fall in [start, end) (HKQuery.h).
    public static let strictEndDate = DateRangeOptions(rawValue: 2)
}

/// A string a `.text` predicate looks at.
public enum TextField: Hashable, Sendable {
    case source, sourceVersion
    case device(Device.Field)
    case metadata(String)
}

/// How a `.text` predicate matches.
public enum TextMatch: Hashable, Sendable, CaseIterable {
    case beginsWith, endsWith, contains

    func holds(_ s: String, _ pattern: String) -> Bool {
        switch self {
        case .beginsWith: s.hasPrefix(pattern)
        case .endsWith: s.hasSuffix(pattern)
        case .contains: pattern.isEmpty || s.contains(pattern)
        }
    }
}

extension SamplePredicate {
    /// HealthKit's `predicateForObjects(from: Set<HKDevice>)`: every device
    /// field equal, nil included.
    public static func devices(_ devices: Set<Device>) -> SamplePredicate {
        .or(devices.map { d in .and(Device.Field.allCases.map { .device($0, allowed: [d[$0]]) }) })
    }

    /// HealthKit's `predicateForObjects(from: Set<HKSourceRevision>)`: the
    /// source (bundle identifier) and its version (nil: no version).
    public static func sourceRevisions(_ sources: Set<Source>) -> SamplePredicate {
        .or(sources.map { .and([.sources([$0.bundleIdentifier]), .sourceVersions([$0.version])]) })
    }

    /// HealthKit's `predicateForObjects(withMetadataKey:allowedValues:)`.
    public static func metadata(_ key: String, allowedValues: [MetadataValue]) -> SamplePredicate {
        .or(allowedValues.map { .metadata(key, .equal, $0) })
    }
}

/// A filter over samples and deleted objects, the one predicate value the
/// engine evaluates (HealthKit's predicate factories map onto it).
extension SamplePredicate {
    /// How many levels deep the predicate is: 1 for a term.
    var depth: Int {
        switch self {
        case .and(let ps), .or(let ps): 1 + (ps.map(\.depth).max() ?? 0)
        case .not(let p), .workoutActivity(let p): 1 + p.depth
        default: 1
        }
    }

    /// Refuses a predicate deeper than `PredicateLimits.depth` (its text
    /// would not parse back, and evaluating it recurses that deep).
    package func checkDepth() throws {
        guard depth <= PredicateLimits.depth else {
            throw OHKError(.invalidPredicate, "the predicate nests deeper than \(PredicateLimits.depth) levels")
        }
    }
}

public indirect enum SamplePredicate: Hashable, Sendable {
    /// `predicateForSamples(withStart:end:options:)` (rule 8b). Without
    /// options a sample matches when it overlaps [s, e): `end >= s && start
    /// < e`; `strictStartDate`: `s <= start < e`; `strictEndDate`: `s <=
    /// end < e`; both: both. Nil bounds are open.
    case dateRange(start: Date?, end: Date?, options: DateRangeOptions)
    case startDate(Comparison, Date)
    case endDate(Comparison, Date)
    /// Objects whose UUID is in the set.
    case uuids(Set<UUID>)
    /// Objects from one of these sources (bundle identifiers).
    case sources(Set<String>)
    /// Objects whose source revision's version is one of these (nil: the
    /// source has no version).
    case sourceVersions(Set<String?>)
    /// A string field that begins with, ends with or contains a string
    /// (case-sensitive, like NSPredicate without [c]).
    case text(TextField, TextMatch, String)
    /// Samples whose device `field` is one of `allowed`; nil stands for "no
    /// device or no such field", and an empty set matches only nil.
    case device(Device.Field, allowed: Set<String?>)
    case metadataExists(String)
    case metadata(String, Comparison, MetadataValue)
    /// Quantity compared with `value` in `unit` (any unit compatible with the type's).
    case quantity(Comparison, Double, HealthUnit)
    /// Category value compared with an integer.
    case categoryValue(Comparison, Int)
    /// Objects associated with the workout of this UUID: samples added to
    /// it and its routes (`predicateForObjects(from: workout)`, rule 36).
    /// A query reads the associations when it runs.
    case workout(UUID)
    /// Workouts (or, inside `workoutActivity`, activities) whose
    /// `HKWorkoutActivityType` raw value is one of these (rule 35).
    case workoutType(Set<UInt>)
    /// Workouts or activities whose duration in seconds compares so.
    case workoutDuration(Comparison, Double)
    /// Workouts whose total compares with the value in the unit; a
    /// workout without that total does not match.
    case workoutTotal(WorkoutTotal, Comparison, Double, HealthUnit)
    /// Workouts or activities whose statistics of the quantity type
    /// (identifier) have a figure that compares with the value in the unit.
    case workoutStatistic(WorkoutStatistic, String, Comparison, Double, HealthUnit)
    /// Workouts with an activity that the predicate (of workoutType,
    /// duration, date and statistics terms) matches as a whole.
    case workoutActivity(SamplePredicate)
    /// Electrocardiograms whose classification or symptoms status (the
    /// raw value) is one of these (rule 41,
    /// `predicateForElectrocardiograms(classification:)`).
    case electrocardiogram(ElectrocardiogramField, Set<UInt8>)
    case and([SamplePredicate])
    case or([SamplePredicate])
    case not(SamplePredicate)

    /// Refuses terms that cannot apply to `type` (rule 17): a quantity
    /// term on a category type or in a unit of another dimension, a
    /// category term on a quantity type, non-finite numbers.
    /// The term that fails is quoted in its canonical text, which says
    /// where it is when the predicate came from text parsed without a type.
    func validate(for type: SampleType) throws {
        switch self {
        case .quantity(_, let v, let unit):
            guard let canonical = type.canonicalUnit else {
                throw OHKError(.invalidPredicate, "quantity comparison on \(type.kindName) type \(type.identifier) in '\(self)'")
            }
            guard unit.isCompatible(with: canonical) else {
                throw OHKError(.incompatibleUnit, "predicate unit '\(unit)' is not compatible with \(type.identifier) ('\(canonical)') in '\(self)'")
            }
            guard v.isFinite else { throw OHKError(.invalidValue, "predicate quantity must be finite") }
        case .categoryValue:
            guard case .category = type.kind else {
                throw OHKError(.invalidPredicate, "category value comparison on \(type.kindName) type \(type.identifier) in '\(self)'")
            }
        case .metadata(_, _, .number(let n)):
            guard n.isFinite else { throw OHKError(.invalidValue, "predicate number must be finite") }
        case .and(let ps), .or(let ps):
            for p in ps { try p.validate(for: type) }
        case .not(let p):
            try p.validate(for: type)
        case .workoutType, .workoutDuration, .workoutTotal, .workoutStatistic, .workoutActivity:
            try WorkoutTerms.validate(self, for: type)
        case .electrocardiogram(let field, _):
            guard type.kind == .electrocardiogram else {
                throw OHKError(.invalidPredicate, "\(field.rawValue) is a term of electrocardiograms, not of \(type.identifier), in '\(self)'")
            }
        default:
            break
        }
    }
}

/// Kleene's three-valued logic: a deleted object keeps few fields, and a
/// term on a field it does not keep is unknown (rule 8).
enum Truth {
    case no, yes, unknown

    static prefix func ! (t: Truth) -> Truth {
        switch t { case .no: .yes; case .yes: .no; case .unknown: .unknown }
    }
    init(_ b: Bool) { self = b ? .yes : .no }
}

/// What evaluation needs beyond the record: names behind the ids.
struct EvalContext {
    let type: SampleType
    let source: (UInt32) -> Source?
    let device: (UInt32) -> Device?
}

extension SamplePredicate {
    /// Evaluates against a stored record; tombstones get three-valued logic.
    func evaluate(_ r: RecordView, _ ctx: EvalContext) -> Truth {
        let tomb = r.isTombstone
        switch self {
        case .dateRange(let s, let e, let options):
            let start = r.start, end = r.end
            var ok = true
            // A sample's start is at or before its end, so each option's
            // half-open interval leaves one comparison per bound.
            if let s = s?.timeIntervalSinceReferenceDate {
                ok = ok && (options.contains(.strictStartDate) ? start >= s : end >= s)
            }
            if let e = e?.timeIntervalSinceReferenceDate {
                ok = ok && (options.contains(.strictEndDate) ? end < e : start < e)
            }
            return Truth(ok)
        case .startDate(let op, let d):
            return Truth(op.holds(r.start, d.timeIntervalSinceReferenceDate))
        case .endDate(let op, let d):
            return Truth(op.holds(r.end, d.timeIntervalSinceReferenceDate))
        case .uuids(let set):
            return Truth(set.contains(r.uuid))
        case .sources(let set):
            return Truth(ctx.source(r.sourceID).map { set.contains($0.bundleIdentifier) } ?? false)
        case .sourceVersions(let set):
            return Truth(ctx.source(r.sourceID).map { set.contains($0.version) } ?? false)
        case .text(let field, let match, let pattern):
            let value: String?
            switch field {
            case .source: value = ctx.source(r.sourceID)?.bundleIdentifier
            case .sourceVersion: value = ctx.source(r.sourceID)?.version
            case .device(let f):
                if tomb { return .unknown }
                value = r.deviceID == 0 ? nil : ctx.device(r.deviceID)?[f]
            case .metadata(let key):
                if tomb && !Self.tombstoneKeys.contains(key) { return .unknown }
                if case .string(let s)? = r.metadataValue(key) { value = s } else { value = nil }
            }
            return Truth(value.map { match.holds($0, pattern) } ?? false)
        case .device(let field, let allowed):
            if tomb { return .unknown }
            let value = r.deviceID == 0 ? nil : ctx.device(r.deviceID)?[field]
            if value == nil { return Truth(allowed.isEmpty || allowed.contains(nil)) }
            return Truth(allowed.contains(value))
        case .metadataExists(let key):
            if tomb && !Self.tombstoneKeys.contains(key) { return .unknown }
            return Truth(r.metadataValue(key) != nil)
        case .metadata(let key, let op, let value):
            if tomb && !Self.tombstoneKeys.contains(key) { return .unknown }
            guard let stored = r.metadataValue(key) else { return .no }
            return Truth(Self.compare(stored, op, value))
        case .quantity(let op, let v, let unit):
            if tomb { return .unknown }
            guard !r.isCategory, let canonical = ctx.type.canonicalUnit,
                  let threshold = try? unit.convert(v, to: canonical) else { return .no }
            return Truth(op.holds(r.quantity, threshold))
        case .categoryValue(let op, let v):
            if tomb { return .unknown }
            return Truth(r.isCategory && op.holds(r.category, v))
        case .and(let ps):
            var result = Truth.yes
            for p in ps {
                switch p.evaluate(r, ctx) {
                case .no: return .no
                case .unknown: result = .unknown
                case .yes: break
                }
            }
            return result
        case .or(let ps):
            var result = Truth.no
            for p in ps {
                switch p.evaluate(r, ctx) {
                case .yes: return .yes
                case .unknown: result = .unknown
                case .no: break
                }
            }
            return result
        case .not(let p):
            return !p.evaluate(r, ctx)
        case .workoutType, .workoutDuration, .workoutTotal, .workoutStatistic, .workoutActivity:
            return WorkoutTerms.evaluate(self, r, ctx.type)
        case .electrocardiogram(let field, let allowed):
            // A deleted object keeps no fields (rule 8).
            if r.isTombstone { return .unknown }
            guard ctx.type.kind == .electrocardiogram, let codes = r.electrocardiogramCodes() else { return .no }
            return Truth(allowed.contains(field == .classification ? codes.classification : codes.symptomsStatus))
        case .workout:
            // Queries replace it with the associated UUIDs before they read
            // (`resolvingAssociations`); never evaluated as itself.
            return .no
        }
    }

    /// The only metadata a deleted object keeps.
    static let tombstoneKeys: Set<String> = [MetadataKey.syncIdentifier, MetadataKey.syncVersion]

    /// Values of different kinds never compare (the term is false), except
    /// that bools compare as the numbers 0 and 1, as NSPredicate does.
    static func compare(_ a: MetadataValue, _ op: Comparison, _ b: MetadataValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): return op.holds(x, y)
        case (.number(let x), .number(let y)): return op.holds(x, y)
        case (.date(let x), .date(let y)): return op.holds(x, y)
        case (.bool(let x), .bool(let y)): return op.holds(x ? 1 : 0, y ? 1 : 0)
        case (.bool(let x), .number(let y)): return op.holds(x ? 1 : 0, y)
        case (.number(let x), .bool(let y)): return op.holds(x, y ? 1 : 0)
        default: return false
        }
    }
}
