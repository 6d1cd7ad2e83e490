import FoundationEssentials
import OpenHealthKitCore

/// Reads the body of `POST …/changes` (`UploadBody`) with `JSONReader`:
/// what every sample has field by field, and the fields of the other
/// kinds (`workout`, `route`…, rare and nested) through `JSONDecoder`
/// over their own bytes. Each problem is a 400 naming its field
/// (`samples[3].value`); text that is not JSON names none.
enum UploadReader {
    typealias Failure = JSONReader.Failure

    static func body(_ bytes: [UInt8]) throws(APIError) -> UploadBody {
        do {
            return try bytes.withUnsafeBufferPointer { buffer throws(Failure) in
                var r = JSONReader(buffer)
                var body = UploadBody()
                guard try r.kind() == .object else {
                    throw Failure(syntax: false, message: "the body must be a JSON object with samples and deleted")
                }
                try r.object { (r: inout JSONReader, key: String) throws(Failure) in
                    switch key {
                    case "samples":
                        if try r.null() { return }
                        body.samples = try JSONReader.within("samples") { () throws(Failure) in try samples(&r) }
                    case "deleted":
                        if try r.null() { return }
                        body.deleted = try JSONReader.within("deleted") { () throws(Failure) in try deletions(&r) }
                    default:
                        try r.skip()
                    }
                }
                try r.end()
                return body
            }
        } catch {
            throw APIError(.badRequest, error.message, field: error.syntax ? nil : error.field)
        }
    }

    private static func samples(_ r: inout JSONReader) throws(Failure) -> [UploadedSample] {
        var out: [UploadedSample] = []
        try r.array { (r: inout JSONReader, i: Int) throws(Failure) in
            out.append(try JSONReader.within("[\(i)]") { () throws(Failure) in try sample(&r) })
        }
        return out
    }

    private static func deletions(_ r: inout JSONReader) throws(Failure) -> [UploadedDeletion] {
        var out: [UploadedDeletion] = []
        try r.array { (r: inout JSONReader, i: Int) throws(Failure) in
            try JSONReader.within("[\(i)]") { () throws(Failure) in
                // A UUID as text, or an object with one (a deleted object as printed).
                if try r.kind() == .string {
                    out.append(UploadedDeletion(uuid: try r.string()))
                    return
                }
                var uuid: String?
                try r.object { (r: inout JSONReader, key: String) throws(Failure) in
                    if key == "uuid" {
                        uuid = try JSONReader.within(".uuid") { () throws(Failure) in try r.string() }
                    } else {
                        try r.skip()
                    }
                }
                guard let uuid else { throw Failure(syntax: false, message: "missing field 'uuid'", path: [".uuid"]) }
                out.append(UploadedDeletion(uuid: uuid))
            }
        }
        return out
    }

    private static func sample(_ r: inout JSONReader) throws(Failure) -> UploadedSample {
        var s = UploadedSample(uuid: "", type: "", start: "", end: "")
        var seen = 0  // bits of the required fields: uuid, type, start, end
        try r.object { (r: inout JSONReader, key: String) throws(Failure) in
            try JSONReader.within("." + key) { () throws(Failure) in try member(&r, key, &s, &seen) }
        }
        for (bit, name) in [(1, "uuid"), (2, "type"), (4, "start"), (8, "end")] where seen & bit == 0 {
            throw Failure(syntax: false, message: "missing field '\(name)'", path: ["." + name])
        }
        return s
    }

    private static func member(_ r: inout JSONReader, _ key: String, _ s: inout UploadedSample,
                               _ seen: inout Int) throws(Failure) {
        switch key {
        case "uuid": s.uuid = try r.string(); seen |= 1
        case "type": s.type = try r.string(); seen |= 2
        case "start": s.start = try r.string(); seen |= 4
        case "end": s.end = try r.string(); seen |= 8
        default:
            if try r.null() { return }  // an optional field given as null is absent
            switch key {
            case "value": s.value = try r.number()
            case "valueName": s.valueName = try r.string()
            case "unit": s.unit = try r.string()
            case "source": s.source = try r.string()
            case "sourceName": s.sourceName = try r.string()
            case "sourceVersion": s.sourceVersion = try r.string()
            case "creationDate": s.creationDate = try r.string()
            case "utcOffset":
                let v = try r.number()
                guard v == v.rounded(), abs(v) < 1e15 else {
                    throw Failure(syntax: false, message: "expected an integer (seconds east of UTC), found \(v)")
                }
                s.utcOffset = Int(v)
            case "device":
                var d: [String: String] = [:]
                try r.object { (r: inout JSONReader, k: String) throws(Failure) in
                    if try r.null() { return }
                    d[k] = try JSONReader.within("." + k) { () throws(Failure) in try r.string() }
                }
                s.device = d
            case "metadata":
                var m: [String: UploadedMetadataValue] = [:]
                try r.object { (r: inout JSONReader, k: String) throws(Failure) in
                    m[k] = try JSONReader.within("." + k) { () throws(Failure) in try metadataValue(&r) }
                }
                s.metadata = m
            case "members":
                var members: [String] = []
                try r.array { (r: inout JSONReader, i: Int) throws(Failure) in
                    members.append(try JSONReader.within("[\(i)]") { () throws(Failure) in try r.string() })
                }
                s.members = members
            case "workout": s.workout = try decoded(&r)
            case "route": s.route = try decoded(&r)
            case "beats": s.beats = try decoded(&r)
            case "sensitivityPoints": s.sensitivityPoints = try decoded(&r)
            case "electrocardiogram": s.electrocardiogram = try decoded(&r)
            case "clinicalRecord": s.clinicalRecord = try decoded(&r)
            default: try r.skip()
            }
        }
    }

    private static func metadataValue(_ r: inout JSONReader) throws(Failure) -> UploadedMetadataValue {
        switch try r.kind() {
        case .string: return .string(try r.string())
        case .number: return .number(try r.number())
        case .bool: return .bool(try r.bool())
        case let k: throw JSONReader.expected("text, a number, or true or false", found: k)
        }
    }

    /// A nested value of a rarer kind, through `JSONDecoder` over its own
    /// bytes; a failure names the field within it.
    private static func decoded<T: Decodable>(_ r: inout JSONReader) throws(Failure) -> T {
        let start = r.index
        try r.skip()
        do {
            return try JSONDecoder().decode(T.self, from: Data(UnsafeBufferPointer(rebasing: r.bytes[start..<r.index])))
        } catch let e as DecodingError {
            let inner = UploadDecoding.describe(e)
            let path = inner.field.map { $0.hasPrefix("[") ? $0 : "." + $0 }
            throw Failure(syntax: false, message: inner.message, path: path.map { [$0] } ?? [])
        } catch {
            throw Failure(syntax: false, message: "\(error)")
        }
    }
}
