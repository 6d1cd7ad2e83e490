// openhealthkit.h section 70: Predicates
import COpenHealthKit
import FoundationEssentials
import OpenHealthKitCore

final class PredicateHandle: Handle, @unchecked Sendable {
    override class var kindName: String { "ohk_predicate" }
    let predicate: SamplePredicate
    init(_ p: SamplePredicate) { predicate = p }

    static func get(_ p: UnsafePointer<ohk_predicate>?, _ what: @autoclosure () -> String = "predicate") throws -> SamplePredicate {
        try Registry.get(p, PredicateHandle.self, what()).predicate
    }
}

/// Hands a new predicate to the caller.
private func make(_ out_predicate: UnsafeMutablePointer<UnsafeMutablePointer<ohk_predicate>?>?,
                  _ build: () throws -> SamplePredicate) -> Int32 {
    cCall {
        let result = try out(out_predicate, "out_predicate")
        let p = try build()
        try p.checkDepth()
        result.pointee = Registry.add(PredicateHandle(p))
    }
}

private func comparison(_ op: Int32) throws -> Comparison {
    switch Int(op) {
    case Int(OHK_CMP_EQUAL): return .equal
    case Int(OHK_CMP_NOT_EQUAL): return .notEqual
    case Int(OHK_CMP_LESS): return .lessThan
    case Int(OHK_CMP_LESS_EQUAL): return .lessThanOrEqual
    case Int(OHK_CMP_GREATER): return .greaterThan
    case Int(OHK_CMP_GREATER_EQUAL): return .greaterThanOrEqual
    default: throw CError(.invalidArgument, "op \(op) is not an OHK_CMP_ value")
    }
}

/// Parses predicate text (docs/predicates.md): key paths such as
/// startDate, quantity, source, metadata.<key>; operators; AND/OR/NOT;
/// $1...$n bound to args[0..arg_count) as typed values, so callers never
/// splice values into text. Example: "startDate >= $1 AND quantity > $2"
/// with a DATE and a QUANTITY. *out_predicate receives a predicate to free
/// with ohk_predicate_free. Returns OHK_OK; OHK_ERR_INVALID_PREDICATE with
/// the position and what was expected; OHK_ERR_INVALID_UNIT;
/// OHK_ERR_INVALID_ARGUMENT (NULL, bad UTF-8, bad ohk_value);
/// OHK_ERR_INVALID_VALUE. Any thread; never blocks.
@c public func ohk_predicate_parse(_ out_predicate: UnsafeMutablePointer<UnsafeMutablePointer<ohk_predicate>?>?,
                                   _ text: UnsafePointer<CChar>?,
                                   _ args: UnsafePointer<ohk_value>?, _ arg_count: UInt64) -> ohk_status {
    make(out_predicate) {
        let t = try string(text, "text")
        let values = try buffer(args, arg_count, "args").enumerated().map {
            try CValue.predicateValue($1, "args[\($0)]")
        }
        return try SamplePredicate(t, arguments: values)
    }
}

/// The predicate's canonical text, which parses back to an equal
/// predicate. *out_text is the caller's: free it with ohk_string_free.
/// Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT, OHK_ERR_CLOSED (a freed
/// predicate). Any thread.
@c public func ohk_predicate_to_text(_ out_text: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                     _ predicate: UnsafePointer<ohk_predicate>?) -> ohk_status {
    cCall {
        let result = try out(out_text, "out_text")
        result.pointee = ownedCString(try PredicateHandle.get(predicate).description)
    }
}

/// Frees a predicate. Queries that use it keep their own copy, so it may
/// be freed right after they start. NULL is ignored. Any thread.
@c public func ohk_predicate_free(_ predicate: UnsafeMutablePointer<ohk_predicate>?) {
    _ = Registry.remove(predicate, PredicateHandle.self)
}

/// HealthKit's predicateForSamples(withStart:end:options:): samples that
/// overlap [*start, *end) (NULL bound: open), or with
/// OHK_DATE_STRICT_START / OHK_DATE_STRICT_END, whose start / end is in
/// the same half-open [*start, *end) (HKQuery.h); with both, both.
/// Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT (unknown option bits),
/// OHK_ERR_INVALID_VALUE, OHK_ERR_INVALID_DATE_RANGE. Any thread.
@c public func ohk_predicate_date_range(_ out_predicate: UnsafeMutablePointer<UnsafeMutablePointer<ohk_predicate>?>?,
                                        _ start: UnsafePointer<Double>?, _ end: UnsafePointer<Double>?,
                                        _ options: ohk_date_options) -> ohk_status {
    make(out_predicate) {
        guard options & ~Int32(OHK_DATE_STRICT_START | OHK_DATE_STRICT_END) == 0 else {
            throw CError(.invalidArgument, "options \(options) has unknown bits")
        }
        return .dateRange(start: try start.map { try UnixTime.date($0.pointee, "start") },
                          end: try end.map { try UnixTime.date($0.pointee, "end") },
                          options: DateRangeOptions(rawValue: Int(options)))
    }
}

/// Objects whose UUID is one of `count` UUIDs (16 bytes each, packed).
/// Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT. Any thread.
@c public func ohk_predicate_uuids(_ out_predicate: UnsafeMutablePointer<UnsafeMutablePointer<ohk_predicate>?>?,
                                   _ uuids: UnsafePointer<UInt8>?, _ count: UInt64) -> ohk_status {
    make(out_predicate) {
        .uuids(Set(try UUIDBytes.array(uuids, count, "uuids")))
    }
}

