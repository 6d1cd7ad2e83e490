import COpenHealthKit
import OpenHealthKitCore

/// The C strings of one store's sources (by the store's source id) and
/// types (by identity), made the first time a batch needs them and kept
/// until the store handle and every batch read from it are gone (a
/// source's id never changes). A batch made its own before: three
/// `strdup`s and `free`s per source per batch, a tenth of a short query
/// through C, and a hash of each type's identifier, a third of making a
/// batch.
final class CNames: @unchecked Sendable {
    private let lock = Lock()
    private var sources: [ohk_source?] = []
    private var types: [(SampleType, UnsafePointer<CChar>)] = []
    private var strings = CStringArena()

    deinit { strings.freeAll() }

    /// The identifier of each of `batchTypes` as a C string.
    func identifiers(_ batchTypes: [SampleType]) -> [UnsafePointer<CChar>] {
        lock.locked { batchTypes.map(lockedIdentifier) }
    }

    /// The identifier of `type` as a C string.
    func identifier(_ type: SampleType) -> UnsafePointer<CChar> { lock.locked { lockedIdentifier(type) } }

    private func lockedIdentifier(_ t: SampleType) -> UnsafePointer<CChar> {
        if let known = types.first(where: { $0.0 === t }) { return known.1 }
        let c = Interned.cString(t.identifier)
        types.append((t, c))
        return c
    }

    /// Writes the C form of each store source id with a number in
    /// `numbers` (`idLimit` entries, `.max` for none) to `entries[number]`.
    /// `source` resolves ids not seen before.
    func sources(_ numbers: UnsafePointer<UInt32>, _ idLimit: Int,
                 into entries: UnsafeMutablePointer<ohk_source>, source: (UInt32) -> Source?) {
        lock.locked {
            for i in 0..<idLimit where numbers[i] != .max {
                if i < sources.count, let s = sources[i] {
                    entries[Int(numbers[i])] = s
                    continue
                }
                let s = source(UInt32(i)) ?? Source(bundleIdentifier: "", name: "")
                let c = ohk_source(bundle_identifier: strings.add(s.bundleIdentifier), name: strings.add(s.name),
                                   version: strings.add(s.version))
                if i >= sources.count { sources += repeatElement(nil, count: i + 1 - sources.count) }
                sources[i] = c
                entries[Int(numbers[i])] = c
            }
        }
    }
}
