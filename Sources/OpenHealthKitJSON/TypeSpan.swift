import FoundationEssentials
import OpenHealthKitCore

/// A type's first start, last end and source names, read from its samples.
package struct TypeSpan {
    package let first: Date
    package let last: Date
    package let sources: [String]

    package init?(_ type: SampleType, _ store: Store) throws {
        var first = Double.infinity, last = -Double.infinity
        var names: [UInt32: String] = [:]
        let batch = try store.anchoredQuery(type: type, anchor: nil).samples
        batch.forEach { f in
            first = Swift.min(first, f.startTime)
            last = Swift.max(last, f.endTime)
            if names[f.sourceID] == nil { names[f.sourceID] = f.source?.name ?? "?" }
        }
        guard first.isFinite else { return nil }
        self.first = Date(timeIntervalSinceReferenceDate: first)
        self.last = Date(timeIntervalSinceReferenceDate: last)
        sources = Array(Set(names.values)).sorted()
    }
}
