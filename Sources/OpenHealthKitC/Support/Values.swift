import COpenHealthKit
import FoundationEssentials
import OpenHealthKitCore

/// ohk_value → the core's typed values, refusing what C can get wrong:
/// unknown kinds, NaN, bad UTF-8, lists too deep.
enum CValue {
    static func predicateValue(_ v: ohk_value, _ what: @autoclosure () -> String, depth: Int = 0) throws -> PredicateValue {
        switch Int(v.kind) {
        case Int(OHK_VALUE_NULL): return .null
        case Int(OHK_VALUE_STRING): return .string(try string(v.string, "\(what()).string"))
        case Int(OHK_VALUE_NUMBER): return .number(try finite(v.number, what()))
        case Int(OHK_VALUE_DATE): return .date(try UnixTime.date(v.number, what()))
        case Int(OHK_VALUE_BOOL): return .bool(try bool(v.number, what()))
        case Int(OHK_VALUE_UUID): return .uuid(UUID(uuid: v.uuid))
        case Int(OHK_VALUE_QUANTITY):
            return .quantity(try finite(v.number, what()), try HealthUnit(try string(v.string, "\(what()).string (unit)")))
        case Int(OHK_VALUE_LIST):
            guard depth == 0 else { throw CError(.invalidArgument, "\(what()): lists do not nest") }
            let items = try buffer(v.items, v.count, "\(what()).items")
            return .list(try items.enumerated().map { try predicateValue($1, "\(what()).items[\($0)]", depth: 1) })
        default:
            throw CError(.invalidArgument, "\(what()).kind \(v.kind) is not an OHK_VALUE_ kind")
        }
    }

    static func metadataValue(_ v: ohk_value, _ what: @autoclosure () -> String) throws -> MetadataValue {
        switch Int(v.kind) {
        case Int(OHK_VALUE_STRING): return .string(try string(v.string, "\(what()).string"))
        case Int(OHK_VALUE_NUMBER): return .number(try finite(v.number, what()))
        case Int(OHK_VALUE_DATE): return .date(try UnixTime.date(v.number, what()))
        case Int(OHK_VALUE_BOOL): return .bool(try bool(v.number, what()))
        default:
            throw CError(.invalidMetadata, "\(what()): a metadata value is a STRING, NUMBER, DATE or BOOL, not kind \(v.kind)")
        }
    }

    /// A metadata value for C; its string is kept alive by `strings`.
    static func make(_ m: MetadataValue, strings: inout CStringArena) -> ohk_value {
        var v = ohk_value()
        switch m {
        case .string(let s): v.kind = Int32(OHK_VALUE_STRING); v.string = strings.add(s)
        case .number(let n): v.kind = Int32(OHK_VALUE_NUMBER); v.number = n
        case .date(let d): v.kind = Int32(OHK_VALUE_DATE); v.number = UnixTime.seconds(d)
        case .bool(let b): v.kind = Int32(OHK_VALUE_BOOL); v.number = b ? 1 : 0
        }
        return v
    }

    private static func finite(_ x: Double, _ what: @autoclosure () -> String) throws -> Double {
        guard x.isFinite else { throw CError(.invalidValue, "\(what()) must be finite, got \(x)") }
        return x
    }

    private static func bool(_ x: Double, _ what: @autoclosure () -> String) throws -> Bool {
        guard x == 0 || x == 1 else { throw CError(.invalidValue, "\(what()): a BOOL's number is 0 or 1, got \(x)") }
        return x == 1
    }
}

/// C strings owned by one object (a batch), freed with it.
struct CStringArena {
    private(set) var pointers: [UnsafeMutablePointer<CChar>] = []

    mutating func add(_ s: String) -> UnsafePointer<CChar> {
        let p = ownedCString(s)
        pointers.append(p)
        return UnsafePointer(p)
    }

    mutating func add(_ s: String?) -> UnsafePointer<CChar>? { s.map { add($0) } }

    func freeAll() { for p in pointers { ohk_string_free(p) } }
}
