import COpenHealthKit
import Glibc
import OpenHealthKitCore

/// A batch's source table: the store's sources its samples use, numbered
/// in the order the samples first use them (`source_index`), then the
/// sources only its deleted objects carry.
///
/// The store's part is one malloc'd block: the C forms by number, then a
/// map from store source id (dense from 1) to number. As arrays these
/// were six allocations per batch, which cost a short query more than
/// their work once a durable save had cooled the caches.
struct BatchSources {
    private let block: UnsafeMutableRawPointer
    /// The C forms, by number (the first `storeCount` are filled).
    private let entries: UnsafeMutablePointer<ohk_source>
    /// Store source id → number; `.max` for ids the samples do not use.
    private let numbers: UnsafeMutablePointer<UInt32>
    private let idLimit: Int
    /// How many of the store's sources the samples use.
    let storeCount: Int
    /// Sources only deleted objects carry (strings owned by the batch).
    private var extra: [ohk_source] = []

    init(_ batch: SampleBatch, names: CNames) {
        let idLimit = batch.isEmpty ? 0 : Int(batch.maxSourceID) + 1
        let capacity = min(batch.count, idLimit)
        let entryBytes = capacity * MemoryLayout<ohk_source>.stride
        let block = malloc(max(entryBytes + idLimit * MemoryLayout<UInt32>.stride, 1))!
        let entries = block.bindMemory(to: ohk_source.self, capacity: capacity)
        let numbers = (block + entryBytes).bindMemory(to: UInt32.self, capacity: idLimit)
        numbers.initialize(repeating: .max, count: idLimit)
        var count: UInt32 = 0
        batch.forEachSourceID { id in
            if numbers[Int(id)] == .max {
                numbers[Int(id)] = count
                count += 1
            }
        }
        names.sources(numbers, idLimit, into: entries, in: batch)
        (self.block, self.entries, self.numbers, self.idLimit, storeCount) = (block, entries, numbers, idLimit, Int(count))
    }

    /// Frees the block; the table must not be used afterwards.
    func free() { Glibc.free(block) }

    var count: Int { storeCount + extra.count }

    /// The C form of number `i` (< count).
    subscript(i: Int) -> ohk_source { i < storeCount ? entries[i] : extra[i - storeCount] }

    /// The number of a store source id the batch's samples use.
    @inline(__always)
    func number(ofStoreID id: UInt32) -> UInt32 { numbers[Int(id)] }

    /// The store source ids by number.
    func storeIDs() -> [UInt32] {
        var ids = [UInt32](repeating: 0, count: storeCount)
        for id in 0..<idLimit where numbers[id] != .max { ids[Int(numbers[id])] = UInt32(id) }
        return ids
    }

    /// Appends a source only deleted objects carry; returns its number.
    mutating func append(_ source: ohk_source) -> UInt32 {
        extra.append(source)
        return UInt32(count - 1)
    }
}
