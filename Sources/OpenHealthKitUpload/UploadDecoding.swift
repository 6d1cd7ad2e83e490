import FoundationEssentials
import OpenHealthKitCore

/// The body of `POST /v1/people/{person}/changes`: what a phone's
/// anchored query returned. Samples are the objects `ohk changes` prints
/// (`{"uuid", "type", "start", "end", "value", "unit", "source", …}`);
/// deletions are UUIDs, as text or as objects with a `uuid` (the deleted
/// objects `ohk changes` prints, whose other fields are not needed).
/// Read by `UploadReader`.
public struct UploadBody: Sendable {
    public var samples: [UploadedSample] = []
    public var deleted: [UploadedDeletion] = []

    init() {}
}

public struct UploadedDeletion: Sendable {
    public var uuid: String

    init(uuid: String) { self.uuid = uuid }
}

/// A metadata value: text, a number or a Boolean (a date travels as ISO
/// 8601 text, as `ohk changes` prints it, and is kept as text).
public enum UploadedMetadataValue: Decodable, Sendable {
    case string(String), number(Double), bool(Bool)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else { self = .string(try c.decode(String.self)) }
    }

    public var value: MetadataValue {
        switch self {
        case .string(let s): .string(s)
        case .number(let n): .number(n)
        case .bool(let b): .bool(b)
        }
    }
}

public struct UploadedSample: Sendable {
    public var uuid: String
    public var type: String
    public var start: String
    public var end: String
    public var value: Double?
    public var valueName: String?
    public var unit: String?
    public var source: String?
    public var sourceName: String?
    public var sourceVersion: String?
    public var creationDate: String?
    public var utcOffset: Int?
    public var device: [String: String]?
    public var metadata: [String: UploadedMetadataValue]?
    // The fields of the other kinds (UploadedKinds.swift).
    public var workout: UploadedWorkout?
    public var route: UploadedRoute?
    public var members: [String]?
    public var beats: [UploadedBeat]?
    public var sensitivityPoints: [UploadedAudiogramPoint]?
    public var electrocardiogram: UploadedElectrocardiogram?
    public var clinicalRecord: UploadedClinicalRecord?
}

/// What every uploaded sample has, checked, beside its kind's value.
struct Envelope {
    var uuid: UUID
    var start: Date, end: Date
    var source: Source
    var device: Device?
    var metadata: [String: MetadataValue]
    var creationDate: Date?
    var utcOffset: Int?
}

/// Turns a decoded upload into samples and UUIDs, naming the field of
/// each problem (`samples[3].unit`).
public enum UploadDecoding {
    /// The JSON body, or a 400 naming where it is wrong.
    public static func body(_ bytes: [UInt8]) throws(APIError) -> UploadBody {
        try UploadReader.body(bytes)
    }

    /// The samples, for `grant`: each type must be one it may write, and
    /// each source its own app unless it relays.
    public static func samples(_ body: UploadBody, grant: Grant, store: Store) throws(APIError) -> [Sample] {
        var out: [Sample] = []
        out.reserveCapacity(body.samples.count)
        var units: [String: HealthUnit] = [:]  // a batch names a few units many times
        for (i, u) in body.samples.enumerated() {
            out.append(try sample(u, at: "samples[\(i)]", grant: grant, store: store, units: &units))
        }
        return out
    }

    public static func deletions(_ body: UploadBody) throws(APIError) -> [UUID] {
        var out: [UUID] = []
        for (i, d) in body.deleted.enumerated() {
            guard let u = UploadDecoding.uuid(d.uuid) else {
                throw APIError(.badRequest, "'\(d.uuid)' is not a UUID", field: "deleted[\(i)]")
            }
            out.append(u)
        }
        return out
    }

