import Foundation
import OpenHealthKitCore

// HKUpdateFrequency's cases are generated (api/enums.toml): HealthKit's
// raw values, one more than the core's.
extension HKUpdateFrequency {
    var core: DeliveryFrequency {
        switch self {
        case .immediate: .immediate
        case .hourly: .hourly
        case .daily: .daily
        case .weekly: .weekly
        }
    }
}

/// Background delivery, as durable subscriptions (rule 11).
///
/// On iOS, HealthKit launches an app in the background when a type it
/// enabled background delivery for changes, and the app's observer query
/// runs; until the observer calls its completion handler, HealthKit tries
/// again. On Linux there is no app to launch: enabling background
/// delivery records a durable subscription, in the store, for this program
/// (its `HKSource.default()` bundle identifier) and the type. While the
/// program runs, an `HKObserverQuery` of that type (one descriptor, no
/// predicate) is driven by it: each call's completion handler
/// acknowledges what the call reported, durably; a call not completed
/// comes again after a back-off (1 s, doubling to 5 minutes), and after a
/// restart, whose first call carries what changed while the program was
/// not running. The frequency bounds how often calls come.
extension HKHealthStore {
    /// The subscription's name for this program and a type.
    static func backgroundDeliveryName(_ identifier: String) -> String {
        "HKBackgroundDelivery:\(HKSource.default().bundleIdentifier):\(identifier)"
    }

    public func enableBackgroundDelivery(for type: HKObjectType, frequency: HKUpdateFrequency,
                                         withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        complete(completion) { () throws(HKError) in try self.enableNow(type, frequency) }
    }

    public func enableBackgroundDelivery(for type: HKObjectType, frequency: HKUpdateFrequency) async throws {
        try enableNow(type, frequency)
    }

    /// Succeeds when background delivery was not enabled, as HealthKit does.
    public func disableBackgroundDelivery(for type: HKObjectType,
                                          withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        complete(completion) { () throws(HKError) in try self.disableNow(type) }
    }

    public func disableBackgroundDelivery(for type: HKObjectType) async throws {
        try disableNow(type)
    }

    /// Disables this program's background delivery of every type.
    public func disableAllBackgroundDelivery(completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        complete(completion) { () throws(HKError) in try self.disableAllNow() }
    }

    public func disableAllBackgroundDelivery() async throws {
        try disableAllNow()
    }

    /// The frequency of this program's background delivery of `type`;
    /// nil when it is not enabled.
    func backgroundFrequency(_ type: SampleType) throws(HKError) -> DeliveryFrequency? {
        let name = Self.backgroundDeliveryName(type.identifier)
        return try hk { try core().subscriptions() }.first { $0.name == name }?.frequency
    }

    private func enableNow(_ type: HKObjectType, _ frequency: HKUpdateFrequency) throws(HKError) {
        let store = try core()
        guard let sampleType = type as? HKSampleType else { throw .invalid("\(type) has no samples to deliver") }
        let d = QueryDescriptor(type: try sampleType.resolve(in: store))
        try hk { try store.registerSubscription(named: Self.backgroundDeliveryName(type.identifier), descriptors: [d],
                                                frequency: frequency.core) }
    }

    private func disableNow(_ type: HKObjectType) throws(HKError) {
        let store = try core()
        let name = Self.backgroundDeliveryName(type.identifier)
        try hk {
            if try store.subscriptions().contains(where: { $0.name == name }) { try store.removeSubscription(named: name) }
        }
    }

    private func disableAllNow() throws(HKError) {
        let store = try core()
        let prefix = Self.backgroundDeliveryName("")
        try hk {
            for s in try store.subscriptions() where s.name.hasPrefix(prefix) { try store.removeSubscription(named: s.name) }
        }
    }
}
