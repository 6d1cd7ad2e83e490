import FoundationEssentials
import Glibc
import Testing
@testable import OpenHealthKitCore

/// A query whose samples are written into columns as it reads them
/// (`anchoredQuery(_:anchor:limit:into:capacity:)`, issue 32).
@Suite struct ColumnsQueryTests {
    @Test func roundingWithoutLibmRoundsLikeRounded() {
        let p = 0.49999999999999994
        var values: [Double] = [0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, p, -p, 1 - p, 0.5000000000000001,
                                4503599627370495.5, 4503599627370496, 2251799813685247.5, -2251799813685247.5,
                                1.7e15 + 0.25, 1.7e15 + 0.5, 1.7e15 + 0.75, 9.0e15]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<10_000 { values.append(Double.random(in: -4e15...4e15, using: &rng)) }
        for _ in 0..<10_000 { values.append(Double(Int64.random(in: -1 << 40...1 << 40, using: &rng)) + 0.5) }
        for x in values {
            #expect(SampleColumnPointers.roundedHalfAway(x) == Int64(x.rounded()), "\(x)")
        }
        // No trap on what only a corrupt record holds: NumPy's NaT instead.
        for x in [Double.nan, .infinity, -.infinity, 9.3e18, -9.3e18] {
            #expect(SampleColumnPointers.roundedHalfAway(x) == .min, "\(x)")
        }
        #expect(SampleColumnPointers.roundedHalfAway(-9.2e18) == Int64(-9.2e18))
    }

    @Test func columnsHoldWhatTheRecordsHoldWithCreationDatesAndOffsets() throws {
        let store = try makeStore()
        defer { store.close() }
        let created = t0.addingTimeInterval(-3600.0000004)
        var saved: [Sample] = []
        for i in 0..<6 {
            saved.append(try Sample.quantity(steps, value: Double(i), unit: HealthUnit("count"),
                                             start: t0.addingTimeInterval(Double(i) * 60 + 0.0000015),
                                             end: t0.addingTimeInterval(Double(i) * 60 + 60),
                                             source: i % 2 == 0 ? appA : appB,
                                             creationDate: i % 3 == 0 ? created : nil, utcOffset: i % 2 == 0 ? -3600 : nil))
        }
        try store.save(saved)
        let records = try store.anchoredQuery(type: steps, anchor: nil)
        var expected = (uuid: [UInt8](repeating: 0, count: 96), start: [Int64](repeating: 0, count: 6),
                        creation: [Int64](repeating: 0, count: 6), offset: [Int32](repeating: 0, count: 6),
                        source: [UInt32](repeating: 0, count: 6))
        var got = expected
        func pointers(_ c: inout (uuid: [UInt8], start: [Int64], creation: [Int64], offset: [Int32], source: [UInt32]),
                      _ body: (SampleColumnPointers) throws -> Void) rethrows {
            try c.uuid.withUnsafeMutableBytes { u in
                try c.start.withUnsafeMutableBufferPointer { s in
                    try c.creation.withUnsafeMutableBufferPointer { cr in
                        try c.offset.withUnsafeMutableBufferPointer { o in
                            try c.source.withUnsafeMutableBufferPointer { so in
                                var p = SampleColumnPointers()
                                (p.uuid, p.startUnixMicroseconds, p.creationUnixMicroseconds) = (u.baseAddress, s.baseAddress, cr.baseAddress)
                                (p.utcOffset, p.sourceID) = (o.baseAddress, so.baseAddress)
                                try body(p)
                            }
                        }
                    }
                }
            }
        }
        pointers(&expected) { records.samples.fill($0) }
        var result: ColumnsQueryResult?
        try pointers(&got) { result = try store.anchoredQuery([QueryDescriptor(type: steps)], anchor: nil, into: $0, capacity: 6) }
        #expect(result?.count == 6)
        #expect(got.uuid == expected.uuid && got.start == expected.start)
        #expect(got.creation == expected.creation && got.offset == expected.offset)
        #expect(got.creation.filter { $0 != SampleColumnPointers.noCreationDate }.count == 2)
        // The records' column holds store ids; the columns query numbers them by first use.
        #expect(got.source == [0, 1, 0, 1, 0, 1])
        #expect(result?.sourceOrder == [expected.source[0], expected.source[1]])
        #expect(result?.result.newAnchor == records.newAnchor)

        // Room for 4: the result ends there, as a limit ends it.
        try pointers(&got) { result = try store.anchoredQuery([QueryDescriptor(type: steps)], anchor: nil, into: $0, capacity: 4) }
        #expect(result?.count == 4)
        let rest = try store.anchoredQuery(type: steps, anchor: result!.result.newAnchor)
        #expect(Array(rest.samples) == Array(saved[4...]))
        #expect(throws: OHKError.self) {
            try pointers(&got) { _ = try store.anchoredQuery([QueryDescriptor(type: steps)], anchor: nil, into: $0, capacity: 0) }
        }
    }
}

