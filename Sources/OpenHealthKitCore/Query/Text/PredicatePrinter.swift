import FoundationEssentials

extension SamplePredicate: CustomStringConvertible {
    /// The canonical text: parses back to an equal predicate. Sets print
    /// sorted, nested AND / OR in parentheses, dates in UTC.
    public var description: String { PredicatePrinter.text(self) }
}

enum PredicatePrinter {
    static func text(_ p: SamplePredicate) -> String {
        switch p {
        case .and(let ps): return junction(ps, "AND", empty: "TRUEPREDICATE")
        case .or(let ps): return junction(ps, "OR", empty: "FALSEPREDICATE")
        case .not(let q): return "NOT (\(text(q)))"
        case .dateRange(let s, let e, let options):
            var parts = [s.map(ISODate.format) ?? "nil", e.map(ISODate.format) ?? "nil"]
            if options.contains(.strictStartDate) { parts.append("strictStartDate") }
            if options.contains(.strictEndDate) { parts.append("strictEndDate") }
            return "DATERANGE(\(parts.joined(separator: ", ")))"
        case .startDate(let c, let d): return "startDate \(symbol(c)) \(ISODate.format(d))"
        case .endDate(let c, let d): return "endDate \(symbol(c)) \(ISODate.format(d))"
        case .uuids(let set): return membership("UUID", set.map { quote($0.uuidString) })
        case .sources(let set): return membership("source", set.map(quote))
        case .sourceVersions(let set): return membership("sourceRevision.version", set.map { $0.map(quote) ?? "nil" })
        case .text(let field, let match, let pattern):
            let key: String = switch field {
            case .source: "source"
            case .sourceVersion: "sourceRevision.version"
            case .device(let f): "device.\(f)"
            case .metadata(let k): metadataKey(k)
            }
            let op: String = switch match {
            case .beginsWith: "BEGINSWITH"
            case .endsWith: "ENDSWITH"
            case .contains: "CONTAINS"
            }
            return "\(key) \(op) \(quote(pattern))"
        case .device(let field, let allowed): return membership("device.\(field)", allowed.map { $0.map(quote) ?? "nil" })
        case .metadataExists(let key): return "\(metadataKey(key)) != nil"
        case .metadata(let key, let c, let v):
            let value: String = switch v {
            case .string(let s): quote(s)
            case .number(let n): number(n)
            case .date(let d): ISODate.format(d)
            case .bool(let b): b ? "true" : "false"
            }
            return "\(metadataKey(key)) \(symbol(c)) \(value)"
        case .quantity(let c, let v, let unit): return "quantity \(symbol(c)) \(number(v)) \(unitText(unit))"
        case .categoryValue(let c, let v): return "value \(symbol(c)) \(v)"
        case .workout(let u): return "workout == \(quote(u.uuidString))"
        case .workoutType(let set):
            return membership("workoutType", set.map { quote(WorkoutActivityType.names[$0] ?? String($0)) })
        case .workoutDuration(let c, let seconds): return "duration \(symbol(c)) \(number(seconds))"
        case .workoutTotal(let total, let c, let v, let unit):
            return "\(total.rawValue) \(symbol(c)) \(number(v)) \(unitText(unit))"
        case .workoutStatistic(let figure, let type, let c, let v, let unit):
            let name = TypeCatalogue.standard[type].map(TypeCatalogue.shortName) ?? type
            return "\(figure.rawValue).\(name) \(symbol(c)) \(number(v)) \(unitText(unit))"
        case .workoutActivity(let q): return "ACTIVITY(\(text(q)))"
        case .electrocardiogram(let field, let set):
            return membership(field.rawValue, set.sorted().map { v in
                quote(field == .classification ? Electrocardiogram.Classification(rawValue: v).map { "\($0)" } ?? String(v)
                      : Electrocardiogram.SymptomsStatus(rawValue: v).map { "\($0)" } ?? String(v))
            })
        }
    }

    private static func junction(_ ps: [SamplePredicate], _ word: String, empty: String) -> String {
        switch ps.count {
        case 0: return empty
        case 1: return "\(word)(\(text(ps[0])))"
        default:
            return ps.map { p -> String in
                switch p {
                case .and(let x) where x.count >= 2, .or(let x) where x.count >= 2: "(\(text(p)))"
                default: text(p)
                }
            }.joined(separator: " \(word) ")
        }
    }

    /// `k == v` for one value, `k IN {…}` (sorted) otherwise.
    private static func membership(_ key: String, _ values: [String]) -> String {
        values.count == 1 ? "\(key) == \(values[0])" : "\(key) IN {\(values.sorted().joined(separator: ", "))}"
    }

    private static func symbol(_ c: Comparison) -> String {
        switch c {
        case .lessThan: "<"
        case .lessThanOrEqual: "<="
        case .equal: "=="
        case .notEqual: "!="
        case .greaterThanOrEqual: ">="
        case .greaterThan: ">"
        }
    }

    /// Swift's shortest form that reads back to the same Double.
    private static func number(_ n: Double) -> String { n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n) }

    /// `s` in double quotes, `\` and `"` escaped. By Unicode scalar, as
    /// the lexer reads: a backslash followed by a combining mark is one
    /// Character, which a Character comparison missed (found by fuzzing).
    static func quote(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        out.append("\"")
        for c in s.unicodeScalars {
            if c == "\\" || c == "\"" { out.append("\\") }
            out.append(c)
        }
        out.append("\"")
        return String(out)
    }

    private static func isWord(_ s: String) -> Bool {
        guard let first = s.utf8.first, !(48...57).contains(first) else { return false }
        return s.utf8.allSatisfy { ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 || $0 == 46 || $0 == 37 }
    }

    private static func metadataKey(_ k: String) -> String { isWord(k) ? "metadata.\(k)" : "metadata[\(quote(k))]" }

    /// A unit bare when the lexer reads it back as one word after the
    /// number (letters, digits, `.`, `%`, `/`, `^`, `*`, `·`), else quoted.
    private static func unitText(_ u: HealthUnit) -> String {
        let s = u.description
        guard let first = s.utf8.first, !(48...57).contains(first), first != 46, first != 47, first != 94, first != 42,
              !["AND", "OR"].contains(s.uppercased()) else { return quote(s) }
        var previous: UInt8 = 0
        for c in s.utf8 {
            let letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 0x80
            guard letter || (48...57).contains(c) || [95, 46, 37, 47, 94, 42].contains(c) || (c == 45 && previous == 94) else {
                return quote(s)
            }
            previous = c
        }
        return s
    }
}
