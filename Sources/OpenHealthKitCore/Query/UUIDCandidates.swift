import FoundationEssentials

/// The UUIDs a predicate can match, for the planner's UUID-lookup path: a
/// superset (the full predicate still decides), nil when the predicate
/// does not limit them. Sound for deleted objects too (rule 8): outside
/// the set an `.uuids` term is definitely false, and so is every AND that
/// holds it and every OR whose branches all do.
enum UUIDCandidates {
    /// The candidates of several descriptors' predicates on one type (any
    /// matches): nil when one of them does not limit the UUIDs.
    static func of(_ predicates: [SamplePredicate?]) -> Set<UUID>? {
        var union = Set<UUID>()
        for p in predicates {
            guard let p, let set = of(p) else { return nil }
            union.formUnion(set)
        }
        return union
    }

    static func of(_ p: SamplePredicate) -> Set<UUID>? {
        switch p {
        case .uuids(let set):
            return set
        case .and(let ps):
            // Any limiting conjunct bounds the AND; the smallest is cheapest.
            return ps.compactMap(of).min { $0.count < $1.count }
        case .or(let ps):
            return of(ps.map(Optional.some))
        default:
            return nil
        }
    }
}
