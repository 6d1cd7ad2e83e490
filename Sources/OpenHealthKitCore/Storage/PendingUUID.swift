import FoundationEssentials

/// A UUID index entry waiting for `WriteContext.flushUUIDs` (and, in
/// `UUIDIndex`, a run's entry or a key to look up): the UUID as two
/// big-endian halves (its bytes' memcmp order, the index's key order) and
/// the packed value. 24 bytes: the sort of a bulk transaction's
/// entries moves less than with the UUID kept beside its key.
struct PendingUUID {
    let high, low, value: UInt64

    var uuid: UUID {
        withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }

    @inline(__always)
    static func < (a: PendingUUID, b: PendingUUID) -> Bool {
        a.high != b.high ? a.high < b.high : a.low < b.low
    }
}

extension Array where Element == PendingUUID {
    /// In a sorted array, the index of the first entry not below `key`
    /// (`count` when none).
    func firstIndex(notBelow key: PendingUUID) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if self[mid] < key { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Sorts by UUID. Many entries (a bulk save) go through a counting sort
    /// on the top 16 bits first: random UUIDs spread evenly, so most
    /// buckets hold an entry or two and the whole takes linear time (the
    /// merge sort was a seventh of a bulk save's CPU). UUIDs that crowd one
    /// bucket are sorted there by the standard sort, so none is slower
    /// than with it alone.
    mutating func sortByUUID() {
        guard count >= 4096 else { sort(by: <); return }
        let buckets = 1 << 16
        // starts[b]: where bucket b begins in the output; starts[buckets] == count.
        var starts = [Int](repeating: 0, count: buckets + 1)
        for e in self { starts[Int(e.high >> 48) + 1] += 1 }
        for b in 0..<buckets { starts[b + 1] += starts[b] }
        var next = starts
        let sorted = [PendingUUID](unsafeUninitializedCapacity: count) { out, initialized in
            for e in self {
                let b = Int(e.high >> 48)
                (out.baseAddress! + next[b]).initialize(to: e)
                next[b] += 1
            }
            initialized = count
        }
        self = sorted
        withUnsafeMutableBufferPointer { all in
            for b in 0..<buckets where starts[b + 1] - starts[b] > 1 {
                var bucket = UnsafeMutableBufferPointer(rebasing: all[starts[b]..<starts[b + 1]])
                if bucket.count <= 8 {
                    // Insertion sort: one or two entries is the common case.
                    for i in 1..<bucket.count {
                        let e = bucket[i]
                        var j = i
                        while j > 0 && e < bucket[j - 1] { bucket[j] = bucket[j - 1]; j -= 1 }
                        bucket[j] = e
                    }
                } else {
                    bucket.sort(by: <)
                }
            }
        }
    }
}