/// A large columns query writes on a second thread (`ColumnPipeline`):
/// the same rows, in the same order, as the records a query returns.
@Suite struct ColumnPipelineTests {
    @Test func aLargeReadWritesTheSameRowsOnASecondThread() throws {
        let store = try makeStore(mapSize: 256 << 20)
        defer { store.close() }
        let n = ColumnPipeline.threshold + 5_000
        try save(n, in: store) { i in
            try Sample.quantity(steps, value: Double(i), unit: HealthUnit("count"),
                                start: t0.addingTimeInterval(Double(i) * 60), end: t0.addingTimeInterval(Double(i) * 60 + 30),
                                source: i % 3 == 0 ? appA : appB)
        }
        let gone = try store.anchoredQuery(type: steps, anchor: nil, limit: 7).samples
        try store.delete(Array(gone))  // deleted objects among the rows
        let records = try store.anchoredQuery(type: steps, anchor: nil).samples
        #expect(records.count == n - 7)

        var expectedStart = [Int64](repeating: 0, count: records.count)
        var expectedValue = [Double](repeating: 0, count: records.count)
        expectedStart.withUnsafeMutableBufferPointer { s in
            expectedValue.withUnsafeMutableBufferPointer { v in
                var p = SampleColumnPointers()
                (p.startUnixMicroseconds, p.value) = (s.baseAddress, v.baseAddress)
                records.fill(p)
            }
        }
        for capacity in [n, n - 100] {
            var gotStart = [Int64](repeating: 0, count: capacity)
            var gotValue = [Double](repeating: 0, count: capacity)
            var gotSource = [UInt32](repeating: 9, count: capacity)
            let result = try gotStart.withUnsafeMutableBufferPointer { s in
                try gotValue.withUnsafeMutableBufferPointer { v in
                    try gotSource.withUnsafeMutableBufferPointer { so in
                        var p = SampleColumnPointers()
                        (p.startUnixMicroseconds, p.value, p.sourceID) = (s.baseAddress, v.baseAddress, so.baseAddress)
                        return try store.anchoredQuery([QueryDescriptor(type: steps)], anchor: nil, into: p, capacity: capacity)
                    }
                }
            }
            let rows = min(capacity, records.count)
            #expect(result.count == rows)
            #expect(gotStart[..<rows] == expectedStart[..<rows] && gotValue[..<rows] == expectedValue[..<rows])
            #expect(Set(gotSource[..<rows]) == [0, 1] && result.sourceOrder.count == 2)
            // The deleted objects come after every sample: only a read to the end has them.
            #expect(result.result.deletedObjects.count == (capacity > records.count ? 7 : 0))
        }
    }

    /// Every column of a large read, through the pipeline's writer (which
    /// writes a column at a time), holds what the records hold: one type
    /// walked, and two types (a quantity and a category) merged, with
    /// creation dates, UTC offsets and deleted objects among them.
    @Test func everyColumnOfALargeReadMatchesTheRecords() throws {
        let store = try makeStore(mapSize: 256 << 20)
        defer { store.close() }
        let n = ColumnPipeline.threshold + 3_000
        try save(n, in: store) { i in
            let start = t0.addingTimeInterval(Double(i) * 60 + 0.25), end = start.addingTimeInterval(30)
            let created = i % 5 == 0 ? start.addingTimeInterval(3600) : nil
            let offset = i % 7 == 0 ? 3600 * (i % 13 - 6) : nil
            return i % 4 == 3
                ? try Sample.category(sleep, value: i % 3, start: start, end: end, source: i % 3 == 0 ? appA : appB,
                                      creationDate: created, utcOffset: offset)
                : try Sample.quantity(steps, value: Double(i) + 0.5, unit: HealthUnit("count"), start: start, end: end,
                                      source: i % 3 == 0 ? appA : appB, creationDate: created, utcOffset: offset)
        }
        try store.delete(Array(try store.anchoredQuery(type: steps, anchor: nil, limit: 5).samples))
        for descriptors in [[QueryDescriptor(type: steps)], [QueryDescriptor(type: steps), QueryDescriptor(type: sleep)]] {
            let records = try store.anchoredQuery(descriptors, anchor: nil).samples
            // Room for more than the pipeline's threshold: it starts after a chunk.
            let expected = AllColumns(rows: records.count)
            let got = AllColumns(rows: max(records.count + 1, ColumnPipeline.threshold))
            records.fill(expected.pointers)
            let result = try store.anchoredQuery(descriptors, anchor: nil, into: got.pointers, capacity: got.rows)
            #expect(result.count == records.count)
            #expect(result.result.deletedObjects.count == 5)
            let types = result.result.samples.types
            var mismatches = 0
            for i in 0..<records.count where !expected.row(i, sameAs: got, sources: result.sourceOrder,
                                                          types: records.types, theirTypes: types) {
                mismatches += 1
            }
            #expect(mismatches == 0, "\(descriptors.count) type(s)")
            #expect(Set(got.type[..<records.count]).count == descriptors.count)
            #expect(got.flags[..<records.count].contains { $0 & SampleColumnPointers.category != 0 } == (descriptors.count == 2))
        }
    }

