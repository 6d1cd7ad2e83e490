import CLMDB
import FoundationEssentials

extension Store {
    /// Saves `samples` in one transaction: all or nothing, on disk when it
    /// returns (rule 13). A UUID that is already stored (or deleted and not
    /// yet pruned) fails the whole save. Samples with a sync identifier
    /// follow rule 14; the result says per sample what happened. Any
    /// collection will do: a lazy one lets an import save 100,000 samples
    /// without holding them all in memory.
    @discardableResult @inlinable
    public func save<C: Collection<Sample>>(_ samples: C) throws -> [SaveOutcome] {
        // Iterated here, in the caller's module, where `C` is known: through
        // the generic type inside the library, each element cost generic
        // metadata lookups (a fifth of a bulk save with a lazy collection).
        try save(count: samples.count) { each in for s in samples { try each(s) } }
    }

    /// `save(_:)` of samples that `Sample`'s public constructors made,
    /// each of which validated its sample (the C library's save, which
    /// makes them from its inputs in the same call): they are not validated
    /// again, a tenth of a bulk save through C. Their types are still
    /// checked against the store. A sample read from a store, or made any
    /// other way, goes through `save(_:)`.
    @discardableResult
    package func save(constructed samples: [Sample]) throws -> [SaveOutcome] {
        try save(count: samples.count, validated: true) { each in for s in samples { try each(s) } }
    }

    /// `save(_:)` of the `count` samples `forEach` hands to its argument;
    /// `validated`: they were validated since they were made.
    /// (A walk from the start each time: a transaction that outgrew the map
    /// runs again.)
    @usableFromInline
    func save(count: Int, validated: Bool = false, _ forEach: ((Sample) throws -> Void) throws -> Void) throws -> [SaveOutcome] {
        try write { w in
            var outcomes: [SaveOutcome] = []
            outcomes.reserveCapacity(count)
            w.expectSamples(count)
            try forEach { s in
                try validateType(s.type)
                if !validated { try s.validate() }
                if case .correlation(let c) = s.value { try checkMembers(s, c, &w) }
                outcomes.append(try save(s, &w))
            }
            return outcomes
        }
    }

    /// Saves, in one transaction, the samples whose UUIDs the store does not
    /// hold yet. A sample whose UUID is already stored (live, or deleted and
    /// not yet pruned) or met earlier in `samples` is skipped, its outcome
    /// nil, instead of failing the save: what an import that may run twice,
    /// or resume after an interruption, needs. Otherwise as `save(_:)`.
    @discardableResult @inlinable
    public func saveNew<C: Collection<Sample>>(_ samples: C) throws -> [SaveOutcome?] {
        // Walked in the caller's module, as in `save(_:)`.
        try saveNew(count: samples.count) { each in for s in samples { try each(s) } }
    }

    /// How often a `saveNew` of several samples checks the store pages it
    /// has mapped: each sample's lookup may fault in a page of each UUID
    /// run, and one fault may map megabytes (`MappedPageBound`). A save of
    /// a few dozen routes mapped 40 MB before this was checked at all.
    static let samplesBetweenMapChecks = 8
    /// Saves of at least this many samples look up their UUIDs in one
    /// sorted walk of the index.
    static let samplesForSortedLookup = 64

    /// `saveNew(_:)` of samples that `Sample`'s public constructors made
    /// (an import's): not validated again, as `save(constructed:)`.
    @discardableResult
    package func saveNew(constructed samples: [Sample]) throws -> [SaveOutcome?] {
        try saveNew(count: samples.count, validated: true) { each in for s in samples { try each(s) } }
    }

