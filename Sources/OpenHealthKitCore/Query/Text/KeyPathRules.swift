import FoundationEssentials

/// What each key path of predicate text accepts, and the predicate a
/// comparison on it becomes.
enum KeyPathRules {
    /// Keys whose values may be a number and its unit (`5 km`).
    static func takesUnit(_ key: String) -> Bool {
        key == "quantity" || key == "duration" || WorkoutTotal(rawValue: key) != nil
            || WorkoutStatistic.split(key: key) != nil
    }

    static func build(key: String, keyOffset: Int, op: PredicateOperator, value: PredicateValue,
                      valueOffset: Int) throws -> SamplePredicate {
        func fail(_ what: String) -> OHKError { OHKError(.invalidPredicate, "at offset \(valueOffset): \(what)") }
        /// `a BETWEEN {lo, hi}` is `a >= lo AND a <= hi`.
        func between(_ make: (Comparison, PredicateValue) throws -> SamplePredicate) throws -> SamplePredicate {
            guard case .list(let items) = value, items.count == 2 else { throw fail("BETWEEN takes {low, high}") }
            return .and([try make(.greaterThanOrEqual, items[0]), try make(.lessThanOrEqual, items[1])])
        }
        func list() throws -> [PredicateValue] {
            guard case .list(let items) = value else { throw fail("IN takes a list {a, b, …}") }
            return items
        }
        /// Keys that hold a set of allowed values: ==, != and IN.
        func setMembership<T: Hashable>(_ convert: (PredicateValue) throws -> T, _ make: (Set<T>) -> SamplePredicate) throws -> SamplePredicate {
            switch op {
            case .compare(.equal): return make([try convert(value)])
            case .compare(.notEqual): return .not(make([try convert(value)]))
            case .isIn: return make(Set(try list().map(convert)))
            default: throw OHKError(.invalidPredicate, "at offset \(keyOffset): \(key) takes ==, != or IN")
            }
        }
        /// Keys with an order: comparisons, BETWEEN, and (when `allowsIn`)
        /// IN as an OR of equalities. Text matches never get here.
        func ordered(allowsIn: Bool = true, _ make: (Comparison, PredicateValue) throws -> SamplePredicate) throws -> SamplePredicate {
            switch op {
            case .compare(let c): return try make(c, value)
            case .between: return try between(make)
            case .isIn where allowsIn: return .or(try list().map { try make(.equal, $0) })
            case .isIn, .text: throw OHKError(.invalidPredicate, "at offset \(keyOffset): \(key) takes a comparison or BETWEEN")
            }
        }
        func stringOrNil(_ v: PredicateValue) throws -> String? {
            switch v {
            case .string(let s): return s
            case .null: return nil
            default: throw fail("\(key) compares with a string or nil")
            }
        }

        if case .text(let match) = op {
            let field: TextField
            switch key {
            case "source": field = .source
            case "sourceRevision.version": field = .sourceVersion
            case _ where key.hasPrefix("metadata."): field = .metadata(String(key.dropFirst(9)))
            default:
                guard let f = Device.Field.allCases.first(where: { "device.\($0)" == key }) else {
                    throw OHKError(.invalidPredicate, "at offset \(keyOffset): BEGINSWITH, ENDSWITH and CONTAINS apply to source, sourceRevision.version, device.<field> and metadata.<key>")
                }
                field = .device(f)
            }
            guard case .string(let pattern) = value else { throw fail("BEGINSWITH, ENDSWITH and CONTAINS take a string") }
            return .text(field, match, pattern)
        }
        switch key {
        case "sourceRevision.version":
            return try setMembership(stringOrNil, { .sourceVersions($0) })
        case "startDate", "endDate":
            let make: (Comparison, PredicateValue) throws -> SamplePredicate = { c, v in
                guard case .date(let d) = v else { throw fail("\(key) compares with a date") }
                return key == "startDate" ? .startDate(c, d) : .endDate(c, d)
            }
            return try ordered(allowsIn: false, make)
        case "UUID":
            return try setMembership({ v -> UUID in
                switch v {
                case .uuid(let u): return u
                case .string(let s): if let u = UUID(uuidString: s) { return u }
                default: break
                }
                throw fail("UUID compares with a UUID")
            }, { .uuids($0) })
        case "source":
            return try setMembership({ v -> String in
                guard case .string(let s) = v else { throw fail("source compares with a bundle identifier string") }
                return s
            }, { .sources($0) })
        case "quantity":
            let make: (Comparison, PredicateValue) throws -> SamplePredicate = { c, v in
                guard case .quantity(let n, let unit) = v else { throw fail("quantity compares with a quantity and its unit, like 70 kg") }
                return .quantity(c, n, unit)
            }
            return try ordered(make)
        case "value":
            let make: (Comparison, PredicateValue) throws -> SamplePredicate = { c, v in
                guard case .number(let n) = v, n == n.rounded(), abs(n) < 9e15 else { throw fail("value compares with an integer") }
                return .categoryValue(c, Int(n))
            }
            return try ordered(make)
        case "workout":
            guard case .compare(.equal) = op else { throw OHKError(.invalidPredicate, "at offset \(keyOffset): workout takes == and a workout's UUID") }
            switch value {
            case .uuid(let u): return .workout(u)
            case .string(let s): if let u = UUID(uuidString: s) { return .workout(u) }
            default: break
            }
            throw fail("workout compares with a workout's UUID")
        case "workoutType":
            return try setMembership({ v -> UInt in
                switch v {
                case .string(let s): if let n = WorkoutActivityType.number(s) { return n }
                case .number(let n): if n >= 0, n < 1e6, n == n.rounded(), let t = WorkoutActivityType.number(String(UInt(n))) { return t }
                default: break
                }
                throw fail("workoutType compares with an HKWorkoutActivityType: a name (\"Running\") or its number")
            }, { .workoutType($0) })
        case _ where ElectrocardiogramField(rawValue: key) != nil:
            let field = ElectrocardiogramField(rawValue: key)!
            let names: [String: UInt8] = field == .classification
                ? Dictionary(uniqueKeysWithValues: Electrocardiogram.Classification.allCases.map { ("\($0)", $0.rawValue) })
                : Dictionary(uniqueKeysWithValues: Electrocardiogram.SymptomsStatus.allCases.map { ("\($0)", $0.rawValue) })
            return try setMembership({ v -> UInt8 in
                switch v {
                case .string(let s): if let n = names[s] { return n }
                case .number(let n): if let b = UInt8(exactly: n), names.values.contains(b) { return b }
                default: break
                }
                throw fail("\(key) compares with one of \(names.sorted { $0.value < $1.value }.map(\.key).joined(separator: ", ")) or its number")
            }, { .electrocardiogram(field, $0) })
        case "duration":
            let make: (Comparison, PredicateValue) throws -> SamplePredicate = { c, v in
                switch v {
                case .number(let n): return .workoutDuration(c, n)
                case .quantity(let n, let unit):
                    guard let seconds = try? unit.convert(n, to: try HealthUnit("s")) else { throw fail("duration compares with seconds or a time, like 30 min") }
                    return .workoutDuration(c, seconds)
                default: throw fail("duration compares with seconds or a time, like 30 min")
                }
            }
            return try ordered(make)
        case _ where WorkoutTotal(rawValue: key) != nil:
            let total = WorkoutTotal(rawValue: key)!
            let make: (Comparison, PredicateValue) throws -> SamplePredicate = { c, v in
                guard case .quantity(let n, let unit) = v else { throw fail("\(key) compares with a quantity and its unit, like 5 km") }
                return .workoutTotal(total, c, n, unit)
            }
            return try ordered(make)
        case _ where WorkoutStatistic.split(key: key) != nil:
            let (figure, name) = WorkoutStatistic.split(key: key)!
            guard let type = TypeCatalogue.lookup(name), type.isQuantity else {
                throw OHKError(.invalidPredicate, "at offset \(keyOffset): '\(name)' is not one of HealthKit's quantity types")
            }
            let make: (Comparison, PredicateValue) throws -> SamplePredicate = { c, v in
                guard case .quantity(let n, let unit) = v else { throw fail("\(key) compares with a quantity and its unit, like 5 km") }
                return .workoutStatistic(figure, type.identifier, c, n, unit)
            }
            return try ordered(make)
        default:
            if key.hasPrefix("device."), let field = Device.Field.allCases.first(where: { "device.\($0)" == key }) {
                return try setMembership(stringOrNil, { .device(field, allowed: $0) })
            }
            if key.hasPrefix("metadata.") {
                let k = String(key.dropFirst(9))
                if case .null = value, case .compare(let c) = op, c == .equal || c == .notEqual {
                    return c == .notEqual ? .metadataExists(k) : .not(.metadataExists(k))
                }
                let make: (Comparison, PredicateValue) throws -> SamplePredicate = { c, v in
                    switch v {
                    case .string(let s): return .metadata(k, c, .string(s))
                    case .number(let n): return .metadata(k, c, .number(n))
                    case .date(let d): return .metadata(k, c, .date(d))
                    case .bool(let b): return .metadata(k, c, .bool(b))
                    default: throw fail("metadata compares with a string, number, date or bool")
                    }
                }
                return try ordered(make)
            }
            throw OHKError(.invalidPredicate, "at offset \(keyOffset): unknown key path '\(key)' (startDate, endDate, UUID, source, device.<field>, metadata.<key>, quantity, value; for electrocardiograms ecgClassification, ecgSymptomsStatus; for workouts workout, workoutType, duration, totalDistance, totalEnergyBurned, totalSwimmingStrokeCount, totalFlightsClimbed, sumQuantity.<type>, minimumQuantity.<type>, maximumQuantity.<type>, averageQuantity.<type>)")
        }
    }
}
