import CLMDB
import FoundationEssentials

/// Samples associated with a workout (HealthKit's `add(_:to:)` and
/// `predicateForObjects(from: workout)`, rule 36): an index of
/// (workout, sample) UUID pairs in `workout_samples` (`WorkoutLinks`),
/// never a copy.
extension Store {
    /// Associates stored samples with a stored workout, in one transaction
    /// (HealthKit's `add(_:to:)`). The workout must be live; each sample
    /// must be a live quantity or category sample. Associating a sample
    /// again changes nothing. An association is not a change: it adds no
    /// position to the change order, so anchored queries do not report the
    /// sample again; a query with `.workout(uuid)` finds it from then on.
    public func associate(_ samples: [UUID], with workout: UUID) throws {
        try add(stored: samples, [], to: workout)
    }

    /// Which of `uuids` the store holds a record of (a sample, or one
    /// deleted and not yet pruned), found as `associate` finds them: for a
    /// caller that need not build the samples it would add to a workout
    /// when they are stored (`ohk_store_add_to_workout`).
    public func holds(_ uuids: [UUID]) throws -> [Bool] {
        try readRetryingTrees { txn in
            var locator = ReadLocator(txn, trees, hash: tuning.uuidHash, known: cache.withLock { $0.typeTrees })
            var finder = StoredSampleFinder()
            defer { finder.close() }
            return try uuids.map { try finder.find($0, &locator) != nil }
        }
    }

    /// Saves the samples the store does not hold yet and associates every
    /// one with the workout, in one transaction (HealthKit's `add(_:to:)`
    /// saves unsaved samples for you). Returns what each save did: nil for
    /// a sample that was already stored (then only associated).
    @discardableResult
    public func add(_ samples: [Sample], to workout: UUID) throws -> [SaveOutcome?] {
        try add(stored: [], samples, to: workout)
    }

    /// `add(_:to:)`, with samples the caller found stored (`holds`) given
    /// by UUID: those are associated as `associate` does, in the same
    /// transaction. Returns what each of `samples` did.
    @discardableResult
    public func add(stored: [UUID], _ samples: [Sample], to workout: UUID) throws -> [SaveOutcome?] {
        try write { w in
            try checkWorkout(workout, &w)
            var links = PendingLinks(workout: workout, expected: stored.count + samples.count)
            var finder = StoredSampleFinder()
            defer { finder.close() }
            for u in stored {
                guard let found = try finder.find(u, &w) else { throw OHKError(.notFound, "no sample with UUID \(u)") }
                try link(u, found, into: &links, &w)
            }
            // Every lookup before any save: a lookup after a save flushes
            // that save's pending UUID entry, one index insert per sample
            // (5 µs a heart rate where a batch of saves costs 1).
            var found: [StoredSampleFinder.Found?] = []
            var seen = Set<UUID>(minimumCapacity: samples.count)
            found.reserveCapacity(samples.count)
            for s in samples { found.append(try finder.find(s.uuid, &w)) }
            finder.close()
            w.expectSamples(samples.count)
            var outcomes: [SaveOutcome?] = []
            outcomes.reserveCapacity(samples.count)
            for (s, known) in zip(samples, found) {
                if let known {
                    outcomes.append(nil)
                    try link(s.uuid, known, into: &links, &w)
                } else if !seen.insert(s.uuid).inserted {
                    outcomes.append(nil)  // given twice: saved and linked at its first
                } else {
                    try validateType(s.type)
                    try s.validate()
                    try Self.checkAssociable(s.type, s.uuid)
                    outcomes.append(try save(s, &w))
                    links.add(s.uuid, typeID: try w.tree(for: s.type).0)
                }
            }
            try links.write(w.txn, trees)
            return outcomes
        }
    }

    /// Saves a route of a stored workout (HealthKit's route builder,
    /// rule 32): `.notFound` when `workout` is not a live workout, in the
    /// same transaction as the save.
    @discardableResult
    public func saveRoute(_ route: Sample, of workout: UUID) throws -> SaveOutcome {
        guard case .route(let r) = route.value, r.workout == workout else {
            throw OHKError(.invalidArgument, "\(route.uuid) is not a route of workout \(workout)")
        }
        try validateType(route.type)
        try route.validate()
        return try write { w in
            try checkWorkout(workout, &w, before: "saving its route")
            return try save(route, &w)
        }
    }

