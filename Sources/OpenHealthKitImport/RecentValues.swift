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
    /// The entry found last, tried first: an export lists its records by
    /// type, so most lookups find the same entry as the one before, and
    /// comparing the others first (unequal Strings of one length are
    /// compared byte by byte) was most of a lookup's work.
    private var last = 0

    init(capacity: Int = 16) { self.capacity = capacity }

    /// The value for `key`, computed by `make` when it is not among the recent ones.
    mutating func value(for key: Key, _ make: (Key) -> Value) -> Value {
        value(where: { $0 == key }) { (key, make(key)) }
    }

    /// The value of the first recent key that `matches`; else `make`'s
    /// entry, remembered in place of the oldest one.
    mutating func value(where matches: (Key) -> Bool, _ make: () -> (Key, Value)) -> Value {
        if last < entries.count, matches(entries[last].key) { return entries[last].value }
        for i in entries.indices where i != last && matches(entries[i].key) {
            last = i
            return entries[i].value
        }
        let entry = make()
        if entries.count < capacity {
            last = entries.count
            entries.append(entry)
        } else {
            last = next
            entries[next] = entry  // round robin: cheap, and good enough for a few hot values
            next = (next + 1) % capacity
        }
        return entry.1
    }
}

/// Attribute text, interned: a value equal to a recent one comes back as
/// that very String (same storage, no allocation), so later `==` checks
/// on it are one compare.
struct TextInterner {
    private var recent = RecentValues<[UInt8], String>()

    mutating func string(_ text: UnsafePointer<CChar>) -> String {
        let count = strlen(text)
        return recent.value(where: { $0.count == count && memcmp($0, text, count) == 0 }) {
            (Array(UnsafeRawBufferPointer(start: text, count: count)), String(cString: text))
        }
    }
}
