/// The start times a predicate can match, as a closed interval (a hull:
/// the full predicate still decides). Deleted objects keep their start
/// (rule 8), so the range holds for them too.
struct StartRange: Equatable {
    var lo = -Double.infinity
    var hi = Double.infinity

    var isBounded: Bool { lo > -.infinity || hi < .infinity }

    /// The range of several descriptors' predicates on one type (any
    /// matches): nil when one of them does not bound the start.
    static func of(_ predicates: [SamplePredicate?]) -> StartRange? {
        var hull: StartRange?
        for p in predicates {
            guard let p, let r = of(p) else { return nil }
            hull = hull.map { StartRange(lo: min($0.lo, r.lo), hi: max($0.hi, r.hi)) } ?? r
        }
        return hull
    }

    /// nil: no bound.
    static func of(_ p: SamplePredicate) -> StartRange? {
        switch p {
        case .startDate(let c, let d):
            let t = d.timeIntervalSinceReferenceDate
            switch c {
            case .greaterThan, .greaterThanOrEqual: return StartRange(lo: t)
            case .lessThan, .lessThanOrEqual: return StartRange(hi: t)
            case .equal: return StartRange(lo: t, hi: t)
            case .notEqual: return nil
            }
        case .dateRange(let s, let e, let options):
            // strictStartDate: start ∈ [s, e); overlap: start < e;
            // strictEndDate: start <= end < e, so start < e as well.
            let hi = e?.timeIntervalSinceReferenceDate ?? .infinity
            if options.contains(.strictStartDate) {
                return StartRange(lo: s?.timeIntervalSinceReferenceDate ?? -.infinity, hi: hi)
            }
            return hi < .infinity ? StartRange(hi: hi) : nil
        case .and(let ps):
            let bounded = ps.compactMap(of)
            guard !bounded.isEmpty else { return nil }
            return bounded.reduce(StartRange()) { StartRange(lo: max($0.lo, $1.lo), hi: min($0.hi, $1.hi)) }
        case .or(let ps):
            if ps.isEmpty { return StartRange(lo: .infinity, hi: -.infinity) }  // matches nothing
            return of(ps.map(Optional.some))
        default:
            return nil
        }
    }

    /// The share of `span` this range covers (1 for a point span).
    func fraction(of span: ClosedRange<Double>) -> Double {
        guard span.upperBound > span.lowerBound else { return lo <= span.upperBound && hi >= span.lowerBound ? 1 : 0 }
        let covered = min(hi, span.upperBound) - max(lo, span.lowerBound)
        return max(0, min(1, covered / (span.upperBound - span.lowerBound)))
    }

}