    /// `saveNew(_:)` of the `count` samples `forEach` hands to its argument;
    /// `validated` as in `save(count:validated:_:)`.
    @usableFromInline
    func saveNew(count: Int, validated: Bool = false, _ forEach: ((Sample) throws -> Void) throws -> Void) throws -> [SaveOutcome?] {
        try write { w in
            var outcomes: [SaveOutcome?] = []
            outcomes.reserveCapacity(count)
            w.expectSamples(count)
            var seen = Set<UUID>(minimumCapacity: count)
            let bound = count >= Self.samplesBetweenMapChecks ? MappedPageBound(env) : nil
            if let bound { w.uuidIndex.boundMappedPages = bound.check }
            // Many samples' UUIDs are looked up at once, in one sorted walk
            // of the index; a few, one at a time.
            var held: Set<UUID>?
            var uuids: [UUID] = []
            if count >= Self.samplesForSortedLookup {
                uuids.reserveCapacity(count)
                try forEach { uuids.append($0.uuid) }
                held = try w.heldUUIDs(uuids)
                // What it saves is neither held nor repeated (`seen`).
                w.pendingUUIDsAreNew = true
            }
            try forEach { s in
                // A collection that hands out other samples the second
                // time: its UUIDs were not all looked up, so the index does.
                if held != nil, outcomes.count >= uuids.count || uuids[outcomes.count] != s.uuid {
                    w.pendingUUIDsAreNew = false
                }
                if let bound, outcomes.count % Self.samplesBetweenMapChecks == Self.samplesBetweenMapChecks - 1 { bound.check() }
                try validateType(s.type)
                if !validated { try s.validate() }
                // `seen` covers this transaction's own (unflushed) index entries.
                guard seen.insert(s.uuid).inserted, try !(held?.contains(s.uuid) ?? w.holdsUUID(s.uuid)) else {
                    outcomes.append(nil)
                    return
                }
                if case .correlation(let c) = s.value { try checkMembers(s, c, &w) }
                outcomes.append(try save(s, &w))
            }
            return outcomes
        }
    }

    /// Saves a correlation and, first, those of its `members` the store
    /// does not hold yet, in one transaction (rule 33: members are saved
    /// with their correlation or before it). A member already stored is
    /// only grouped: its outcome is nil. The correlation itself is saved
    /// as `save(_:)` saves, so a UUID it reuses fails the call.
    public func saveCorrelation(_ correlation: Sample, members: [Sample]) throws -> (members: [SaveOutcome?], correlation: SaveOutcome) {
        guard case .correlation(let c) = correlation.value else {
            throw OHKError(.invalidArgument, "\(correlation.uuid) is a \(correlation.type.identifier) sample, not a correlation")
        }
        try validateType(correlation.type)
        try correlation.validate()
        return try write { w in
            w.expectSamples(members.count + 1)
            var outcomes: [SaveOutcome?] = []
            var seen = Set<UUID>(minimumCapacity: members.count)
            for m in members {
                try validateType(m.type)
                try m.validate()
                guard seen.insert(m.uuid).inserted, try !w.holdsUUID(m.uuid) else {
                    outcomes.append(nil)
                    continue
                }
                outcomes.append(try save(m, &w))
            }
            try checkMembers(correlation, c, &w)
            return (outcomes, try save(correlation, &w))
        }
    }

    /// Rule 33: a correlation's members are live samples, of the store or
    /// of this save before it, of the types the correlation allows.
    func checkMembers(_ s: Sample, _ c: Correlation, _ w: inout WriteContext) throws {
        var types: [UUID: SampleType] = [:]
        for m in c.members {
            guard let (typeID, seq) = try w.lookupUUID(m),
                  let raw = try w.txn.get(try w.tree(id: typeID).records, u64: seq),
                  try !RecordView(stored: raw).isTombstone else { continue }
            types[m] = w.type(id: typeID)
        }
        try c.validate(s.uuid, type: s.type, memberTypes: types)
    }