    private static func sample(_ u: UploadedSample, at path: String, grant: Grant, store: Store,
                               units: inout [String: HealthUnit]) throws(APIError) -> Sample {
        guard let uuid = UploadDecoding.uuid(u.uuid) else {
            throw APIError(.badRequest, "'\(u.uuid)' is not a UUID", field: path + ".uuid")
        }
        let type: SampleType
        do { type = try store.sampleType(u.type) } catch {
            throw APIError(.badRequest, "unknown type '\(u.type)'", field: path + ".type")
        }
        guard grant.write.contains(type.identifier) else {
            throw APIError(.forbidden, "this token may not write \(type.identifier)", field: path + ".type")
        }
        let source: Source
        if let bundle = u.source, bundle != grant.app {
            guard grant.relay else {
                throw APIError(.forbidden, "this token writes as \(grant.app), not as \(bundle) (a --relay token may upload "
                               + "other sources' samples)", field: path + ".source")
            }
            source = Source(bundleIdentifier: bundle, name: u.sourceName ?? bundle, version: u.sourceVersion)
        } else {
            source = Source(bundleIdentifier: grant.app, name: u.sourceName ?? grant.app, version: u.sourceVersion)
        }
        let start = try date(u.start, path + ".start"), end = try date(u.end, path + ".end")
        let creation = try u.creationDate.map { text throws(APIError) in try date(text, path + ".creationDate") }
        var device: Device?
        if let fields = u.device {
            var d = Device()
            for (key, value) in fields {
                guard let field = Device.Field.allCases.first(where: { "\($0)" == key }) else {
                    throw APIError(.badRequest, "unknown device field '\(key)'", field: path + ".device")
                }
                d[field] = value
            }
            device = d
        }
        let e = Envelope(uuid: uuid, start: start, end: end, source: source, device: device,
                         metadata: (u.metadata ?? [:]).mapValues(\.value), creationDate: creation, utcOffset: u.utcOffset)
        do {
            switch type.kind {
            case .quantity:
                guard let value = u.value else { throw APIError(.badRequest, "a quantity sample needs a value", field: path + ".value") }
                guard let unitText = u.unit else {
                    throw APIError(.badRequest, "a quantity sample needs its unit (\(type.canonicalUnit?.description ?? "?"))",
                                   field: path + ".unit")
                }
                let unit: HealthUnit
                if let known = units[unitText] {
                    unit = known
                } else {
                    do { unit = try HealthUnit(unitText) } catch {
                        throw APIError(.badRequest, "'\(unitText)' is not a unit", field: path + ".unit")
                    }
                    units[unitText] = unit
                }
                return try Sample.quantity(type, value: value, unit: unit, start: start, end: end, source: source,
                                           device: device, metadata: e.metadata, uuid: uuid, creationDate: creation,
                                           utcOffset: u.utcOffset)
            case .category:
                let value: Int
                if let v = u.value {
                    guard v.isFinite, v == v.rounded(), abs(v) < 1e15 else {
                        throw APIError(.badRequest, "a category value is an integer", field: path + ".value")
                    }
                    value = Int(v)
                } else if let name = u.valueName, let v = type.categoryValue(named: name) {
                    value = v
                } else {
                    throw APIError(.badRequest, "a category sample needs a value (an integer) or a valueName", field: path + ".value")
                }
                return try Sample.category(type, value: value, start: start, end: end, source: source, device: device,
                                           metadata: e.metadata, uuid: uuid, creationDate: creation, utcOffset: u.utcOffset)
            default:
                return try kindSample(u, type, e, at: path, store: store)
            }
        } catch let e as APIError {
            throw e
        } catch {
            throw APIError(error, field: path)
        }
    }

    /// A UUID's text (either case), parsed by hand: `UUID(uuidString:)`
    /// went through `sscanf`, a tenth of an upload's time.
    static func uuid(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { b -> UUID? in
            guard b.count == 36 else { return nil }
            var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let ok = withUnsafeMutableBytes(of: &bytes) { out -> Bool in
                var i = 0
                for k in 0..<16 {
                    if k == 4 || k == 6 || k == 8 || k == 10 {
                        guard b[i] == UInt8(ascii: "-") else { return false }
                        i += 1
                    }
                    guard let hi = hex(b[i]), let lo = hex(b[i + 1]) else { return false }
                    out[k] = hi << 4 | lo
                    i += 2
                }
                return true
            }
            return ok ? UUID(uuid: bytes) : nil
        }
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - 48
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - 87
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - 55
        default: nil
        }
    }

    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, as Unix seconds
    /// (the C API's range of times).
    private static let years = -62_135_596_800.0 ... 253_402_300_799.0

    static func date(_ text: String, _ field: @autoclosure () -> String) throws(APIError) -> Date {
        guard let d = ISODate.parse(Substring(text)) else {
            throw APIError(.badRequest, "'\(text)' is not an ISO 8601 date-time with its offset (2024-03-01T08:00:00Z)", field: field())
        }
        guard years.contains(d.timeIntervalSince1970) else {
            throw APIError(.badRequest, "'\(text)' is outside the years 1 to 9999", field: field())
        }
        return d
    }

    /// A decoding error as a 400 naming the field (`samples[3].value`).
    public static func describe(_ e: DecodingError) -> APIError {
        func path(_ keys: [any CodingKey]) -> String {
            var out = ""
            for k in keys {
                if let i = k.intValue { out += "[\(i)]" } else { out += (out.isEmpty ? "" : ".") + k.stringValue }
            }
            return out
        }
        func field(_ keys: [any CodingKey]) -> String? { keys.isEmpty ? nil : path(keys) }
        switch e {
        case .typeMismatch(let t, let c):
            return APIError(.badRequest, c.codingPath.isEmpty ? "the body must be a JSON object with samples and deleted"
                                                              : "expected \(name(t))", field: field(c.codingPath))
        case .valueNotFound(let t, let c):
            return APIError(.badRequest, "expected \(name(t)), found null", field: field(c.codingPath))
        case .keyNotFound(let k, let c):
            return APIError(.badRequest, "missing field '\(k.stringValue)'", field: path(c.codingPath + [k]))
        case .dataCorrupted(let c):
            let p = path(c.codingPath)
            return APIError(.badRequest, p.isEmpty ? "the body is not valid JSON (\(c.debugDescription))"
                                                   : "invalid value (\(c.debugDescription))",
                            field: p.isEmpty ? nil : p)
        @unknown default:
            return APIError(.badRequest, "the body is not valid: \(e)")
        }
    }

    private static func name(_ t: Any.Type) -> String {
        switch t {
        case is Double.Type, is Int.Type: "a number"
        case is String.Type: "text"
        case is Bool.Type: "true or false"
        case is [String: Any].Type: "an object"
        case is [Any].Type: "a list"
        default: "\(t)"
        }
    }
}
