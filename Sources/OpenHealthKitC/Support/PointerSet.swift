/// A set of non-null addresses: open addressing with linear probing and
/// Fibonacci hashing. The registry asks it on every call that takes a
/// handle (several per query); `Set` hashed each address with SipHash,
/// a twentieth of a short query through C, where an address needs only
/// a multiply to spread. Removal shifts the following entries back, so
/// there are no tombstones and a lookup stops at the first empty slot.
struct PointerSet {
    private var slots: [UInt]
    private var shift: UInt64
    private(set) var count = 0

    init() {
        slots = [UInt](repeating: 0, count: 64)
        shift = 64 - 6
    }

    func contains(_ p: UnsafeRawPointer) -> Bool {
        let key = UInt(bitPattern: p)
        var i = home(key)
        while true {
            let s = slots[i]
            if s == key { return true }
            if s == 0 { return false }
            i = (i + 1) & (slots.count - 1)
        }
    }

    /// Adds `p`; false when it was there already.
    @discardableResult
    mutating func insert(_ p: UnsafeRawPointer) -> Bool {
        if (count + 1) * 2 > slots.count { grow() }
        let key = UInt(bitPattern: p)
        var i = home(key)
        while slots[i] != 0 {
            if slots[i] == key { return false }
            i = (i + 1) & (slots.count - 1)
        }
        slots[i] = key
        count += 1
        return true
    }

    /// Removes `p`; false when it was not there.
    @discardableResult
    mutating func remove(_ p: UnsafeRawPointer) -> Bool {
        let key = UInt(bitPattern: p)
        let mask = slots.count - 1
        var i = home(key)
        while slots[i] != key {
            if slots[i] == 0 { return false }
            i = (i + 1) & mask
        }
        // Shift back each following entry whose home is not in (i, j].
        var j = i
        while true {
            j = (j + 1) & mask
            let s = slots[j]
            if s == 0 { break }
            let h = home(s)
            let stays = i <= j ? (i < h && h <= j) : (i < h || h <= j)
            if !stays {
                slots[i] = s
                i = j
            }
        }
        slots[i] = 0
        count -= 1
        return true
    }

    private func home(_ key: UInt) -> Int {
        // Handles are 16-byte aligned: drop the zero bits, then spread.
        Int(truncatingIfNeeded: (UInt64(key >> 4) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    private mutating func grow() {
        let old = slots
        slots = [UInt](repeating: 0, count: old.count * 2)
        shift -= 1
        count = 0
        for s in old where s != 0 { insert(UnsafeRawPointer(bitPattern: s)!) }
    }
}
