import COpenHealthKit
import Glibc
import OpenHealthKitCore

/// A batch's source table: the store's sources its samples use, numbered
/// in the order the samples first use them (`source_index`), then the
/// sources only its deleted objects carry.
///
/// One malloc'd block holds it all: a map from store source id (dense
/// from 1) to number, then the C forms by number, contiguous so that
/// `ohk_batch_sources` can lend them. As arrays these were six
/// allocations per batch, which cost a short query more than their work
/// once a durable save had cooled the caches.
struct BatchSources {
    private var block: UnsafeMutableRawPointer
    /// Bytes before the C forms: the map, rounded up to their alignment.
    private let mapBytes: Int
    private let idLimit: Int
    private var capacity: Int
    /// How many of the store's sources the samples use (the first numbers).
    let storeCount: Int
    /// How many sources the table has.
    private(set) var count: Int

    init(_ batch: SampleBatch, names: CNames) {
        let idLimit = batch.isEmpty ? 0 : Int(batch.maxSourceID) + 1
        let mapBytes = (idLimit * MemoryLayout<UInt32>.stride + 7) & ~7
        let capacity = min(batch.count, idLimit)
        let block = malloc(max(mapBytes + capacity * MemoryLayout<ohk_source>.stride, 1))!
        let numbers = block.bindMemory(to: UInt32.self, capacity: idLimit)
        numbers.initialize(repeating: .max, count: idLimit)
        var count: UInt32 = 0
        batch.forEachSourceID { id in
            if numbers[Int(id)] == .max {
                numbers[Int(id)] = count
                count += 1
            }
        }
        let entries = (block + mapBytes).bindMemory(to: ohk_source.self, capacity: capacity)
        names.sources(numbers, idLimit, into: entries, in: batch)
        (self.block, self.mapBytes, self.idLimit, self.capacity) = (block, mapBytes, idLimit, capacity)
        (storeCount, self.count) = (Int(count), Int(count))
    }

    /// Frees the block; the table must not be used afterwards.
    func free() { Glibc.free(block) }

    /// The C forms, by number; valid until `append` or `free`.
    var entries: UnsafeMutableBufferPointer<ohk_source> {
        UnsafeMutableBufferPointer(start: (block + mapBytes).assumingMemoryBound(to: ohk_source.self), count: count)
    }

    /// The number of a store source id the batch's samples use.
    @inline(__always)
    func number(ofStoreID id: UInt32) -> UInt32 { block.assumingMemoryBound(to: UInt32.self)[Int(id)] }

    /// The store source ids by number.
    func storeIDs() -> [UInt32] {
        var ids = [UInt32](repeating: 0, count: storeCount)
        for id in 0..<idLimit where number(ofStoreID: UInt32(id)) != .max { ids[Int(number(ofStoreID: UInt32(id)))] = UInt32(id) }
        return ids
    }

    /// Appends a source only deleted objects carry; returns its number.
    mutating func append(_ source: ohk_source) -> UInt32 {
        if count == capacity {
            capacity = max(2 * capacity, 4)
            block = realloc(block, mapBytes + capacity * MemoryLayout<ohk_source>.stride)!
            block.bindMemory(to: UInt32.self, capacity: idLimit)
            (block + mapBytes).bindMemory(to: ohk_source.self, capacity: capacity)
        }
        (block + mapBytes).assumingMemoryBound(to: ohk_source.self)[count] = source
        count += 1
        return UInt32(count - 1)
    }
}
