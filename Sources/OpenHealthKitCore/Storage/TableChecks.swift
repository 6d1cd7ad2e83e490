import CLMDB
import Glibc

/// Checks of the store's small tables (format 15): a 64-bit hash of each
/// table's entries in key order, kept in `meta` under `check:` and the
/// table's name (meta's own check leaves those keys out). In meta, not a
/// tree of their own: every write transaction changes meta's page
/// anyway, and a tree of checks was one more page to write and sync in
/// each. Nothing else in the store repeats a source's name, a
/// subscription, a priority or the position: a byte changed there read
/// back as another value, which only such a check can tell.
///
/// A write transaction that changes a table recomputes its check when it
/// ends (`WriteContext.finish`), but only when the check held before it:
/// a write never makes damage look sound, so `verify` still finds it.
/// The tables are small (meta's dozen entries, a name per source and
/// device, a day per activity summary), so a whole walk is cheap beside
/// the write that changed them.
enum TableChecks {
    /// The tables checked whole. `meta` changes in every write transaction.
    struct Tables: OptionSet, Hashable {
        let rawValue: UInt16
        static let meta = Tables(rawValue: 1), types = Tables(rawValue: 2), custom = Tables(rawValue: 4)
        static let names = Tables(rawValue: 8), subscriptions = Tables(rawValue: 16)
        static let priorities = Tables(rawValue: 32), activity = Tables(rawValue: 64)
        /// Each table on its own, and all of them.
        static let each: [Tables] = [.meta, .types, .custom, .names, .subscriptions, .priorities, .activity]
        static let all = Tables(each)
    }

    /// Each table's trees and the names their checks are kept under.
    static func trees(_ tables: Tables, _ trees: FixedTrees) -> [(name: String, dbi: MDB_dbi)] {
        var out: [(String, MDB_dbi)] = []
        if tables.contains(.meta) { out.append(("meta", trees.meta)) }
        if tables.contains(.types) { out.append(("types", trees.types)) }
        if tables.contains(.custom) { out.append(("custom", trees.custom)) }
        if tables.contains(.names) {
            out += [("sources", trees.sources), ("source_keys", trees.sourceKeys),
                    ("devices", trees.devices), ("device_keys", trees.deviceKeys)]
        }
        if tables.contains(.subscriptions) { out.append(("subs", trees.subs)) }
        if tables.contains(.priorities) { out.append(("priorities", trees.priorities)) }
        if tables.contains(.activity) { out.append(("activity", trees.activity)) }
        return out
    }

    /// Where a table's check is kept in meta.
    static func key(_ name: String) -> [UInt8] { Array(("check:" + name).utf8) }
    private static let prefix = Array("check:".utf8)

    /// The hash of every entry of the table `name` (`dbi`), in key order;
    /// of meta, all but the checks.
    static func digest(_ txn: Txn, _ name: String, _ dbi: MDB_dbi) throws -> UInt64 {
        var h: UInt64 = 0x243F_6A88_85A3_08D3
        let c = try txn.cursor(dbi)
        defer { c.close() }
        let isMeta = name == "meta"
        try c.forEachRaw { k, v in
            if isMeta && k.count >= prefix.count && memcmp(k.baseAddress!, prefix, prefix.count) == 0 { return }
            h = RecordCheck.mix(h, UInt64(k.count) << 32 | UInt64(v.count))
            h = RecordCheck.absorb(k, into: h)
            h = RecordCheck.absorb(v, into: h)
        }
        return h
    }

    /// The check kept for the table named `name`, nil when none is.
    static func stored(_ txn: Txn, _ trees: FixedTrees, _ name: String) throws -> UInt64? {
        guard let raw = try txn.get(trees.meta, key(name)) else { return nil }
        guard raw.count == 8 else { return 0 }  // never a digest's own size: the check fails
        return UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
    }

    /// Which of `tables` hold their checks now: the ones whose checks a
    /// write may carry forward.
    static func sound(_ tables: Tables, _ txn: Txn, _ trees: FixedTrees) throws -> Tables {
        var out: Tables = []
        for t in Tables.each where tables.contains(t) {
            if try Self.trees(t, trees).allSatisfy({ try stored(txn, trees, $0.name) == digest(txn, $0.name, $0.dbi) }) { out.insert(t) }
        }
        return out
    }

    /// Writes the checks of `tables` as they are now.
    static func update(_ tables: Tables, _ txn: Txn, _ trees: FixedTrees) throws {
        for (name, dbi) in Self.trees(tables, trees) {
            let d = try digest(txn, name, dbi)
            if try stored(txn, trees, name) != d {
                _ = try txn.put(trees.meta, key(name), withUnsafeBytes(of: d.littleEndian) { Array($0) })
            }
        }
    }

    /// One line per table whose check is missing or does not match.
    static func problems(_ txn: Txn, _ trees: FixedTrees) throws -> [String] {
        var out: [String] = []
        for (name, dbi) in Self.trees(.all, trees) {
            guard let kept = try stored(txn, trees, name) else { out.append("the \(name) table has no check"); continue }
            if kept != (try digest(txn, name, dbi)) {
                out.append("the \(name) table does not match its check: an entry's bytes changed on disk")
            }
        }
        return out
    }
}
