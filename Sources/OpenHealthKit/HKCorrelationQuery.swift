import Foundation
import OpenHealthKitCore

/// HKCorrelationQuery (rule 37): the correlations of one type that match
/// `predicate`, filtered on their members by `samplePredicates`. Each key
/// of `samplePredicates` is a member type the correlation must hold, and
/// every member of that type must match the key's predicate (`NSPredicate
/// (value: true)` accepts any); members of types that are not keys are
/// not looked at. The handler runs once, on a background queue, with the
/// correlations in the order they were saved.
public final class HKCorrelationQuery: HKQuery, @unchecked Sendable {
    public typealias CompletionHandler = @Sendable (HKCorrelationQuery, [HKCorrelation]?, (any Error)?) -> Void

    public let correlationType: HKCorrelationType
    public let samplePredicates: [HKSampleType: NSPredicate]?
    private let handler: CompletionHandler

    /// The correlations of `correlationType` that match `predicate` (nil:
    /// all) and whose members match `samplePredicates` (nil or empty: any).
    public init(type correlationType: HKCorrelationType, predicate: NSPredicate?,
                samplePredicates: [HKSampleType: NSPredicate]?, completion: @escaping CompletionHandler) {
        self.correlationType = correlationType
        self.samplePredicates = samplePredicates
        handler = completion
        super.init(descriptors: [HKQueryDescriptor(sampleType: correlationType, predicate: predicate)])
    }

    override func coreQuery(_ descriptors: [QueryDescriptor], on store: HKHealthStore) throws(HKError) -> LiveQuery? {
        let core = try store.core()
        var members: [QueryDescriptor] = []
        for (type, predicate) in samplePredicates ?? [:] {
            members.append(try HKQueryDescriptor.core(type, predicate, in: core))
        }
        // A fixed order, so that an error names the same type each run.
        members.sort { $0.type.identifier < $1.type.identifier }
        let handler = self.handler, correlation = descriptors[0]
        Self.answer({ store.conversion.samples(try core.correlationQuery(correlation, members: members), as: HKCorrelation.self) }) {
            handler(self, $0, $1)
        }
        return nil
    }

    override func refuse(_ error: HKError) {
        let handler = self.handler
        Self.onBackground { handler(self, nil, error) }
    }
}
