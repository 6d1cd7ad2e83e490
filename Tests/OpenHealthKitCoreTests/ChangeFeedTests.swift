import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// The change feed (rule 60): every change of every type, in store order,
/// with its position.
@Suite struct ChangeFeedTests {
    /// Steps, sleep and a workout; one step deleted, one replaced by a
    /// higher sync version.
    private func history(_ store: Store) throws -> (deleted: Sample, replaced: Sample) {
        let first = try (0..<5).map { try stepSample(Double($0 + 1), minute: $0) }
        _ = try store.save(first)
        let night = try Sample.category(sleep, value: 1, start: t0, end: t0.addingTimeInterval(3600), source: appB)
        let walk = try Sample.workout(Workout(activityType: 52, duration: 1800), start: t0,
                                      end: t0.addingTimeInterval(1800), source: appA)
        let old = try stepSample(10, minute: 9, metadata: synced("s-1", 1))
        _ = try store.save([night, walk, old])
        try store.delete(uuids: [first[2].uuid])
        _ = try store.save([try stepSample(11, minute: 9, metadata: synced("s-1", 2))])
        return (first[2], old)
    }

    @Test func rule60_everyChangeOfEveryTypeInStoreOrderWithItsPosition() throws {
        let store = try makeStore()
        let (deleted, replaced) = try history(store)
        let all = try store.changes(after: nil)
        // Store order: positions rise, and the last is the head.
        #expect(all.positions == all.positions.sorted())
        #expect(Set(all.positions).count == all.count)
        #expect(all.positions.last == (try store.currentAnchor()).position)
        #expect(all.newAnchor.position == (try store.currentAnchor()).position)
        var saves: [UUID] = [], deletions: [UUID] = []
        all.forEach { c in
            if c.isDeletion { deletions.append(c.fields.uuid) } else { saves.append(c.fields.uuid) }
            #expect(c.isDeletion == (c.deletionTime != nil))
        }
        // What an anchored query of every type from the start returns.
        let types = Set(all.types)
        let reference = try store.anchoredQuery(types.map { QueryDescriptor(type: $0) }, anchor: nil)
        #expect(Set(saves) == Set(reference.samples.map(\.uuid)))
        #expect(Set(deletions) == Set(reference.deletedObjects.map(\.uuid)))
        // A save deleted since is there only as its deletion; a replaced one too.
        #expect(!saves.contains(deleted.uuid) && deletions.contains(deleted.uuid))
        #expect(!saves.contains(replaced.uuid) && deletions.contains(replaced.uuid))
        #expect(saves.count == 7 && deletions.count == 2)
        // Every kind comes back whole.
        let kinds = Set((0..<all.count).compactMap { all.sample(at: $0)?.type.kindName })
        #expect(kinds.count == 3)
    }

    @Test func rule60_limitedReadsContinueWhereTheyStopped() throws {
        let store = try makeStore()
        _ = try history(store)
        let whole = try store.changes(after: nil)
        var anchor: QueryAnchor? = nil
        var pieced: [UInt64] = []
        while true {
            let part = try store.changes(after: anchor, limit: 2)
            #expect(part.count <= 2)
            if part.count == 0 { break }
            pieced += part.positions
            #expect(part.newAnchor.position == part.positions.last)
            anchor = part.newAnchor
        }
        #expect(pieced == whole.positions)
        // From the head: nothing, and the same anchor.
        let none = try store.changes(after: whole.newAnchor)
        #expect(none.count == 0 && none.newAnchor.position == whole.newAnchor.position)
        // Later changes only.
        _ = try store.save([try stepSample(99, minute: 30)])
        let later = try store.changes(after: whole.newAnchor)
        #expect(later.count == 1 && later.positions[0] > whole.newAnchor.position)
        #expect(throws: OHKError.self) { try store.changes(after: nil, limit: -1) }
    }

    @Test func storedSampleTypesNamesEveryTypeHeldDeletedOnesIncluded() throws {
        let store = try makeStore()
        defer { store.close() }
        #expect(try store.storedSampleTypes().isEmpty)
        let mood = try store.registerCustomType("org.example.mood", kind: .category(values: ["low": 0, "high": 1]))
        let gone = try stepSample(1)
        try store.save([gone, try Sample.category(mood, value: 1, start: t0, end: t0, source: appA)])
        try store.delete(uuids: [gone.uuid])  // its type is still held: its deletion is a change to read
        #expect(Set(try store.storedSampleTypes().map(\.identifier)) == [steps.identifier, "org.example.mood"])
        #expect(Set(try store.storedSampleTypes().map(\.identifier))
                == Set(try store.counts().types.map(\.type.identifier)))
    }
}
