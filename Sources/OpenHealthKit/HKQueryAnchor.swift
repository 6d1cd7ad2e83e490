import Foundation
import OpenHealthKitCore

/// Where an anchored query stopped: pass it to the next query to get only
/// what changed since. Opaque, immutable, and archivable
/// (`NSKeyedArchiver`), so it can be kept between runs of a program.
public final class HKQueryAnchor: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    let core: QueryAnchor

    init(_ core: QueryAnchor) {
        self.core = core
        super.init()
    }

    /// HealthKit's integer anchor: a position in the store's change order,
    /// valid for any store; 0 is the beginning, like a nil anchor.
    public convenience init(fromValue value: Int) {
        self.init(QueryAnchor(fromValue: value))
    }

    public static var supportsSecureCoding: Bool { true }
    private static let key = "OHKAnchor"

    public func encode(with coder: NSCoder) {
        coder.encode(Data(core.bytes) as NSData, forKey: Self.key)
    }

    /// Reads an archived anchor; damaged bytes fail the decoding (nil)
    /// rather than give an anchor that would mislead a query.
    public init?(coder: NSCoder) {
        guard let data = coder.decodeObject(of: NSData.self, forKey: Self.key),
              let core = try? QueryAnchor(bytes: Array(data as Data)) else { return nil }
        self.core = core
        super.init()
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override var description: String { "HKQueryAnchor(\(core.position))" }
    public override var hash: Int { core.hashValue }
    public override func isEqual(_ object: Any?) -> Bool { (object as? HKQueryAnchor)?.core == core }
}