    /// The UUIDs associated with a workout (its samples and routes), in
    /// UUID order; empty for an unknown workout.
    public func associatedUUIDs(of workout: UUID) throws -> [UUID] {
        try operation { try env.read { txn in try Self.associated(with: workout, txn, trees) } }
    }

    /// Rule 36: associations are made with a live workout.
    private func checkWorkout(_ workout: UUID, _ w: inout WriteContext, before what: String = "adding samples to it") throws {
        guard let (typeID, seq) = try w.lookupUUID(workout),
              let raw = try w.txn.get(try w.tree(id: typeID).records, u64: seq), try !RecordView(stored: raw).isTombstone else {
            throw OHKError(.notFound, "no workout with UUID \(workout): save it before \(what)")
        }
        guard w.type(id: typeID)?.kind == .workout else {
            throw OHKError(.invalidArgument, "\(workout) is a sample of \(w.type(id: typeID)?.identifier ?? "another type"), not a workout")
        }
    }

    private func link(_ sample: UUID, _ found: StoredSampleFinder.Found, into links: inout PendingLinks,
                      _ w: inout WriteContext) throws {
        guard !found.isTombstone else { throw OHKError(.notFound, "sample \(sample) is deleted") }
        // Most samples have the type of the one before: checked once.
        if found.typeID != links.lastTypeID { try Self.checkAssociable(w.type(id: found.typeID), sample) }
        links.add(sample, typeID: found.typeID)
    }

    /// Rule 36: only quantity and category samples are added to a workout.
    private static func checkAssociable(_ type: SampleType?, _ sample: UUID) throws {
        var isCategory = false
        if case .category? = type?.kind { isCategory = true }
        guard type?.isQuantity == true || isCategory else {
            throw OHKError(.invalidArgument, "only quantity and category samples are added to a workout, not \(type?.identifier ?? "another type") \(sample); a route names its workout itself")
        }
    }

    /// The samples associated with `workout`; with `typeID`, only those
    /// that may be of that type (their link says so, or says nothing).
    static func associated(with workout: UUID, typeID: UInt16? = nil, _ txn: Txn, _ trees: FixedTrees) throws -> [UUID] {
        var out: [UUID] = []
        try WorkoutLinks.forEach(of: workout, txn, trees) { sample, linked in
            if typeID == nil || linked == typeID || linked == WorkoutLinks.anyType { out.append(sample) }
        }
        return out
    }

    /// Format 10: each stored route's link to its workout.
    static func linkRoutes(_ txn: Txn, _ trees: FixedTrees, _ cache: StoreCache) throws {
        guard let id = cache.typeID(of: TypeCatalogue.routeType), let t = cache.typeTrees[id] else { return }
        try txn.forEach(t.records) { _, raw in
            let r = try RecordView(stored: raw)
            if !r.isTombstone, case .route(let route) = try r.payloadValue(TypeCatalogue.routeType), let workout = route.workout {
                try WorkoutLinks.put(workout: workout, sample: r.uuid, typeID: id, txn, trees)
            }
        }
    }
}

extension SamplePredicate {
    /// The predicate with each `.workout(uuid)` replaced by the UUIDs
    /// associated with that workout now (rule 36), so that the planner can
    /// look them up; itself when it has none. Applied to the samples of
    /// the type `typeID`, it keeps only the associations of that type.
    func resolvingAssociations(_ txn: Txn, _ trees: FixedTrees, typeID: UInt16) throws -> SamplePredicate {
        switch self {
        case .workout(let w): return .uuids(Set(try Store.associated(with: w, typeID: typeID, txn, trees)))
        case .and(let ps): return .and(try ps.map { try $0.resolvingAssociations(txn, trees, typeID: typeID) })
        case .or(let ps): return .or(try ps.map { try $0.resolvingAssociations(txn, trees, typeID: typeID) })
        case .not(let p): return .not(try p.resolvingAssociations(txn, trees, typeID: typeID))
        default: return self
        }
    }

    /// Whether a `.workout` term is in it (most predicates: no, and they
    /// are used as they are).
    var namesWorkout: Bool {
        switch self {
        case .workout: true
        case .and(let ps), .or(let ps): ps.contains { $0.namesWorkout }
        case .not(let p): p.namesWorkout
        default: false
        }
    }
}
