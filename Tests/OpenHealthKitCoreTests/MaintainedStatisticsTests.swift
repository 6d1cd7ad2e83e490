import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// The statistics each write transaction keeps (rule 34) against a plain
/// recomputation from the samples, after random histories of saves,
/// deletes, sync replacements, prunes and priority changes. A failure
/// names its seed.
@Suite struct MaintainedStatisticsTests {
    typealias Rng = TestSupport.Rng

    // 2024-03-01T00:00:00Z.
    private let midnight = 730_944_000.0
    private let sources = [
        Source(bundleIdentifier: "com.apple.health.watch", name: "Ann's Apple Watch"),
        Source(bundleIdentifier: "com.apple.health.phone", name: "Ann's iPhone"),
        Source(bundleIdentifier: "com.example.app", name: "An app"),
        Source(bundleIdentifier: "com.example.app", name: "An app", version: "2"),
    ]
    private let offsets: [Int?] = [nil, 3600, -18_000, 19_800]

    /// One random sample: a step count or a heart rate, an instant or up to
    /// three hours long, over three days, on whole seconds or not.
    private func sample(_ rng: inout Rng, sync: Int?) throws -> Sample {
        let heart = rng.chance(0.4)
        let start = midnight + Double(rng.int(72 * 60)) * 60 + (rng.chance(0.2) ? Double(rng.int(600)) / 10 : 0)
        let length = rng.chance(0.25) ? 0 : Double(rng.int(180 * 60) + 1)
        var metadata: [String: MetadataValue] = [:]
        if let sync {
            metadata[MetadataKey.syncIdentifier] = .string("s\(sync)")
            metadata[MetadataKey.syncVersion] = .number(Double(rng.int(1000)))
        }
        return try Sample.quantity(heart ? heartRate : steps, value: Double(rng.int(200) + 1),
                                   unit: HealthUnit(heart ? "count/min" : "count"),
                                   start: Date(timeIntervalSinceReferenceDate: start),
                                   end: Date(timeIntervalSinceReferenceDate: start + length),
                                   source: sources[rng.int(sources.count)], metadata: metadata,
                                   utcOffset: offsets[rng.int(offsets.count)])
    }

