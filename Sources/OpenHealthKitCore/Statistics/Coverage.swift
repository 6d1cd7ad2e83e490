/// The seconds of one UTC hour that a type's samples cover, of every
/// source: sorted, disjoint runs of whole seconds (a sample covers each
/// second it touches; an instant, its second). Two samples that share a
/// second may overlap, so the hour's merged figures then come from the
/// samples (rule 26) rather than from the buckets. Samples on whole
/// seconds, as exports and the workload have them, never share one
/// unless they overlap.
struct Coverage: Equatable {
    /// [start, end) in seconds from the hour's start, 0...3600.
    private(set) var runs: [(start: UInt16, end: UInt16)] = []
    /// Whether two samples were seen to share a second.
    private(set) var overlaps = false

    static func == (a: Coverage, b: Coverage) -> Bool {
        a.overlaps == b.overlaps && a.runs.elementsEqual(b.runs) { $0 == $1 }
    }

    init() {}

    /// The seconds [from, to) of an hour that starts at `hourStart`, read
    /// as whole seconds; `to == from` is an instant.
    mutating func add(from: Double, to: Double, hourStart: Double) {
        let a = max(0, min(3599, (from - hourStart).rounded(.down)))
        let b = to > from ? max(a + 1, min(3600, (to - hourStart).rounded(.up))) : a + 1
        add(UInt16(a), UInt16(b))
    }

    /// Adds the run [a, b), noting an overlap when it shares a second
    /// with a run already there; touching runs join.
    mutating func add(_ a: UInt16, _ b: UInt16) {
        // Samples arrive mostly in time order: the end is the usual place.
        if let last = runs.last, a >= last.end {
            if a == last.end { runs[runs.count - 1].end = b } else { runs.append((a, b)) }
            return
        }
        var i = 0
        while i < runs.count, runs[i].end < a { i += 1 }
        var start = a, end = b
        var j = i
        while j < runs.count, runs[j].start <= b {
            if runs[j].start < b && runs[j].end > a { overlaps = true }
            start = min(start, runs[j].start)
            end = max(end, runs[j].end)
            j += 1
        }
        runs.replaceSubrange(i..<j, with: [(start, end)])
    }

    /// Adds another coverage of the same hour.
    mutating func merge(_ o: Coverage) {
        if o.overlaps { overlaps = true }
        for r in o.runs { add(r.start, r.end) }
    }

    var isEmpty: Bool { runs.isEmpty }

    func encode() -> [UInt8] {
        var w = ByteWriter(capacity: 1 + runs.count * 4)
        w.u8(overlaps ? 1 : 0)
        for r in runs {
            w.u16(r.start)
            w.u16(r.end)
        }
        return w.bytes
    }

    static func decode(_ raw: UnsafeRawBufferPointer) throws -> Coverage {
        guard raw.count % 4 == 1 else { throw OHKError(.storeCorrupt, "corrupt statistics coverage") }
        var c = Coverage()
        var r = ByteReader(raw)
        c.overlaps = try r.u8() != 0
        for _ in 0..<(raw.count / 4) { c.runs.append((try r.u16(), try r.u16())) }
        return c
    }
}
