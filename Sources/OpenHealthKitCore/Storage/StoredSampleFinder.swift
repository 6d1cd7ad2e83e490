import CLMDB
import Glibc
import FoundationEssentials

/// Finds stored samples by UUID, many in one transaction, where they
/// usually come in the order they were saved (a workout session's heart
/// rates, associated with the workout when it ends).
///
/// Each UUID is looked for first in the record after the last one found,
/// in the same type's tree, and in the UUID index only when that record
/// is not its. A record begins with its sample's UUID, and a sample has
/// one record (live, or its tombstone), so a match there is the record
/// the index would have led to. For 3,600 heart rates saved together the
/// index is not read after the first: a step along one cursor each, where
/// a lookup read a hash bucket and the record from the root.
struct StoredSampleFinder {
    /// A found sample: its type id and position, and whether its record
    /// is a tombstone (the sample was deleted).
    struct Found {
        let typeID: UInt16
        let seq: UInt64
        let isTombstone: Bool
    }

    private var cursors: [UInt16: Cursor] = [:]
    /// The type and cursor of the last record found.
    private var last: (typeID: UInt16, cursor: Cursor)?

    /// `uuid`'s record; nil when the store holds no such sample.
    mutating func find<L: RecordLocating>(_ uuid: UUID, _ w: inout L) throws -> Found? {
        if let (typeID, c) = last, let (seq, raw) = try c.next(), Self.begins(raw, with: uuid) {
            return Found(typeID: typeID, seq: seq, isTombstone: try RecordView(stored: raw).isTombstone)
        }
        guard let (typeID, seq) = try w.lookupUUID(uuid) else { return nil }
        let c = try cursor(typeID, &w)
        guard let raw = try c.find(seq) else {
            throw OHKError(.storage, "the UUID index points at a missing record (type \(typeID), position \(seq))")
        }
        last = (typeID, c)
        return Found(typeID: typeID, seq: seq, isTombstone: try RecordView(stored: raw).isTombstone)
    }

    /// Closes the cursors; call before the transaction writes records.
    mutating func close() {
        for c in cursors.values { c.close() }
        cursors.removeAll()
        last = nil
    }

    private mutating func cursor<L: RecordLocating>(_ typeID: UInt16, _ w: inout L) throws -> Cursor {
        if let c = cursors[typeID] { return c }
        let c = try w.txn.cursor(try w.records(typeID))
        cursors[typeID] = c
        return c
    }

    private static func begins(_ record: UnsafeRawBufferPointer, with uuid: UUID) -> Bool {
        guard record.count >= 16 else { return false }
        return withUnsafeBytes(of: uuid.uuid) { memcmp($0.baseAddress!, record.baseAddress!, 16) == 0 }
    }
}

/// What the finder reads through: a transaction, the UUID index, and the
/// record trees of type ids.
protocol RecordLocating {
    var txn: Txn { get }
    mutating func lookupUUID(_ uuid: UUID) throws -> (type: UInt16, seq: UInt64)?
    mutating func records(_ typeID: UInt16) throws -> MDB_dbi
}

extension WriteContext: RecordLocating {
    mutating func records(_ typeID: UInt16) throws -> MDB_dbi { try tree(id: typeID).records }
}

/// `RecordLocating` in a read transaction, with the trees this process
/// knows of.
struct ReadLocator: RecordLocating {
    let txn: Txn
    private var index: UUIDIndex
    private let known: TypeTreeTable

    init(_ txn: Txn, _ trees: FixedTrees, hash: UUIDHash, known: TypeTreeTable) {
        self.txn = txn
        self.known = known
        index = UUIDIndex(txn, trees, hash: hash) { id in try Self.records(id, known) }
    }

    mutating func lookupUUID(_ uuid: UUID) throws -> (type: UInt16, seq: UInt64)? {
        try index.get(PendingUUID(uuid)).map(Schema.unpack)
    }

    /// A type another process created: the read opens it and runs again
    /// (`Store.readRetryingTrees`).
    func records(_ typeID: UInt16) throws -> MDB_dbi { try Self.records(typeID, known) }

    private static func records(_ typeID: UInt16, _ known: TypeTreeTable) throws -> MDB_dbi {
        guard let t = known[typeID] else { throw NeedTree(typeID: typeID) }
        return t.records
    }
}