    /// Every figure of two collections, equal up to rounding.
    private func expectSame(_ kept: [Statistics], _ plain: [Statistics], _ what: String) {
        #expect(kept.count == plain.count, "\(what)")
        func close(_ a: Double?, _ b: Double?) -> Bool {
            guard let a, let b else { return a == nil && b == nil }
            return abs(a - b) <= 1e-9 * max(1, abs(a), abs(b))
        }
        func same(_ a: StatisticsValues, _ b: StatisticsValues) -> Bool {
            close(a.sum, b.sum) && close(a.average, b.average) && a.minimum == b.minimum && a.maximum == b.maximum
                && a.mostRecent == b.mostRecent && a.mostRecentStart == b.mostRecentStart
                && a.mostRecentEnd == b.mostRecentEnd && a.count == b.count
        }
        for (a, b) in zip(kept, plain) {
            #expect(a.startDate == b.startDate && a.endDate == b.endDate, "\(what)")
            #expect(same(a.values, b.values), "\(what) at \(a.startDate): \(a.values) vs \(b.values)")
            #expect(a.sources == b.sources, "\(what) at \(a.startDate)")
            #expect(Set(a.bySource.keys) == Set(b.bySource.keys)
                    && a.bySource.allSatisfy { k, v in same(v, b.bySource[k]!) }, "\(what) at \(a.startDate)")
        }
    }

    /// The queries compared: daily and hourly, in UTC and in other offsets.
    private func compare(_ store: Store, _ what: String, answered: inout Int) throws {
        let from = Date(timeIntervalSinceReferenceDate: midnight - 86_400)
        let to = Date(timeIntervalSinceReferenceDate: midnight + 4 * 86_400)
        let queries: [(SampleType, StatisticsOptions, StatisticsInterval, Int)] = [
            (steps, [.cumulativeSum, .mostRecent, .separateBySource], .day, 0),
            (steps, [.cumulativeSum], .day, 7200),
            (steps, [.cumulativeSum, .separateBySource], .hour, -18_000),
            (steps, [.cumulativeSum], StatisticsInterval(3, .hour), 19_800),
            (heartRate, [.discreteAverage, .discreteMin, .discreteMax, .mostRecent, .separateBySource], .hour, 0),
            (heartRate, [.discreteAverage, .discreteMax], .day, 3600),
        ]
        // Each query in one zone (the offset's) and in each sample's own offset.
        for (type, options, interval, offset) in queries {
            for sampleLocal in [false, true] {
                let anchor = Date(timeIntervalSinceReferenceDate: midnight - Double(offset))
                let local = try Store.edges(anchor: anchor, interval: interval, from: from, to: to, utcOffset: offset)
                let kept = try sampleLocal
                    ? store.maintainedCollection(type, options, edges: local, time: .local(utcOffset: offset))
                    : store.maintainedCollection(type, options, edges: local.map { $0 - Double(offset) }, time: .utc)
                store.tuning.statisticsFromSamples = true
                let plain = try store.statisticsCollection(type: type, options: sampleLocal ? options.union(.sampleLocalTime) : options,
                                                           anchor: anchor, interval: interval, from: from, to: to,
                                                           utcOffset: offset)
                store.tuning.statisticsFromSamples = false
                if let kept {
                    answered += 1
                    expectSame(kept, plain, "\(what): \(type.identifier) \(interval) at \(offset), local \(sampleLocal)")
                }
            }
        }
        // The span read at the start index's ends is the samples' own.
        for type in [steps, heartRate] {
            let span = try store.sampleSpan(of: type)
            let all = try store.statistics(type: type, options: .duration)
            #expect(span?.start == all?.startDate && span?.end == all?.endDate, "\(what): span of \(type.identifier)")
        }
    }

    @Test func rule34_maintainedFiguresMatchARecomputationAfterRandomHistories() throws {
        var answered = 0
        for seed in 1...6 as ClosedRange<UInt64> {
            var rng = Rng(state: seed)
            let store = try makeStore()
            defer { store.close() }
            for step in 0..<40 {
                switch rng.int(10) {
                case 0..<5:
                    let batch = try (0..<(rng.int(20) + 1)).map { _ in
                        try sample(&rng, sync: rng.chance(0.2) ? rng.int(6) : nil)
                    }
                    try store.save(batch)
                case 5..<7:
                    var current: [UUID] = []
                    for type in [steps, heartRate] {
                        let batch = try store.anchoredQuery(type: type, anchor: nil).samples
                        current += batch.indices.map { batch.uuid(at: $0) }
                    }
                    let victims = current.shuffled(using: &rng).prefix(rng.int(6) + 1)
                    if !victims.isEmpty { try store.delete(uuids: Array(victims)) }
                case 7:
                    let hour = Date(timeIntervalSinceReferenceDate: midnight + Double(rng.int(72)) * 3600)
                    try store.delete(type: steps, predicate: .dateRange(start: hour, end: hour.addingTimeInterval(3600),
                                                                       options: .strictStartDate))
                case 8:
                    try store.pruneAll()
                default:
                    let order = sources.map(\.bundleIdentifier).uniqued().shuffled(using: &rng)
                    try store.setSourcePriority(Array(order.prefix(rng.int(order.count + 1))), for: steps)
                }
                try compare(store, "seed \(seed) step \(step)", answered: &answered)
            }
            // Rebuilding from the samples changes no figure.
            try store.rebuildStatistics()
            try compare(store, "seed \(seed) after a rebuild", answered: &answered)
        }
        // Most queries are answered by the buckets, not handed back to the samples.
        #expect(answered > 6 * 41 * 3)
    }

    /// A daily step collection over the three days, from the buckets (nil
    /// when they cannot answer) and from the samples.
    private func daily(_ store: Store) throws -> (kept: [Statistics]?, plain: [Statistics]) {
        let from = Date(timeIntervalSinceReferenceDate: midnight), to = from.addingTimeInterval(3 * 86_400)
        let edges = try Store.edges(anchor: from, interval: .day, from: from, to: to, utcOffset: 0)
        let kept = try store.maintainedCollection(steps, .cumulativeSum, edges: edges, time: .local(utcOffset: 0))
        store.tuning.statisticsFromSamples = true
        defer { store.tuning.statisticsFromSamples = false }
        return (kept, try store.statisticsCollection(type: steps, options: [.cumulativeSum, .sampleLocalTime], anchor: from,
                                                     interval: .day, from: from, to: to))
    }

    /// Format 9 (rule 21): a format-8 store, which kept no statistics, gets
    /// them built from its samples when it is opened.
    @Test func aFormat8StoreGetsItsStatisticsBuiltWhenOpened() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        var rng = Rng(state: 8)
        try store.save((0..<200).map { _ in try sample(&rng, sync: nil) })
        try store.env.write { txn in
            for tree in [store.trees.statistics.buckets, store.trees.statistics.cover, store.trees.statistics.overlaps] {
                try txn.empty(tree)
            }
            _ = try txn.delete(store.trees.meta, Schema.MetaKey.statisticsHead.bytes)
            try txn.setMetaU64(store.trees, .format, 8)
        }
        #expect(try daily(store).kept == nil)  // the buckets no longer hold the last change
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .format) } == UInt64(Schema.format))
        let (kept, plain) = try daily(store)
        expectSame(try #require(kept), plain, "after the upgrade")
        #expect(plain.contains { ($0.sum ?? 0) > 0 })
    }

    /// What a format-17 library wrote for a bucket: a UInt16 count, then
    /// per source fixed widths (52 bytes cumulative, 92 discrete).
    private func fixedWidthBucket(_ figures: [BucketFigures], discrete: Bool) -> [UInt8] {
        var w = ByteWriter()
        w.u16(UInt16(figures.count))
        for f in figures {
            w.u32(f.sourceID); w.u32(f.count); w.u32(f.crossCount)
            if discrete {
                for v in [f.weighted, f.weight, f.arithmetic, f.crossArithmetic, f.minimum, f.maximum] { w.f64(v) }
            } else {
                w.f64(f.sum)
            }
            w.f64(f.recentEnd); w.f64(f.recentStart); w.f64(f.recentValue); w.u64(f.recentOrder)
        }
        return w.bytes
    }

    /// Format 18 (rule 21): a format-17 store, whose buckets are of fixed
    /// widths, opens as the current format with its buckets rebuilt in
    /// the compact form, the same figures, and a clean verify.
    @Test func aFormat17StoreGetsCompactBucketsWhenOpened() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        var rng = Rng(state: 17)
        try store.save((0..<300).map { _ in try sample(&rng, sync: nil) })
        var answered = 0
        try compare(store, "before", answered: &answered)
        let heartID = try #require(store.knownTypeID(heartRate))
        func bucketBytes() throws -> Int {
            try store.env.read { txn in
                var total = 0
                try txn.forEach(store.trees.statistics.buckets) { _, v in total += v.count }
                return total
            }
        }
        let compact = try bucketBytes()
        try store.env.write { txn in
            var entries: [([UInt8], [UInt8])] = []
            try txn.forEach(store.trees.statistics.buckets) { k, raw in
                guard k.count == 15, k.loadUnaligned(fromByteOffset: 2, as: UInt32.self) != UInt32.max.bigEndian else { return }
                let discrete = StatisticsKeys.type(ofKey: k) == heartID
                let v = try EntryCheck.opened(k, raw, "a bucket")
                let figures = try BucketCodec.decode(v, discrete ? .discreteArithmetic : .cumulative)
                entries.append((Array(k), EntryCheck.sealed(Array(k), fixedWidthBucket(figures, discrete: discrete))))
            }
            #expect(!entries.isEmpty)
            for (k, v) in entries { _ = try txn.put(store.trees.statistics.buckets, k, v) }
            try txn.setMetaU64(store.trees, .format, 17)
        }
        let fixed = try bucketBytes()
        #expect(fixed > compact + compact / 2, "\(fixed) bytes fixed, \(compact) compact")
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .format) } == UInt64(Schema.format))
        #expect(try bucketBytes() == compact)
        var after = 0
        try compare(store, "after the upgrade", answered: &after)
        #expect(after == answered && after > 0)
        #expect(try store.verify().problems == [])
    }

    /// Changes written past the buckets (by a library that keeps none) are
    /// not read from them, and the next open rebuilds them.
    @Test func rule34_bucketsBehindTheLastChangeAreRebuiltOnOpen() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        var rng = Rng(state: 34)
        try store.save((0..<50).map { _ in try sample(&rng, sync: nil) })
        try store.env.write { txn in try txn.setMetaU64(store.trees, .statisticsHead, 1) }
        try store.save((0..<50).map { _ in try sample(&rng, sync: nil) })
        #expect(try daily(store).kept == nil)
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        let (kept, plain) = try daily(store)
        expectSame(try #require(kept), plain, "after reopening")
    }

    /// Rule 34: a live collection gets its intervals at start, then only
    /// the intervals another process's or its own commits changed; a
    /// commit that changes none of its figures makes no call.
    @Test func rule34_aLiveCollectionGetsTheIntervalsThatChanged() throws {
        let dir = temporaryDirectory()
        let store = try makeStore(directory: dir)
        defer { store.close() }
        let hour0 = (t0.timeIntervalSinceReferenceDate / 3600).rounded(.down) * 3600
        let from = Date(timeIntervalSinceReferenceDate: hour0 - 3600), to = Date(timeIntervalSinceReferenceDate: hour0 + 7200)
        let waiter = Waiter()
        let updates = Locked<[StatisticsCollectionQuery.Update]>([])
        let query = StatisticsCollectionQuery(type: steps, options: .cumulativeSum, anchor: from, interval: .hour,
                                              from: from, to: to) { _, result in
            guard let u = try? result.get() else { return waiter.add("failed") }
            updates.withLock { $0.append(u) }
            waiter.add("updates")
        }
        try store.execute(query)
        defer { query.stop() }
        #expect(waiter.wait { waiter.value("updates") == 1 })
        let initial = updates.withLock { $0[0] }
        #expect(initial.isInitial && initial.changed == [0, 1, 2] && initial.statistics.allSatisfy { $0.sum == nil })
        // Another process saves three step counts in the second hour and deletes one (values 1 and 2 stay).
        let writer = run(siblingExecutable("ohk-test-writer"), [dir, "3"])
        #expect(writer.status == 0)
        // The writer has exited: wait for its last commit, the deletion (two samples left).
        #expect(waiter.wait { updates.withLock { $0.last.map { $0.statistics[1].sum == 3 && $0.statistics[1].values.count == 2 } } == true })
        let seen = updates.withLock { $0.count }
        #expect(updates.withLock { $0.dropFirst().allSatisfy { !$0.isInitial && $0.changed == [1] } })
        // A heart rate changes none of the figures; the step count after it changes the third hour only.
        try store.save([try Sample.quantity(heartRate, value: 60, unit: HealthUnit("count/min"), start: t0, end: t0,
                                            source: appA)])
        let later = Date(timeIntervalSinceReferenceDate: hour0 + 3600 + 60)
        try store.save([try Sample.quantity(steps, value: 40, unit: HealthUnit("count"), start: later,
                                            end: later.addingTimeInterval(60), source: appA)])
        #expect(waiter.wait { updates.withLock { $0.count } == seen + 1 })
        let last = updates.withLock { $0.last! }
        #expect(last.changed == [2] && last.statistics[2].sum == 40 && last.statistics[1].sum == 3)
        #expect(waiter.value("failed") == 0)
    }

    /// A sample longer than 31 days, or dated beyond 31,000 years, stays
    /// out of the buckets: while its type has one, collections read the
    /// samples (the same figures), and afterwards the buckets again.
    @Test func rule34_outsizedSamplesAreReadFromTheSamples() throws {
        let store = try makeStore()
        defer { store.close() }
        let day0 = Date(timeIntervalSinceReferenceDate: midnight)
        let walk = try Sample.quantity(steps, value: 50, unit: HealthUnit("count"), start: day0.addingTimeInterval(3600),
                                       end: day0.addingTimeInterval(7200), source: sources[1])
        let season = try Sample.quantity(steps, value: 4000, unit: HealthUnit("count"), start: day0.addingTimeInterval(-20 * 86_400),
                                         end: day0.addingTimeInterval(20 * 86_400), source: sources[2])
        let farAway = try Sample.quantity(steps, value: 1, unit: HealthUnit("count"), start: Date(timeIntervalSinceReferenceDate: 1e15),
                                          end: Date(timeIntervalSinceReferenceDate: 1e15), source: sources[2])
        try store.save([walk])
        #expect(try daily(store).kept != nil)
        try store.save([season, farAway])
        let (kept, plain) = try daily(store)
        // 4,000 steps over 40 days is 100 a day; the phone's hour outranks the app's (rule 27).
        let expected: Double = 50 + 100 * 23 / 24
        #expect(kept == nil && abs(plain[0].sum! - expected) < 1e-9, "\(plain.map(\.sum))")
        try store.delete(uuids: [season.uuid, farAway.uuid])
        let (again, samples) = try daily(store)
        expectSame(try #require(again), samples, "after the deletions")
        #expect(samples[0].sum == 50)
    }

    /// Bad input: an anchor or dates beyond 31,000 years, a non-positive
    /// interval.
    @Test func rule25_28_collectionArgumentsOutOfRangeAreErrors() throws {
        let store = try makeStore()
        defer { store.close() }
        let day0 = Date(timeIntervalSinceReferenceDate: midnight)
        for anchor in [Date(timeIntervalSinceReferenceDate: 1e300), Date(timeIntervalSinceReferenceDate: -1e13)] {
            #expect(throws: OHKError.self) {
                try store.statisticsCollection(type: steps, options: .cumulativeSum, anchor: anchor, interval: .day,
                                               from: day0, to: day0)
            }
        }
        #expect(throws: OHKError.self) {
            try store.statisticsCollection(type: steps, options: .cumulativeSum, anchor: day0,
                                           interval: StatisticsInterval(-1, .day), from: day0, to: day0)
        }
    }
}

extension TestSupport.Rng: RandomNumberGenerator {}

extension Array where Element: Hashable {
    fileprivate func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
