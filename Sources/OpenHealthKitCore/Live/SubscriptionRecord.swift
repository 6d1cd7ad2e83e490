import FoundationEssentials

// DeliveryFrequency's cases are generated (api/enums.toml).
extension DeliveryFrequency {
    var interval: Double {
        switch self {
        case .immediate: 0
        case .hourly: 3_600
        case .daily: 86_400
        case .weekly: 604_800
        }
    }
}

/// What `Store.subscriptions()` lists.
public struct SubscriptionInfo: Sendable, Equatable {
    public let name: String
    public let typeIdentifiers: [String]
    /// Everything up to here was acknowledged.
    public let acknowledged: QueryAnchor
    public let frequency: DeliveryFrequency
}

/// A durable subscription as stored in the `subs` tree.
struct SubscriptionRecord {
    var descriptors: [UInt8]
    var typeIdentifiers: [String]
    var acknowledged: UInt64
    var frequency: DeliveryFrequency
    /// When it last fired (reference-date seconds; 0: never).
    var lastFired: Double

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.u8(1)
        w.u32(UInt32(descriptors.count))
        w.bytes += descriptors
        w.u32(UInt32(typeIdentifiers.count))
        for t in typeIdentifiers { w.string(t) }
        w.u64(acknowledged)
        w.u8(frequency.rawValue)
        w.f64(lastFired)
        return w.bytes
    }

    init(descriptors: [UInt8], typeIdentifiers: [String], acknowledged: UInt64, frequency: DeliveryFrequency) {
        self.descriptors = descriptors
        self.typeIdentifiers = typeIdentifiers
        self.acknowledged = acknowledged
        self.frequency = frequency
        lastFired = 0
    }

    init(_ raw: UnsafeRawBufferPointer) throws {
        var r = ByteReader(raw)
        guard try r.u8() == 1 else { throw OHKError(.storage, "unknown subscription record version") }
        let n = Int(try r.u32())
        guard r.remaining >= n else { throw OHKError(.storage, "truncated subscription record") }
        descriptors = Array(UnsafeRawBufferPointer(rebasing: raw[r.offset..<r.offset + n]))
        r.offset += n
        typeIdentifiers = try (0..<Int(try r.u32())).map { _ in try r.string() }
        acknowledged = try r.u64()
        guard let f = DeliveryFrequency(rawValue: try r.u8()) else { throw OHKError(.storeCorrupt, "corrupt subscription frequency") }
        frequency = f
        lastFired = try r.f64()
    }
}
