import FoundationEssentials

/// A canonical byte form of descriptors (types and predicates): equal
/// descriptors give equal bytes in every process (set members sorted), so
/// a stored subscription can tell whether it is reopened with the same
/// ones. One-way for now; the predicate text of issue 4 will be readable.
enum DescriptorCodec {
    static func encode(_ descriptors: [QueryDescriptor]) -> [UInt8] {
        var w = ByteWriter()
        w.u32(UInt32(descriptors.count))
        for d in descriptors {
            w.string(d.type.identifier)
            if let p = d.predicate {
                w.u8(1)
                encode(p, &w)
            } else {
                w.u8(0)
            }
        }
        return w.bytes
    }

    private static func encode(_ p: SamplePredicate, _ w: inout ByteWriter) {
        switch p {
        case .dateRange(let s, let e, let options):
            w.u8(1); date(s, &w); date(e, &w); w.u8(UInt8(options.rawValue))
        case .startDate(let c, let d):
            w.u8(2); comparison(c, &w); date(d, &w)
        case .endDate(let c, let d):
            w.u8(3); comparison(c, &w); date(d, &w)
        case .uuids(let set):
            w.u8(4); w.u32(UInt32(set.count))
            for u in set.map(\.uuidString).sorted() { w.string(u) }
        case .sources(let set):
            w.u8(5); w.u32(UInt32(set.count))
            for s in set.sorted() { w.string(s) }
        case .device(let field, let allowed):
            w.u8(6); w.u8(UInt8(field.rawValue)); optionalStrings(allowed, &w)
        case .metadataExists(let key):
            w.u8(7); w.string(key)
        case .metadata(let key, let c, let v):
            w.u8(8); w.string(key); comparison(c, &w)
            switch v {
            case .string(let s): w.u8(0); w.string(s)
            case .number(let n): w.u8(1); w.f64(n)
            case .date(let d): w.u8(2); w.f64(d.timeIntervalSinceReferenceDate)
            case .bool(let b): w.u8(3); w.u8(b ? 1 : 0)
            }
        case .quantity(let c, let v, let unit):
            w.u8(9); comparison(c, &w); w.f64(v); w.string(unit.description)
        case .categoryValue(let c, let v):
            w.u8(10); comparison(c, &w); w.u64(UInt64(bitPattern: Int64(v)))
        case .and(let ps):
            w.u8(11); w.u32(UInt32(ps.count)); for q in ps { encode(q, &w) }
        case .or(let ps):
            w.u8(12); w.u32(UInt32(ps.count)); for q in ps { encode(q, &w) }
        case .not(let q):
            w.u8(13); encode(q, &w)
        case .sourceVersions(let set):
            w.u8(14); optionalStrings(set, &w)
        case .text(let field, let match, let pattern):
            w.u8(15)
            switch field {
            case .source: w.u8(0)
            case .sourceVersion: w.u8(1)
            case .device(let f): w.u8(2); w.u8(UInt8(f.rawValue))
            case .metadata(let k): w.u8(3); w.string(k)
            }
            w.u8(UInt8(TextMatch.allCases.firstIndex(of: match)!))
            w.string(pattern)
        case .workout(let u):
            w.u8(16); w.string(u.uuidString)
        case .workoutType(let set):
            w.u8(17); w.u32(UInt32(set.count))
            for t in set.sorted() { w.u64(UInt64(t)) }
        case .workoutDuration(let c, let seconds):
            w.u8(18); comparison(c, &w); w.f64(seconds)
        case .workoutTotal(let total, let c, let v, let unit):
            w.u8(19); w.string(total.rawValue); comparison(c, &w); w.f64(v); w.string(unit.description)
        case .workoutStatistic(let figure, let type, let c, let v, let unit):
            w.u8(20); w.string(figure.rawValue); w.string(type); comparison(c, &w); w.f64(v); w.string(unit.description)
        case .workoutActivity(let q):
            w.u8(21); encode(q, &w)
        case .electrocardiogram(let field, let set):
            w.u8(22); w.u8(field == .classification ? 0 : 1); w.u32(UInt32(set.count))
            for v in set.sorted() { w.u8(v) }
        }
    }

    /// A set of optional strings in a fixed order: nil first, then the strings sorted.
    private static func optionalStrings(_ set: Set<String?>, _ w: inout ByteWriter) {
        w.u32(UInt32(set.count))
        for s in set.map({ $0.map { "v" + $0 } ?? "n" }).sorted() { w.string(s) }
    }

    private static func date(_ d: Date?, _ w: inout ByteWriter) {
        if let d { w.u8(1); w.f64(d.timeIntervalSinceReferenceDate) } else { w.u8(0) }
    }

    private static func comparison(_ c: Comparison, _ w: inout ByteWriter) {
        let code: UInt8 = switch c {
        case .lessThan: 0
        case .lessThanOrEqual: 1
        case .equal: 2
        case .notEqual: 3
        case .greaterThanOrEqual: 4
        case .greaterThan: 5
        }
        w.u8(code)
    }
}