    func save(_ s: Sample, _ w: inout WriteContext) throws -> SaveOutcome {
        var outcome = SaveOutcome.saved
        let sync = try s.syncInfo()
        if let sync {
            let key = WriteContext.syncKey(bundle: s.source.bundleIdentifier, identifier: sync.identifier)
            if let v = try w.txn.get(trees.sync, key) {
                let (typeID, seq) = Schema.unpack(UInt64(littleEndian: v.loadUnaligned(as: UInt64.self)))
                let dbi = try w.tree(id: typeID).records
                guard let raw = try w.txn.get(dbi, u64: seq) else { throw OHKError(.storage, "sync entry points at a missing record") }
                let existing = try RecordView(stored: raw)
                let existingUUID = existing.uuid
                guard case .number(let old)? = existing.metadataValue(MetadataKey.syncVersion),
                      sync.version > old || (w.equalVersionsByUUID && sync.version == old && s.uuid.uuidString < existingUUID.uuidString) else {
                    return .notSavedOlderVersion(existing: existingUUID)
                }
                _ = try w.tombstone(typeID: typeID, seq: seq)
                outcome = .replaced(existingUUID)
            }
        }
        let (typeID, typeTrees) = try w.tree(for: s.type)
        let seq = w.nextSeq()
        w.addUUID(s.uuid, typeID: typeID, seq: seq)
        let sourceID = try w.sourceID(s.source), deviceID = try w.deviceID(s.device)
        w.encoded.bytes.removeAll(keepingCapacity: true)
        RecordCodec.encodeSample(s, sourceID: sourceID, deviceID: deviceID, into: &w.encoded)
        guard w.encoded.bytes.count <= RecordCodec.maxSize else {
            throw OHKError(.invalidMetadata, "sample \(s.uuid) has \(w.encoded.bytes.count) bytes of metadata and fields; "
                           + "a sample holds at most \(RecordCodec.maxSize >> 20) MB")
        }
        try w.append(w.encoded.bytes, typeID: typeID, typeTrees, start: s.startDate.timeIntervalSinceReferenceDate, seq: seq)
        w.digests[typeID, default: LiveDigest()].add(s.uuid, version: sync?.version ?? 0)
        if case .quantity(_, let style) = s.type.kind, case .quantity(let value) = s.value {
            w.statistics.add(type: typeID, style: style, sourceID: sourceID, start: s.startDate.timeIntervalSinceReferenceDate,
                             end: s.endDate.timeIntervalSinceReferenceDate, value: value, offset: s.utcOffset, order: seq)
        }
        if case .route(let r) = s.value, let workout = r.workout {
            try WorkoutLinks.put(workout: workout, sample: s.uuid, typeID: typeID, w.txn, trees)
        }
        if let sync {
            let key = WriteContext.syncKey(bundle: s.source.bundleIdentifier, identifier: sync.identifier)
            try withUnsafeBytes(of: Schema.pack(type: typeID, seq: seq).littleEndian) { v in
                _ = try key.withUnsafeBytes { k in try w.txn.put(trees.sync, k, v) }
            }
        }
        return outcome
    }

    /// Deletes the samples with these UUIDs in one transaction, all or
    /// nothing (rule 15). An unknown or already deleted UUID fails the whole
    /// delete with `.notFound`; a UUID listed twice is deleted once.
    public func delete(uuids: [UUID]) throws {
        var seen = Set<UUID>()
        let unique = uuids.count < 2 ? uuids : uuids.filter { seen.insert($0).inserted }
        try write { w in
            for u in unique {
                guard let (typeID, seq) = try w.lookupUUID(u) else {
                    throw OHKError(.notFound, "no sample with UUID \(u)")
                }
                _ = try w.tombstone(typeID: typeID, seq: seq)
            }
        }
    }

    /// Deletes these samples (by UUID); see `delete(uuids:)`.
    public func delete(_ samples: [Sample]) throws {
        try delete(uuids: samples.map(\.uuid))
    }

    /// Deletes every live sample of `type` that `predicate` matches (all of
    /// them when nil), in one transaction. Returns how many.
    @discardableResult
    public func delete(type: SampleType, predicate: SamplePredicate?) throws -> Int {
        try validateType(type)
        try predicate?.validate(for: type)
        return try write { w in
            guard let typeID = try self.existingTypeID(type, w.txn) else { return 0 }
            let dbi = try w.tree(id: typeID).records
            var victims: [UInt64] = []
            let names = NameLookup(store: self, txn: w.txn)
            let ctx = EvalContext(type: type, source: names.source, device: names.device)
            let filter = try predicate.map { CompiledPredicate(try $0.resolvingAssociations(w.txn, trees, typeID: typeID), type: type) }
            let cursor = try w.txn.cursor(dbi)
            var entry = try cursor.first()
            while let (seq, raw) = entry {
                let r = try RecordView(stored: raw)
                if !r.isTombstone, filter.map({ $0.evaluate(r, ctx) == .yes }) ?? true { victims.append(seq) }
                entry = try cursor.next()
            }
            cursor.close()
            for seq in victims { _ = try w.tombstone(typeID: typeID, seq: seq) }
            return victims.count
        }
    }

    /// Drops deleted objects deleted before `date` and moves the horizon to
    /// the newest one dropped (rule 16), and the deletions of UUIDs never
    /// held made before then (rule 63). Returns how many deleted objects
    /// were dropped.
    @discardableResult
    public func prune(deletedBefore date: Date) throws -> Int {
        try write { w in try prune(&w, before: date.timeIntervalSinceReferenceDate) }
    }