    /// A walk reads a leaf page's entries in place (`LeafPage`) and asks
    /// LMDB for the rest: records in overflow pages (large metadata) among
    /// them, deleted objects, a start in the middle of a page (an anchor)
    /// and a limit that ends in one all give the rows a query of records
    /// gives.
    @Test func aWalkReadsPagesInPlaceAroundRecordsLMDBMustRead() throws {
        let store = try makeStore(mapSize: 256 << 20)
        defer { store.close() }
        let long = MetadataValue.string(String(repeating: "x", count: 3_000))  // past half a page: overflow pages
        try save(6_000, in: store) { i in
            try Sample.quantity(steps, value: Double(i), unit: HealthUnit("count"),
                                start: t0.addingTimeInterval(Double(i) * 60), end: t0.addingTimeInterval(Double(i) * 60 + 30),
                                source: i % 3 == 0 ? appA : appB, metadata: i % 97 == 5 || i == 0 ? ["note": long] : [:])
        }
        let early = try store.anchoredQuery(type: steps, anchor: nil, limit: 300).samples
        try store.delete(Array(early).enumerated().filter { $0.offset % 50 == 7 }.map(\.element))
        var anchors: [QueryAnchor?] = [nil]
        for k in [1, 2, 55, 56, 57, 1_234, 5_950] {
            anchors.append(try store.anchoredQuery(type: steps, anchor: nil, limit: k).newAnchor)
        }
        for anchor in anchors {
            for limit in [0, 1, 100, 3_001] {
                let records = try store.anchoredQuery([QueryDescriptor(type: steps)], anchor: anchor, limit: limit)
                let expected = AllColumns(rows: max(records.samples.count, 1)), got = AllColumns(rows: records.samples.count + 1)
                records.samples.fill(expected.pointers)
                let result = try store.anchoredQuery([QueryDescriptor(type: steps)], anchor: anchor, limit: limit,
                                                     into: got.pointers, capacity: got.rows)
                #expect(result.count == records.samples.count, "limit \(limit)")
                #expect(result.result.newAnchor == records.newAnchor, "limit \(limit)")
                #expect(result.result.deletedObjects.map(\.uuid) == records.deletedObjects.map(\.uuid))
                let types = result.result.samples.types
                let wrong = (0..<records.samples.count).filter {
                    !expected.row($0, sameAs: got, sources: result.sourceOrder, types: records.samples.types, theirTypes: types)
                }
                #expect(wrong.isEmpty, "limit \(limit): rows \(wrong.prefix(5))")
            }
        }
    }

    /// Past a leaf page read in place, the walk puts LMDB's cursor on the
    /// page's last entry and steps on (LMDB then searches no more than the
    /// page): every sample comes back once, in the order saved, from the
    /// start and from anchors, with records in overflow pages among them.
    @Test func aWalkStepsFromPageToPageWithoutSkippingOrRepeating() throws {
        let store = try makeStore(mapSize: 256 << 20)
        defer { store.close() }
        let long = MetadataValue.string(String(repeating: "y", count: 5_000))  // overflow pages
        var saved: [UUID] = []
        try save(4_000, in: store) { i in
            let s = try Sample.quantity(steps, value: Double(i), unit: HealthUnit("count"),
                                        start: t0.addingTimeInterval(Double(i) * 60), end: t0.addingTimeInterval(Double(i) * 60 + 30),
                                        source: appA, metadata: i % 61 == 3 ? ["note": long] : [:])
            saved.append(s.uuid)
            return s
        }
        for from in [0, 1, 57, 58, 1_000, 3_999] {
            let anchor = from == 0 ? nil : try store.anchoredQuery(type: steps, anchor: nil, limit: from).newAnchor
            var got: [UUID] = []
            var next = anchor
            while true {  // in batches of 97: limits end inside pages too
                let r = try store.anchoredQuery(type: steps, anchor: next, limit: 97)
                if r.samples.isEmpty { break }
                got += r.samples.map(\.uuid)
                next = r.newAnchor
            }
            let expected = Array(saved[from...])
            let whole = try store.anchoredQuery(type: steps, anchor: anchor).samples.map(\.uuid)
            // Booleans, not the arrays: a failure names the first sample wrong.
            let batchedRight = got == expected, wholeRight = whole == expected
            #expect(batchedRight, "from \(from), batches: \(got.count) of \(expected.count), first wrong \(firstDifference(got, expected))")
            #expect(wholeRight, "from \(from), one query: \(whole.count) of \(expected.count), first wrong \(firstDifference(whole, expected))")
        }
    }

