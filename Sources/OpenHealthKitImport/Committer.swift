import Dispatch
import OpenHealthKitCore

/// Saves the importer's batches on a thread of its own, one at a time and
/// in order, while the importing thread maps the next batch. On two cores
/// reading, mapping and saving then share both; saving after mapping on
/// one thread left the reader's core idle a third of the time.
final class Committer: @unchecked Sendable {
    /// A batch: the samples, with what the report counts of each.
    struct Batch: Sendable {
        var samples: [Sample] = []
        /// The export's text of each sample's unit (for the report's tally).
        var units: [String] = []
        /// Whether each sample is a correlation's member.
        var isMember: [Bool] = []

        init(capacity: Int = 0) {
            samples.reserveCapacity(capacity)
            units.reserveCapacity(capacity)
            isMember.reserveCapacity(capacity)
        }

        /// Empties the batch, keeping its buffers (a sample is about 260
        /// bytes: grown by doubling, a fresh batch of 20,000 would reach
        /// 8 MB more than it holds, twice while one is saved).
        mutating func removeAll() {
            samples.removeAll(keepingCapacity: true)
            units.removeAll(keepingCapacity: true)
            isMember.removeAll(keepingCapacity: true)
        }
    }

    private let store: Store
    private let batches = Handoff<Batch?>(capacity: 1)
    private let results = Handoff<(Batch, Result<[SaveOutcome?], any Error>)>(capacity: 1)
    /// The samples handed over whose outcomes were not taken yet.
    private(set) var inFlight = 0
    private var stopped = false

    init(store: Store) {
        self.store = store
        // A queue of its own, not the global pool's: a thread that blocks
        // must not hold one of the pool's few threads.
        DispatchQueue(label: "openhealthkit.import.commit").async { [self] in run() }
    }

    private func run() {
        while let batch = batches.take() {
            // The mappers made them with the validating constructors.
            let result = Result { try store.saveNew(constructed: batch.samples) }
            // The store's pages read so far need not stay resident: each
            // batch starts with none (the refaults cost nothing measurable).
            try? store.releaseMappedPages()
            results.put((batch, result))
        }
    }

    /// Hands `batch` over; the previous one's outcome must have been taken.
    func submit(_ batch: Batch) {
        precondition(inFlight == 0 && !stopped, "one batch at a time")
        inFlight = batch.samples.count
        batches.put(batch)
    }

    /// Waits for the batch handed over and returns it with its outcomes
    /// (or the save's error); nil when none is in flight.
    func outcome() -> (Batch, Result<[SaveOutcome?], any Error>)? {
        guard inFlight > 0 else { return nil }
        inFlight = 0
        return results.take()
    }

    /// Waits for the batch in flight, whatever its outcome, and ends the
    /// thread. Call once, on every way out of an import.
    func stop() {
        guard !stopped else { return }
        _ = outcome()
        stopped = true
        batches.put(nil)
    }
}
