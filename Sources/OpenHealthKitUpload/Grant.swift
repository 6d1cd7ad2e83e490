import OpenHealthKitCore

/// The types a token may read or write: every type, or these identifiers.
public enum TypeSet: Equatable, Sendable, Codable, CustomStringConvertible {
    case all
    case only(Set<String>)

    /// `all`, nothing for an empty text, or comma-separated types, each a
    /// HealthKit identifier, its short name (`StepCount`) or a custom
    /// type's identifier (reverse DNS, `org.example.mood`).
    public static func parse(_ text: String) throws -> TypeSet {
        if text == "all" { return .all }
        var ids: Set<String> = []
        for part in text.split(separator: ",") {
            let name = String(part.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
            if let t = try? SampleType.named(name) {
                ids.insert(t.identifier)
            } else if name.contains(".") && !name.hasPrefix("HK") {
                ids.insert(name)
            } else {
                throw OHKError(.unknownType, "'\(name)' is not a HealthKit type nor a custom type's identifier")
            }
        }
        return .only(ids)
    }

    public func contains(_ identifier: String) -> Bool {
        switch self {
        case .all: true
        case .only(let ids): ids.contains(identifier)
        }
    }

    public var isEmpty: Bool { self == .only([]) }

    public var description: String {
        switch self {
        case .all: "all"
        case .only(let ids): ids.isEmpty ? "none" : ids.sorted().joined(separator: ",")
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let text = try? c.decode(String.self), text == "all" {
            self = .all
        } else {
            self = .only(Set(try c.decode([String].self)))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .all: try c.encode("all")
        case .only(let ids): try c.encode(ids.sorted())
        }
    }
}

/// What a token lets its holder do, after HealthKit's authorization: one
/// app (a bundle identifier) of one person, per type, to read or to share
/// (write). A relay token may upload samples of any source, as a phone's
/// sync app uploads the whole HealthKit store.
public struct Grant: Equatable, Sendable, Codable {
    public var person: String
    public var app: String
    public var read: TypeSet
    public var write: TypeSet
    public var relay: Bool

    public init(person: String, app: String, read: TypeSet, write: TypeSet, relay: Bool) {
        self.person = person
        self.app = app
        self.read = read
        self.write = write
        self.relay = relay
    }
}
