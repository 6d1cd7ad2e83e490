import FoundationEssentials

/// Where a columns query writes its samples: straight into the caller's
/// column arrays as the scan meets them, with no copy of the records in
/// between (`Store.anchoredQuery(_:anchor:limit:into:capacity:)`). Half
/// the memory traffic of a query and a fill, which is what a full read
/// into NumPy costs.
package struct ColumnSink {
    let out: SampleColumnPointers
    /// Rows the arrays have; the scan stops when they are full.
    let capacity: Int
    /// Rows written.
    private(set) var count = 0
    /// The store's source ids in the order the samples first use them:
    /// the source column holds positions in this list.
    private(set) var sourceOrder: [UInt32] = []
    /// Position in `sourceOrder` + 1 by store source id (0: not used yet).
    private var numbers: [UInt32] = []
    private(set) var maxSourceID: UInt32 = 0

    package init(_ out: SampleColumnPointers, capacity: Int) {
        self.out = out
        self.capacity = capacity
    }

    var isFull: Bool { count >= capacity }

    /// Writes one sample as row `count`.
    @inline(__always)
    mutating func write(_ r: RecordView, typeIndex: Int) {
        out.write(r, at: count, typeIndex: UInt32(typeIndex), source: number(r.sourceID))
        count += 1
    }

    @inline(__always)
    private mutating func number(_ id: UInt32) -> UInt32 {
        let i = Int(id)
        if i < numbers.count, numbers[i] != 0 { return numbers[i] - 1 }
        return firstUse(id)
    }

    @inline(never)
    private mutating func firstUse(_ id: UInt32) -> UInt32 {
        let i = Int(id)
        if i >= numbers.count { numbers += repeatElement(0, count: i + 1 - numbers.count) }
        sourceOrder.append(id)
        numbers[i] = UInt32(sourceOrder.count)
        maxSourceID = max(maxSourceID, id)
        return numbers[i] - 1
    }
}

/// What a columns query returns besides its columns.
package struct ColumnsQueryResult: Sendable {
    /// The deleted objects, the new anchor, and (in `samples`, which holds
    /// no records) the types and the names the source ids resolve through.
    package let result: AnchoredQueryResult
    /// Rows written to the columns.
    package let count: Int
    /// The store source ids the source column's numbers stand for.
    package let sourceOrder: [UInt32]
}

extension SampleColumnPointers {
    /// Writes record `r` as row `i`, with `source` in the source column.
    @inline(__always)
    func write(_ r: RecordView, at i: Int, typeIndex: UInt32, source: UInt32) {
        if let p = uuid { (p + 16 * i).copyMemory(from: r.bytes.baseAddress!, byteCount: 16) }
        if let p = startUnixMicroseconds { p[i] = Self.unixMicroseconds(r.start) }
        if let p = endUnixMicroseconds { p[i] = Self.unixMicroseconds(r.end) }
        if let p = value { p[i] = r.isCategory ? Double(r.category) : r.quantity }
        if let p = self.typeIndex { p[i] = typeIndex }
        if let p = sourceID { p[i] = source }
        if let p = flags {
            p[i] = (r.isCategory ? Self.category : 0)
                | (r.deviceID != 0 ? Self.hasDevice : 0)
                | (r.hasMetadata ? Self.hasMetadata : 0)
                | (r.hasCreation ? Self.hasCreationDate : 0)
                | (r.hasUTCOffset ? Self.hasUTCOffset : 0)
        }
        if let p = creationUnixMicroseconds {
            p[i] = r.creation.map(Self.unixMicroseconds) ?? Self.noCreationDate
        }
        if let p = utcOffset { p[i] = Int32(r.utcOffset ?? Int(Self.noUTCOffset)) }
    }

    /// Seconds since 2001 as Unix microseconds, rounded to the nearest.
    @inline(__always)
    static func unixMicroseconds(_ reference: Double) -> Int64 {
        roundedHalfAway((reference + Date.timeIntervalBetween1970AndReferenceDate) * 1e6)
    }

    /// `Int64(x.rounded())` without the libm call (a tenth of a full read
    /// into columns): adding the double just below ½ and truncating rounds
    /// every value half away from zero, as `rounded()` does.
    @inline(__always)
    static func roundedHalfAway(_ x: Double) -> Int64 {
        Int64(x + (x < 0 ? -0.49999999999999994 : 0.49999999999999994))
    }
}
