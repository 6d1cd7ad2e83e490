import Glibc

/// The last few distinct values seen, with what they map to, searched
/// linearly before anything is hashed. Export attributes repeat a handful
/// of values (types, units, sources, device descriptions) millions of
/// times; hashing them, often non-ASCII and normalised by Swift's String
/// hashing, cost more than the whole mapping.
struct RecentValues<Key: Equatable, Value> {
    private var entries: [(key: Key, value: Value)] = []
    private var next = 0
    private let capacity: Int

    init(capacity: Int = 16) { self.capacity = capacity }

    /// The value for `key`, computed by `make` when it is not among the recent ones.
    mutating func value(for key: Key, _ make: (Key) -> Value) -> Value {
        for e in entries where e.key == key { return e.value }
        let v = make(key)
        if entries.count < capacity {
            entries.append((key, v))
        } else {
            entries[next] = (key, v)  // round robin: cheap, and good enough for a few hot values
            next = (next + 1) % capacity
        }
        return v
    }
}

/// Attribute text, interned: a value equal to a recent one comes back as
/// that very String (same storage, no allocation), so later `==` checks
/// on it are one compare.
struct TextInterner {
    private var entries: [(bytes: [UInt8], string: String)] = []
    private var next = 0
    private let capacity = 16

    mutating func string(_ text: UnsafePointer<CChar>) -> String {
        let count = strlen(text)
        for e in entries where e.bytes.count == count && memcmp(e.bytes, text, count) == 0 { return e.string }
        let s = String(cString: text)
        let entry = (Array(UnsafeRawBufferPointer(start: text, count: count)), s)
        if entries.count < capacity {
            entries.append(entry)
        } else {
            entries[next] = entry
            next = (next + 1) % capacity
        }
        return s
    }
}
