import COpenHealthKit
import Glibc
import OpenHealthKitCore

/// A batch's source table: the store's sources its samples use, numbered
/// in the order the samples first use them (`source_index`), then those
/// only its deleted objects use.
///
/// One malloc'd block holds it: a map from store source id (dense from 1)
/// to number, then the C forms by number, contiguous so that
/// `ohk_batch_sources` can lend them. As arrays these were six
/// allocations per batch, which cost a short query more than their work
/// once a durable save had cooled the caches.
struct BatchSources {
    private let block: UnsafeMutableRawPointer
    /// Bytes before the C forms: the map, rounded up to their alignment.
    private let mapBytes: Int
    /// How many sources the table has.
    let count: Int

    /// `order`: a columns query's sources, numbered already in this order
    /// (its `samples` hold no records, only the names).
    /// `more`: the sources of objects neither holds (deleted rows'), numbered last.
    init(_ samples: SampleBatch, _ deleted: DeletedObjects, names: CNames, order: [UInt32]? = nil, more: [UInt32] = []) {
        let maxID = max(samples.maxSourceID, deleted.maxSourceID, order?.max() ?? 0, more.max() ?? 0)
        let used = (order?.count ?? samples.count) + deleted.count + more.count
        let idLimit = used == 0 ? 0 : Int(maxID) + 1
        let mapBytes = (idLimit * MemoryLayout<UInt32>.stride + 7) & ~7
        let capacity = min(used, idLimit)
        let block = malloc(max(mapBytes + capacity * MemoryLayout<ohk_source>.stride, 1))!
        let numbers = block.bindMemory(to: UInt32.self, capacity: idLimit)
        numbers.initialize(repeating: .max, count: idLimit)
        // Non-escaping closures: a closure value kept in a variable boxed
        // `count` on the heap, with an exclusivity check per access.
        var count: UInt32 = 0
        if let order { for id in order { Self.number(id, numbers, &count) } }
        samples.forEachSourceID { Self.number($0, numbers, &count) }
        deleted.forEachSourceID { Self.number($0, numbers, &count) }
        for id in more { Self.number(id, numbers, &count) }
        let entries = (block + mapBytes).bindMemory(to: ohk_source.self, capacity: capacity)
        names.sources(numbers, idLimit, into: entries) { samples.source(id: $0) ?? deleted.source(id: $0) }
        (self.block, self.mapBytes, self.count) = (block, mapBytes, Int(count))
    }

    /// Gives `id` the next number unless it has one.
    @inline(__always)
    private static func number(_ id: UInt32, _ numbers: UnsafeMutablePointer<UInt32>, _ count: inout UInt32) {
        if numbers[Int(id)] == .max {
            numbers[Int(id)] = count
            count += 1
        }
    }

    /// Frees the block; the table must not be used afterwards.
    func free() { Glibc.free(block) }

    /// The C forms, by number.
    var entries: UnsafeMutableBufferPointer<ohk_source> {
        UnsafeMutableBufferPointer(start: (block + mapBytes).assumingMemoryBound(to: ohk_source.self), count: count)
    }

    /// The numbers by store source id (of the ids the batch's objects use).
    var numbers: UnsafePointer<UInt32> { UnsafePointer(block.assumingMemoryBound(to: UInt32.self)) }

    /// The number of a store source id the batch's objects use.
    @inline(__always)
    func number(ofStoreID id: UInt32) -> UInt32 { block.assumingMemoryBound(to: UInt32.self)[Int(id)] }
}
