import Glibc

/// The last few values made from C strings (a type, a unit, a source of
/// up to three strings), found again by the strings' content: callers
/// reuse their buffers, so a pointer proves nothing. Inputs draw on a few
/// of each, often in turn: a save alternating five sources and two types
/// missed a one-entry memory at almost every sample, and parsed a unit or
/// built a source each time (a fifth of a bulk save).
struct RecentByText<Value> {
    private struct Entry {
        let a: [CChar]?, b: [CChar]?, c: [CChar]?
        let value: Value
    }
    private var entries: [Entry] = []
    /// The entry the next addition replaces once all are in use.
    private var oldest = 0
    private static var capacity: Int { 8 }

    init() {}

    /// The value remembered for these strings (nil ones included).
    func find(_ a: UnsafePointer<CChar>?, _ b: UnsafePointer<CChar>? = nil, _ c: UnsafePointer<CChar>? = nil) -> Value? {
        for i in entries.indices where Self.same(a, entries[i].a) && Self.same(b, entries[i].b) && Self.same(c, entries[i].c) {
            return entries[i].value
        }
        return nil
    }

    /// Remembers `value` for these strings, forgetting the oldest entry
    /// when full.
    mutating func add(_ value: Value, _ a: UnsafePointer<CChar>?, _ b: UnsafePointer<CChar>? = nil,
                      _ c: UnsafePointer<CChar>? = nil) {
        let e = Entry(a: a.map(Self.bytes), b: b.map(Self.bytes), c: c.map(Self.bytes), value: value)
        if entries.count < Self.capacity {
            entries.append(e)
        } else {
            entries[oldest] = e
            oldest = (oldest + 1) % Self.capacity
        }
    }

    private static func bytes(_ p: UnsafePointer<CChar>) -> [CChar] {
        Array(UnsafeBufferPointer(start: p, count: strlen(p) + 1))
    }

    private static func same(_ p: UnsafePointer<CChar>?, _ text: [CChar]?) -> Bool {
        switch (p, text) {
        case (nil, nil): return true
        case let (p?, t?): return t.withUnsafeBufferPointer { strcmp(p, $0.baseAddress!) == 0 }
        default: return false
        }
    }
}