    /// A walk asks for the next leaf page ahead of reaching it, as the
    /// parent page names it (`LeafPage.nextPage`, read from LMDB's cursor):
    /// on every page of a tree of several levels, the page named is the
    /// one LMDB's cursor then steps to, and only a parent's last child has
    /// none.
    @Test func theNextLeafAWalkAsksForIsTheOneLMDBStepsTo() throws {
        let store = try makeStore(mapSize: 256 << 20)
        defer { store.close() }
        try save(30_000, in: store) { i in
            let start = t0.addingTimeInterval(Double(i) * 60)
            return try Sample.quantity(steps, value: Double(i), unit: HealthUnit("count"), start: start, end: start, source: appA)
        }
        let (pages, named, right) = try store.env.read { txn -> (Int, Int, Int) in
            let (_, trees) = try #require(try store.storedTrees(steps, txn))
            let cursor = try txn.cursor(trees.records)
            defer { cursor.close() }
            let map = LeafPage.Map(txn)
            let lastPage = map.lastPage(cursor)
            var (pages, named, right) = (0, 0, 0)
            var entry = try cursor.first()
            while let (_, raw) = entry, let page = LeafPage(record: raw, map) {
                pages += 1
                let hint = page.nextPage(cursor, lastPage: lastPage)
                // The page's last entry, then LMDB's step past it.
                let (lastKey, _) = try #require(page.entry(page.count - 1))
                _ = try cursor.find(lastKey)
                entry = try cursor.next()
                guard let hint, let (_, next) = entry else { continue }
                named += 1
                let landed = UInt(bitPattern: next.baseAddress!) & ~UInt(map.pageSize - 1)
                if landed == UInt(bitPattern: hint) { right += 1 }
            }
            return (pages, named, right)
        }
        #expect(pages > 300, "\(pages) leaf pages")
        #expect(right == named, "\(named - right) of \(named) pages named wrong")
        #expect(named >= pages * 9 / 10, "\(named) of \(pages) pages named")
    }

    /// The writer asks for the columns' pages a little ahead of its rows,
    /// and the scan helps while it waits: neither gives pages far past the
    /// rows written, though the columns have room for ten times as many
    /// (a query with a predicate may fill few of the rows a bound allowed).
    @Test func pagesAreGivenOnlyNearTheRowsWritten() throws {
        let store = try makeStore(mapSize: 256 << 20)
        defer { store.close() }
        let n = ColumnPipeline.threshold + 10_000
        try save(n, in: store) { i in
            let start = t0.addingTimeInterval(Double(i) * 60)
            return try Sample.quantity(steps, value: 1, unit: HealthUnit("count"), start: start, end: start, source: appA)
        }
        let capacity = 10 * n, page = Int(getpagesize())
        let bytes = 16 * capacity
        let block = try #require(mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        defer { munmap(block, bytes) }
        var p = SampleColumnPointers()
        p.uuid = block
        let result = try store.anchoredQuery([QueryDescriptor(type: steps)], anchor: nil, into: p, capacity: capacity)
        #expect(result.count == n)
        var resident = [UInt8](repeating: 0, count: (bytes + page - 1) / page)
        #expect(mincore(block, bytes, &resident) == 0)
        let written = (16 * n + page - 1) / page
        #expect(resident[..<written].allSatisfy { $0 & 1 == 1 })
        // Past the rows: at most a chunk and a step of them, with a margin.
        let beyond = resident[written...].filter { $0 & 1 == 1 }.count
        #expect(beyond <= 16 * (4 * ColumnPipeline.chunkSize) / page, "\(beyond) pages past the rows")
    }

