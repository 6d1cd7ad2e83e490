/// A predicate flattened for the scan loop, compiled once per query and
/// type. `SamplePredicate` is an indirect enum: evaluating it retained and
/// released a box per term per record, which cost more than the scan
/// itself. Here the common terms are plain values in raw memory (reading
/// a `Program` retains nothing), quantity thresholds are converted to the
/// type's unit once, and the rare terms (strings, sets, metadata,
/// devices) keep the enum's own evaluation. Same three-valued results as
/// `SamplePredicate.evaluate` (rule 8).
final class CompiledPredicate {
    /// One term; a composite is followed by its children, and `span`
    /// counts the nodes of its subtree (itself included) so that a
    /// short-circuit can step over a child.
    enum Node {
        /// `lo`/`hi` are ±infinity for an open bound.
        case dateRange(lo: Double, hi: Double, options: DateRangeOptions)
        case start(Comparison, Double)
        case end(Comparison, Double)
        /// Threshold in the type's canonical unit.
        case quantity(Comparison, Double)
        case category(Comparison, Int)
        case and(span: Int)
        case or(span: Int)
        case not(span: Int)
        /// Index into `general`.
        case general(Int)
    }

    /// The nodes and the rare terms, as plain pointers: a copy of a
    /// program retains nothing. Valid while its predicate lives.
    struct Program {
        fileprivate let nodes: UnsafeMutableBufferPointer<Node>
        fileprivate let general: UnsafeMutableBufferPointer<SamplePredicate>
        /// The predicate as one interval of start times, when it is only
        /// that (comparisons of the start date, joined by AND, or a date
        /// range with `strictStartDate` alone): HealthKit's most common
        /// predicate, tested in two comparisons instead of a walk of its
        /// nodes (an eighth of a cold predicate query).
        let starts: StartInterval?
    }

    /// Start times from `lo` to `hi`, each end in or out.
    struct StartInterval {
        var lo = -Double.infinity, hi = Double.infinity
        var loIn = true, hiIn = true

        @inline(__always) func contains(_ t: Double) -> Bool {
            (loIn ? t >= lo : t > lo) && (hiIn ? t <= hi : t < hi)
        }

        /// The interval narrowed by `node`; nil when the node is not a
        /// bound on the start.
        func narrowed(by node: Node) -> StartInterval? {
            var r = self
            switch node {
            case .start(let op, let t):
                switch op {
                case .lessThan: r.bound(hi: t, in: false)
                case .lessThanOrEqual: r.bound(hi: t, in: true)
                case .greaterThan: r.bound(lo: t, in: false)
                case .greaterThanOrEqual: r.bound(lo: t, in: true)
                case .equal: r.bound(lo: t, in: true); r.bound(hi: t, in: true)
                case .notEqual: return nil
                }
            case .dateRange(let lo, let hi, let options) where options == .strictStartDate:
                r.bound(lo: lo, in: true)
                r.bound(hi: hi, in: false)
            default:
                return nil
            }
            return r
        }

        private mutating func bound(lo t: Double, in inclusive: Bool) {
            if t > lo || t.isNaN { (lo, loIn) = (t, inclusive) } else if t == lo { loIn = loIn && inclusive }
        }

        private mutating func bound(hi t: Double, in inclusive: Bool) {
            if t < hi || t.isNaN { (hi, hiIn) = (t, inclusive) } else if t == hi { hiIn = hiIn && inclusive }
        }

        /// The interval `nodes` stand for, when they are one.
        static func of(_ nodes: [Node]) -> StartInterval? {
            guard let first = nodes.first else { return nil }
            if case .and(let span) = first {
                guard span == nodes.count else { return nil }
                var r = StartInterval()
                for n in nodes.dropFirst() {
                    guard let narrowed = r.narrowed(by: n) else { return nil }
                    r = narrowed
                }
                return r
            }
            return nodes.count == 1 ? StartInterval().narrowed(by: first) : nil
        }
    }

    let program: Program

    /// `p` compiled for samples and deleted objects of `type`.
    init(_ p: SamplePredicate, type: SampleType) {
        var nodes: [Node] = []
        var general: [SamplePredicate] = []
        Self.emit(p, type, &nodes, &general)
        let n = UnsafeMutableBufferPointer<Node>.allocate(capacity: nodes.count)
        _ = n.initialize(from: nodes)
        let g = UnsafeMutableBufferPointer<SamplePredicate>.allocate(capacity: general.count)
        _ = g.initialize(from: general)
        program = Program(nodes: n, general: g, starts: StartInterval.of(nodes))
    }

