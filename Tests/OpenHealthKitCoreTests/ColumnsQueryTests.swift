import FoundationEssentials
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
        var batch: [Sample] = []
        for i in 0..<n {
            batch.append(try Sample.quantity(steps, value: Double(i), unit: HealthUnit("count"),
                                             start: t0.addingTimeInterval(Double(i) * 60),
                                             end: t0.addingTimeInterval(Double(i) * 60 + 30),
                                             source: i % 3 == 0 ? appA : appB))
            if batch.count == 10_000 || i == n - 1 { try store.save(batch); batch = [] }
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
                    var sink = ColumnSink(ColumnWriter(p), capacity: rows, holder: ColumnPipeline.Holder())
                    for _ in 0..<rows { _ = sink.take(RecordView(bytes: raw), typeIndex: 0) }
                    return sink.finish().count
                }
            }
            #expect(written == rows, "round \(round)")
            #expect(!values.contains(-1), "round \(round)")
            if written != rows { break }
        }
    }
}