/// The samples and routes associated with the workout whose UUID is the
/// 16 bytes at `workout` (HealthKit's predicateForObjects(from:), rule
/// 36), as of when a query reads: a live query gets those added later.
/// Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT. Any thread.
@c public func ohk_predicate_workout(_ out_predicate: UnsafeMutablePointer<UnsafeMutablePointer<ohk_predicate>?>?,
                                     _ workout: UnsafePointer<UInt8>?) -> ohk_status {
    make(out_predicate) {
        guard let workout else { throw CError(.invalidArgument, "workout is NULL") }
        return .workout(UUIDBytes.read(workout))
    }
}

/// Objects from one of `count` sources, by bundle identifier.
/// Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT. Any thread.
@c public func ohk_predicate_sources(_ out_predicate: UnsafeMutablePointer<UnsafeMutablePointer<ohk_predicate>?>?,
                                     _ bundle_identifiers: UnsafePointer<UnsafePointer<CChar>?>?,
                                     _ count: UInt64) -> ohk_status {
    make(out_predicate) {
        let ids = try buffer(bundle_identifiers, count, "bundle_identifiers")
        return .sources(Set(try ids.enumerated().map { try string($1, "bundle_identifiers[\($0)]") }))
    }
}

/// Samples that have metadata key `key`.
/// Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT. Any thread.
@c public func ohk_predicate_metadata_exists(_ out_predicate: UnsafeMutablePointer<UnsafeMutablePointer<ohk_predicate>?>?,
                                             _ key: UnsafePointer<CChar>?) -> ohk_status {
    make(out_predicate) { .metadataExists(try string(key, "key")) }
}

/// Samples whose metadata `key` compares with `value` (STRING, NUMBER,
/// DATE or BOOL) by `op` (OHK_CMP_...). Returns OHK_OK,
/// OHK_ERR_INVALID_ARGUMENT, OHK_ERR_INVALID_METADATA, OHK_ERR_INVALID_VALUE.
@c public func ohk_predicate_metadata_compare(_ out_predicate: UnsafeMutablePointer<UnsafeMutablePointer<ohk_predicate>?>?,
                                              _ key: UnsafePointer<CChar>?, _ op: ohk_comparison,
                                              _ value: UnsafePointer<ohk_value>?) -> ohk_status {
    make(out_predicate) {
        let v = try out(UnsafeMutablePointer(mutating: value), "value").pointee
        return .metadata(try string(key, "key"), try comparison(op), try CValue.metadataValue(v, "value"))
    }
}

/// Quantity samples whose quantity compares with `value` in `unit` (any
/// unit of the type's dimension) by `op`. Returns OHK_OK,
/// OHK_ERR_INVALID_ARGUMENT, OHK_ERR_INVALID_UNIT, OHK_ERR_INVALID_VALUE.
@c public func ohk_predicate_quantity(_ out_predicate: UnsafeMutablePointer<UnsafeMutablePointer<ohk_predicate>?>?,
                                      _ op: ohk_comparison, _ value: Double, _ unit: UnsafePointer<CChar>?) -> ohk_status {
    make(out_predicate) {
        guard value.isFinite else { throw CError(.invalidValue, "value must be finite, got \(value)") }
        return .quantity(try comparison(op), value, try HealthUnit(try string(unit, "unit")))
    }
}

/// Category samples whose value compares with `value` by `op`.
/// Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT.
@c public func ohk_predicate_category_value(_ out_predicate: UnsafeMutablePointer<UnsafeMutablePointer<ohk_predicate>?>?,
                                            _ op: ohk_comparison, _ value: Int64) -> ohk_status {
    make(out_predicate) { .categoryValue(try comparison(op), Int(value)) }
}

/// The conjunction of `count` predicates (copied: free them when you like).
/// Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT, OHK_ERR_CLOSED (a freed one).
@c public func ohk_predicate_and(_ out_predicate: UnsafeMutablePointer<UnsafeMutablePointer<ohk_predicate>?>?,
                                 _ predicates: UnsafePointer<UnsafePointer<ohk_predicate>?>?, _ count: UInt64) -> ohk_status {
    make(out_predicate) { .and(try parts(predicates, count)) }
}

/// The disjunction of `count` predicates; see ohk_predicate_and.
@c public func ohk_predicate_or(_ out_predicate: UnsafeMutablePointer<UnsafeMutablePointer<ohk_predicate>?>?,
                                _ predicates: UnsafePointer<UnsafePointer<ohk_predicate>?>?, _ count: UInt64) -> ohk_status {
    make(out_predicate) { .or(try parts(predicates, count)) }
}

/// The negation of a predicate (copied). Returns OHK_OK,
/// OHK_ERR_INVALID_ARGUMENT, OHK_ERR_CLOSED; OHK_ERR_INVALID_PREDICATE when
/// the result would nest deeper than 128 levels (ohk_predicate_and and
/// ohk_predicate_or too).
@c public func ohk_predicate_not(_ out_predicate: UnsafeMutablePointer<UnsafeMutablePointer<ohk_predicate>?>?,
                                 _ predicate: UnsafePointer<ohk_predicate>?) -> ohk_status {
    make(out_predicate) { .not(try PredicateHandle.get(predicate)) }
}

private func parts(_ ps: UnsafePointer<UnsafePointer<ohk_predicate>?>?, _ count: UInt64) throws -> [SamplePredicate] {
    let b = try buffer(ps, count, "predicates")
    guard !b.isEmpty else { throw CError(.invalidArgument, "AND and OR need at least one predicate") }
    return try b.enumerated().map { try PredicateHandle.get($1, "predicates[\($0)]") }
}
