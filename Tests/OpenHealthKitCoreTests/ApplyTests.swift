import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// Rule 63: a receiver's batch, samples then deletions, in one transaction.
@Suite struct ApplyTests {
    @Test func rule63_aBatchIsAppliedOnceAndSendingItAgainChangesNothing() throws {
        let store = try makeStore()
        defer { store.close() }
        let a = try stepSample(1)
        try store.save([a])
        let batch = try [stepSample(2, minute: 1), stepSample(3, minute: 2), stepSample(4, minute: 3, metadata: synced("s1", 1))]
        let first = try store.apply(samples: batch, deletions: [a.uuid])
        #expect(first.added == 3 && first.deleted == 1 && first.alreadyStored == 0)
        #expect(first.anchor == (try store.currentAnchor()))
        let again = try store.apply(samples: batch, deletions: [a.uuid, a.uuid])
        #expect(again.added == 0 && again.alreadyStored == 3 && again.alreadyDeleted == 1 && again.deleted == 0)
        #expect(again.anchor.position == first.anchor.position)  // nothing written
        let live = try store.anchoredQuery(type: steps, anchor: nil)
        #expect(Set(live.sampleUUIDs) == Set(batch.map(\.uuid)) && live.deletedUUIDs == [a.uuid])

        // A higher sync version replaces; the same one again is an older version.
        let newer = try stepSample(5, minute: 3, metadata: synced("s1", 2))
        let replaced = try store.apply(samples: [newer], deletions: [])
        #expect(replaced.added == 1 && replaced.replaced == 1)
        #expect(try store.apply(samples: [try stepSample(6, minute: 4, metadata: synced("s1", 2))], deletions: []).olderVersions == 1)
        // A sample read back from the store is the same content.
        let readBack = try store.anchoredQuery(type: steps, anchor: nil).samples.map { $0 }
        #expect(try store.apply(samples: readBack, deletions: []).alreadyStored == readBack.count)
    }

    @Test func rule63_aDeletionThatComesBeforeItsSampleWins() throws {
        let store = try makeStore()
        defer { store.close() }
        let late = try stepSample(7)
        let early = try store.apply(samples: [], deletions: [late.uuid])
        #expect(early.deletedBeforeArrival == 1)
        let arrival = try store.apply(samples: [late, try stepSample(8, minute: 1)], deletions: [])
        #expect(arrival.deletedBefore == 1 && arrival.added == 1)
        #expect(!(try store.anchoredQuery(type: steps, anchor: nil).sampleUUIDs.contains(late.uuid)))
        #expect(try store.apply(samples: [], deletions: [late.uuid]).alreadyDeleted == 1)
        // A sample deleted in the store is not brought back by a late upload either.
        let gone = try stepSample(9, minute: 2)
        try store.save([gone])
        try store.delete(uuids: [gone.uuid])
        #expect(try store.apply(samples: [gone], deletions: []).deletedBefore == 1)
        // Pruning forgets early deletions too: then the sample is saved.
        #expect(try store.pruneAll() == 1)
        #expect(try store.apply(samples: [late], deletions: []).added == 1)
    }

    @Test func rule63_contentUUIDsCountAStoredUUIDAsStoredWhateverItsVersion() throws {
        let store = try makeStore()
        defer { store.close() }
        let u = UUID()
        let first = try stepSample(10, metadata: synced("bucket", 1), uuid: u)
        #expect(try store.apply(samples: [first], deletions: []).added == 1)
        // Sent again later: the same content UUID, a newer arrival version.
        let again = try stepSample(10, metadata: synced("bucket", 2), uuid: u)
        #expect(throws: OHKError.self) { try store.apply(samples: [again], deletions: []) }
        let outcome = try store.apply(samples: [again], deletions: [], uuidsNameContent: true)
        #expect(outcome.alreadyStored == 1 && outcome.added == 0)
        // The bucket grown (another value, so another UUID) replaces it.
        let grown = try stepSample(12, metadata: synced("bucket", 3))
        let replaced = try store.apply(samples: [grown], deletions: [], uuidsNameContent: true)
        #expect(replaced.added == 1 && replaced.replaced == 1)
        #expect(try store.anchoredQuery(type: steps, anchor: nil).sampleUUIDs == [grown.uuid])
    }

    @Test func rule63_otherContentUnderAStoredUUIDFailsTheWholeBatch() throws {
        let store = try makeStore()
        defer { store.close() }
        let stored = try stepSample(10)
        try store.save([stored])
        let before = try store.currentAnchor()
        let changed = try stepSample(11, uuid: stored.uuid)  // another value
        let other = try stepSample(12, minute: 5)
        let e = try #require(throws: OHKError.self) { try store.apply(samples: [other, changed], deletions: []) }
        #expect(e.code == .duplicateUUID && e.message.contains(stored.uuid.uuidString) && e.message.contains("samples[1]"))
        #expect(try store.currentAnchor() == before)  // all or nothing
        let twice = try #require(throws: OHKError.self) { try store.apply(samples: [other, other], deletions: []) }
        #expect(twice.code == .invalidArgument && twice.message.contains("twice"))
        let bad = try #require(throws: OHKError.self) {
            try store.apply(samples: [Sample(uuid: UUID(), type: steps, startDate: t0, endDate: t0.addingTimeInterval(-1),
                                             value: .quantity(1), source: appA, device: nil, metadata: [:],
                                             creationDate: nil, utcOffset: nil)], deletions: [])
        }
        #expect(bad.code == .invalidDateRange && bad.message.hasPrefix("samples[0]"))
    }

    /// A format-15 store opens as format 16 with no early deletions, and
    /// keeps them from then on.
    @Test func rule63_aFormat15StoreIsUpgradedOnOpen() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        try store.save([try stepSample(1)])
        try store.env.write { txn in
            try txn.drop(store.trees.earlyDeletions)
            try txn.setMetaU64(store.trees, .format, 15)
        }
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .format) } == UInt64(Schema.format))
        let late = try stepSample(2, minute: 1)
        #expect(try store.apply(samples: [], deletions: [late.uuid]).deletedBeforeArrival == 1)
        #expect(try store.apply(samples: [late], deletions: []).deletedBefore == 1)
        #expect(try store.verify().problems == [])
    }
}
