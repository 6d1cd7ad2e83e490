/// Any JSON value, read whole: a FHIR resource's few fields, the answers
/// of `ohk serve` to a sync. Read with `JSONReader`, so that the C library
/// needs no `JSONDecoder` (and none of the Foundation it brings).
package enum JSONValue: Equatable, Sendable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// Deeper nesting is refused, so that hostile text cannot exhaust the
    /// stack (JSONDecoder's bound, too).
    package static let maximumDepth = 512

    /// The one value `bytes` hold (white space around it allowed), or nil
    /// when they are not JSON.
    package static func read(_ bytes: [UInt8]) -> JSONValue? {
        bytes.withUnsafeBufferPointer { buffer -> JSONValue? in
            var r = JSONReader(buffer)
            do throws(JSONReader.Failure) {
                let v = try value(&r, depth: 0)
                try r.end()
                return v
            } catch {
                return nil
            }
        }
    }

    private static func value(_ r: inout JSONReader, depth: Int) throws(JSONReader.Failure) -> JSONValue {
        guard depth < maximumDepth else {
            throw JSONReader.Failure(syntax: true, message: "JSON nested deeper than \(maximumDepth)")
        }
        switch try r.kind() {
        case .object:
            var o: [String: JSONValue] = [:]
            try r.object { (r: inout JSONReader, key: String) throws(JSONReader.Failure) in
                o[key] = try value(&r, depth: depth + 1)
            }
            return .object(o)
        case .array:
            var a: [JSONValue] = []
            try r.array { (r: inout JSONReader, _: Int) throws(JSONReader.Failure) in
                a.append(try value(&r, depth: depth + 1))
            }
            return .array(a)
        case .string: return .string(try r.string())
        case .number: return .number(try r.number())
        case .bool: return .bool(try r.bool())
        case .null:
            _ = try r.null()
            return .null
        }
    }

    package subscript(key: String) -> JSONValue? { if case .object(let o) = self { o[key] } else { nil } }
    package var object: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }
    package var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    package var string: String? { if case .string(let s) = self { s } else { nil } }
    package var number: Double? { if case .number(let n) = self { n } else { nil } }
    /// A number that is a whole Int.
    package var int: Int? { number.flatMap { Int(exactly: $0) } }
}