    /// A read that ends in a partial chunk while the writer is still some
    /// chunks behind gets every row: the end mark waits for a slot the
    /// writer is done with (it once overwrote an unwritten chunk, and a
    /// read came back short). A scan of records already in memory keeps
    /// the writer behind, as the store's own walk seldom does.
    @Test func aReadThatEndsInAPartialChunkGetsEveryRow() throws {
        let sample = try Sample.quantity(steps, value: 42, unit: HealthUnit("count"), start: t0, end: t0, source: appA)
        let record = RecordCodec.encodeSample(sample, sourceID: 1, deviceID: 0)
        for round in 0..<200 {
            let rows = 5 * ColumnPipeline.chunkSize + 1 + round
            var values = [Double](repeating: -1, count: rows)
            let written = record.withUnsafeBytes { raw in
                values.withUnsafeMutableBufferPointer { v in
                    var p = SampleColumnPointers()
                    p.value = v.baseAddress
                    let sink = ColumnSink(ColumnWriter(p), capacity: rows, holder: ColumnPipeline.Holder())
                    for _ in 0..<rows { _ = sink.take(RecordView(bytes: raw), typeIndex: 0) }
                    return sink.finish().count
                }
            }
            #expect(written == rows, "round \(round)")
            #expect(!values.contains(-1), "round \(round)")
            if written != rows { break }
        }
    }

    /// The first index where `a` and `b` differ, or nil.
    private func firstDifference(_ a: [UUID], _ b: [UUID]) -> Int? {
        (0..<max(a.count, b.count)).first { $0 >= a.count || $0 >= b.count || a[$0] != b[$0] }
    }

    /// Saves the `n` samples `make` gives, 10,000 to a transaction.
    private func save(_ n: Int, in store: Store, _ make: (Int) throws -> Sample) throws {
        var batch: [Sample] = []
        for i in 0..<n {
            batch.append(try make(i))
            if batch.count == 10_000 || i == n - 1 { try store.save(batch); batch = [] }
        }
    }
}

/// The nine columns of `rows` rows, in memory of their own, filled with
/// marks a write replaces.
final class AllColumns {
    let rows: Int
    let uuid: UnsafeMutableBufferPointer<UInt8>
    let start, end, creation: UnsafeMutableBufferPointer<Int64>
    let value: UnsafeMutableBufferPointer<Double>
    let type, source, flags: UnsafeMutableBufferPointer<UInt32>
    let offset: UnsafeMutableBufferPointer<Int32>

    init(rows: Int) {
        self.rows = rows
        uuid = .allocate(capacity: 16 * rows)
        uuid.initialize(repeating: 0xEE)
        (start, end, creation) = (.allocate(capacity: rows), .allocate(capacity: rows), .allocate(capacity: rows))
        for c in [start, end, creation] { c.initialize(repeating: 7) }
        value = .allocate(capacity: rows)
        value.initialize(repeating: -1)
        (type, source, flags) = (.allocate(capacity: rows), .allocate(capacity: rows), .allocate(capacity: rows))
        for c in [type, source, flags] { c.initialize(repeating: 0xEEEE) }
        offset = .allocate(capacity: rows)
        offset.initialize(repeating: 7)
    }

    deinit {
        uuid.deallocate()
        for c in [start, end, creation] { c.deallocate() }
        value.deallocate()
        for c in [type, source, flags] { c.deallocate() }
        offset.deallocate()
    }

    var pointers: SampleColumnPointers {
        var p = SampleColumnPointers()
        (p.uuid, p.startUnixMicroseconds, p.endUnixMicroseconds) = (UnsafeMutableRawPointer(uuid.baseAddress), start.baseAddress, end.baseAddress)
        (p.value, p.typeIndex, p.sourceID, p.flags) = (value.baseAddress, type.baseAddress, source.baseAddress, flags.baseAddress)
        (p.creationUnixMicroseconds, p.utcOffset) = (creation.baseAddress, offset.baseAddress)
        return p
    }

    /// Whether row `i` here (written from records: store source ids, the
    /// records' type indexes into `types`) is row `i` of `other` (a
    /// columns query's: sources numbered as `sources` lists them, type
    /// indexes into `theirTypes`).
    func row(_ i: Int, sameAs other: AllColumns, sources: [UInt32], types: [SampleType],
             theirTypes: [SampleType]) -> Bool {
        Array(uuid[16 * i..<16 * i + 16]) == Array(other.uuid[16 * i..<16 * i + 16])
            && start[i] == other.start[i] && end[i] == other.end[i] && value[i] == other.value[i]
            && types[Int(type[i])] == theirTypes[Int(other.type[i])]
            && source[i] == sources[Int(other.source[i])]
            && flags[i] == other.flags[i] && creation[i] == other.creation[i] && offset[i] == other.offset[i]
    }
}
