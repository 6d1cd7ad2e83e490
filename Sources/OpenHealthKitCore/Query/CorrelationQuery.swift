import FoundationEssentials

extension Store {
    /// HealthKit's `HKCorrelationQuery` (rule 37): the live correlations
    /// that match `correlation`, filtered on their members. A correlation
    /// is returned when
    /// - it matches `correlation`'s predicate;
    /// - for each descriptor of `members`, it holds at least one member of
    ///   that type (the keys say which members are required);
    /// - every member of a type that `members` names matches that type's
    ///   predicate (a nil predicate accepts any); members of other types
    ///   are not looked at.
    ///
    /// Everything is read in one transaction, so the correlations and
    /// their members are of one moment. The order is the store's.
    public func correlationQuery(_ correlation: QueryDescriptor, members: [QueryDescriptor]) throws -> SampleBatch {
        guard correlation.type.kind == .correlation else {
            throw OHKError(.invalidArgument, "\(correlation.type.identifier) is not a correlation type")
        }
        let allowed = TypeCatalogue.correlationMembers(correlation.type.identifier)
        var seen = Set<String>()
        for m in members {
            guard allowed.contains(m.type.identifier) else {
                throw OHKError(.invalidArgument, "a \(correlation.type.identifier) cannot hold \(m.type.identifier)")
            }
            guard seen.insert(m.type.identifier).inserted else {
                throw OHKError(.invalidArgument, "\(m.type.identifier) is given twice in the member predicates")
            }
        }
        let groups = try Self.group([correlation], validatingWith: self)
        let memberGroups = try members.map { try Self.group([$0], validatingWith: self)[0] }
        return try readRetryingTrees { txn in
            let found = try sampleRows(txn, groups, sort: [], limit: 0)
            guard !members.isEmpty, !found.isEmpty else { return found }
            let held = found.indices.map { i -> Set<UUID> in
                guard case .correlation(let c) = found[i].value else { return [] }
                return Set(c.members)
            }
            let all = held.reduce(into: Set<UUID>()) { $0.formUnion($1) }
            // Per member type: which of the members are of it, and which
            // of those match its predicate.
            var checks: [(ofType: Set<UUID>, matching: Set<UUID>)] = []
            for g in memberGroups {
                let ofType = try uuids(txn, Group(type: g.type, predicates: [.uuids(all)]))
                let predicate = g.predicates[0]
                let matching = predicate == nil ? ofType
                    : try uuids(txn, Group(type: g.type, predicates: [.and([.uuids(ofType), predicate!])]))
                checks.append((ofType, matching))
            }
            let kept = found.indices.filter { i in
                checks.allSatisfy { check in
                    let mine = held[i].intersection(check.ofType)
                    return !mine.isEmpty && mine.isSubset(of: check.matching)
                }
            }
            let keptUUIDs = Set(kept.map { found.uuid(at: $0) })
            guard keptUUIDs.count < found.count else { return found }
            return try sampleRows(txn, [Group(type: correlation.type, predicates: [.uuids(keptUUIDs)])], sort: [], limit: 0)
        }
    }

    /// The UUIDs of the live samples one group matches, in `txn`.
    private func uuids(_ txn: Txn, _ group: Group) throws -> Set<UUID> {
        let batch = try sampleRows(txn, [group], sort: [], limit: 0)
        return Set(batch.indices.map { batch.uuid(at: $0) })
    }
}