    /// Any of `predicates` (several descriptors of one type): their OR is
    /// yes when one is, unknown when none is but one is unknown, as the
    /// query's rule 8 wants. Nil when one is nil (everything matches).
    static func any(of predicates: [SamplePredicate?], type: SampleType) -> CompiledPredicate? {
        guard !predicates.contains(where: { $0 == nil }) else { return nil }
        let ps = predicates.map { $0! }
        return CompiledPredicate(ps.count == 1 ? ps[0] : .or(ps), type: type)
    }

    deinit {
        program.nodes.deallocate()
        program.general.deinitialize()
        program.general.deallocate()
    }

    /// The predicate's truth for a stored record (the scan reads `program`).
    func evaluate(_ r: RecordView, _ ctx: EvalContext) -> Truth {
        program.evaluate(r, ctx)
    }

    private static func emit(_ p: SamplePredicate, _ type: SampleType, _ nodes: inout [Node], _ general: inout [SamplePredicate]) {
        switch p {
        case .dateRange(let s, let e, let options):
            nodes.append(.dateRange(lo: s?.timeIntervalSinceReferenceDate ?? -.infinity,
                                    hi: e?.timeIntervalSinceReferenceDate ?? .infinity, options: options))
        case .startDate(let op, let d):
            nodes.append(.start(op, d.timeIntervalSinceReferenceDate))
        case .endDate(let op, let d):
            nodes.append(.end(op, d.timeIntervalSinceReferenceDate))
        case .quantity(let op, let v, let unit):
            if let canonical = type.canonicalUnit, let threshold = try? unit.convert(v, to: canonical) {
                nodes.append(.quantity(op, threshold))
            } else {
                general.append(p)  // refused by validation; evaluated as the enum does
                nodes.append(.general(general.count - 1))
            }
        case .categoryValue(let op, let v):
            nodes.append(.category(op, v))
        case .and(let ps), .or(let ps):
            let at = nodes.count
            nodes.append(.and(span: 0))
            for c in ps { emit(c, type, &nodes, &general) }
            let span = nodes.count - at
            if case .and = p { nodes[at] = .and(span: span) } else { nodes[at] = .or(span: span) }
        case .not(let c):
            let at = nodes.count
            nodes.append(.not(span: 0))
            emit(c, type, &nodes, &general)
            nodes[at] = .not(span: nodes.count - at)
        default:
            general.append(p)
            nodes.append(.general(general.count - 1))
        }
    }
}

extension CompiledPredicate.Program {
    @inline(__always)
    func evaluate(_ r: RecordView, _ ctx: EvalContext) -> Truth {
        if let starts { return Truth(starts.contains(r.start)) }
        return eval(0, r, ctx)
    }

    /// Kleene's AND (`decisive` .no) or OR (`decisive` .yes) of the
    /// children of node `i`: the decisive value as soon as a child has it,
    /// else unknown if a child is, else the other value.
    private func combine(_ i: Int, _ span: Int, _ r: RecordView, _ ctx: EvalContext, decisive: Truth) -> Truth {
        var result: Truth = decisive == .no ? .yes : .no
        var c = i + 1
        while c < i + span {
            let t = eval(c, r, ctx)
            if t == decisive { return t }
            if t == .unknown { result = .unknown }
            c += width(c)
        }
        return result
    }

    @inline(__always)
    private func width(_ i: Int) -> Int {
        switch nodes[i] {
        case .and(let s), .or(let s), .not(let s): s
        default: 1
        }
    }

    private func eval(_ i: Int, _ r: RecordView, _ ctx: EvalContext) -> Truth {
        switch nodes[i] {
        case .dateRange(let lo, let hi, let options):
            let start = r.start, end = r.end
            // Rule 8b, as `SamplePredicate.evaluate` (start <= end).
            let afterLo = options.contains(.strictStartDate) ? start >= lo : end >= lo
            let beforeHi = options.contains(.strictEndDate) ? end < hi : start < hi
            return Truth(afterLo && beforeHi)
        case .start(let op, let t):
            return Truth(op.holds(r.start, t))
        case .end(let op, let t):
            return Truth(op.holds(r.end, t))
        case .quantity(let op, let threshold):
            if r.isTombstone { return .unknown }
            return Truth(!r.isCategory && op.holds(r.quantity, threshold))
        case .category(let op, let v):
            if r.isTombstone { return .unknown }
            return Truth(r.isCategory && op.holds(r.category, v))
        case .and(let span):
            return combine(i, span, r, ctx, decisive: .no)
        case .or(let span):
            return combine(i, span, r, ctx, decisive: .yes)
        case .not:
            return !eval(i + 1, r, ctx)
        case .general(let k):
            return general[k].evaluate(r, ctx)
        }
    }
}