    /// Drops every deleted object.
    @discardableResult
    public func pruneAll() throws -> Int {
        try write { w in try prune(&w, before: .infinity) }
    }

    private func prune(_ w: inout WriteContext, before cutoff: Double) throws -> Int {
        try w.flushUUIDs()
        try w.flushStarts()
        let keepAfter = try oldestAcknowledged(w.txn)
        let cursor = try w.txn.cursor(trees.tombs)
        defer { cursor.close() }
        var dropped = 0
        var entry = try cursor.first()
        while let (seq, raw) = entry {
            var r = ByteReader(raw)
            let typeID = try r.u16()
            // Stop at the cutoff, and before anything a durable
            // subscription has not acknowledged yet.
            guard try r.f64() < cutoff, seq <= keepAfter else { break }
            let t = try w.tree(id: typeID)
            if let rec = try w.txn.get(t.records, u64: seq) {
                let view = try RecordView(stored: rec)
                let (uuid, start) = (view.uuid, view.start)
                try w.uuidIndex.remove(PendingUUID(uuid), value: Schema.pack(type: typeID, seq: seq))
                try w.txn.delete(t.records, u64: seq)
                try WriteContext.deleteStart(w.txn, t, start: start, seq: seq)
            }
            try cursor.deleteCurrent()
            w.horizon = max(w.horizon, seq)
            dropped += 1
            entry = try cursor.seek(atLeast: seq + 1)
        }
        // Deletions that came before their sample (rule 63) go by the
        // same cutoff; they hold no position, so no subscription keeps them.
        var early: [[UInt8]] = []
        try w.txn.forEach(trees.earlyDeletions) { k, v in
            if v.count == 8, Double(bitPattern: UInt64(littleEndian: v.loadUnaligned(as: UInt64.self))) < cutoff {
                early.append(Array(k))
            }
        }
        for k in early { try w.txn.delete(trees.earlyDeletions, k) }
        return dropped
    }

    /// One write transaction with its context; publishes the entries it
    /// added to the cache after commit, tells the live queries, then the
    /// commit hook, outside the store's lifecycle lock (the hook may close
    /// the store).
    func write<T>(_ body: (inout WriteContext) throws -> T) throws -> T {
        let (result, hookCall) = try operation { () -> (T, (CommitHook, StoreCommit)?) in
            try refuseIfReadOnly()
            let committed = cache.withLock { $0 }
            let (result, added, note, position, changed, written) = try env.write(durable: options.durable) { txn in
                var w = try WriteContext(txn, trees, cache: committed, uuidHash: tuning.uuidHash, uuidTuning: tuning.uuidIndex)
                let r = try body(&w)
                try w.finish()
                let note = w.note
                return (r, w.added, note, (txnID: txn.id, head: w.head, horizon: w.horizon),
                        note?.typeIDs ?? w.changedTypeIDs, w.positionsWritten)
            }
            cache.withLock { $0.merge(added) }
            lastCommit.withLock { if position.txnID > $0.txnID { $0 = position } }
            signal.bump()
            wakeLiveQueries(note)
            // After the news is out: the trim delays no reader.
            if written >= FreedMemory.largeObjectCount { FreedMemory.giveBack() }
            guard !changed.isEmpty, let hook = commitHook.withLock({ $0 }) else { return (result, nil) }
            return (result, (hook, storeCommit(changed, head: position.head, horizon: position.horizon)))
        }
        if let (hook, commit) = hookCall { hook(commit) }
        return result
    }

    func validateType(_ type: SampleType) throws {
        if type.isCustom {
            let known = try sampleType(type.identifier)
            guard known.kind == type.kind else {
                throw OHKError(.unknownType, "custom type '\(type.identifier)' is registered with another definition")
            }
        }
        // Standard types exist only as the catalogue's instances: valid.
    }

    /// The type's id if the store has ever held one of its samples.
    func existingTypeID(_ type: SampleType, _ txn: Txn) throws -> UInt16? {
        if let id = cache.withLock({ $0.typeID(of: type) }) { return id }
        return try txn.get(trees.types, Array(type.identifier.utf8)).map { UInt16(littleEndian: $0.loadUnaligned(as: UInt16.self)) }
    }
}
