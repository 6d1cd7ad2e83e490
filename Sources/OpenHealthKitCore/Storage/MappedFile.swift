import Glibc

/// Where a file is mapped in this process, read from /proc/self/maps as
/// bytes: a large import releases the store's pages hundreds of times,
/// and splitting each line into Swift strings cost 1.3 ms a release (a
/// second of CPU a gigabyte).
enum MappedFile {
    /// The ranges mapping the file of `device` and `inode` (`stat`'s).
    static func ranges(device: UInt64, inode: UInt64) -> [(UnsafeMutableRawPointer, Int)] {
        let fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        // The whole text first: it is made as it is read, a page at a time.
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            text += chunk[..<n]
        }
        // glibc's encoding of major and minor in st_dev.
        let major = (device >> 8) & 0xfff | (device >> 32) & ~UInt64(0xfff)
        let minor = device & 0xff | (device >> 12) & ~UInt64(0xff)
        var found: [(UnsafeMutableRawPointer, Int)] = []
        var at = 0
        while at < text.count {
            let end = text[at...].firstIndex(of: UInt8(ascii: "\n")) ?? text.count
            // "start-end perms offset major:minor inode path"
            if let line = Line(text[at..<end]), line.major == major, line.minor == minor, line.inode == inode,
               line.high > line.low, let address = UnsafeMutableRawPointer(bitPattern: UInt(line.low)) {
                found.append((address, Int(line.high - line.low)))
            }
            at = end + 1
        }
        return found
    }

    /// The fields of a line of /proc/self/maps that say what is mapped where.
    private struct Line {
        var low: UInt64 = 0, high: UInt64 = 0, major: UInt64 = 0, minor: UInt64 = 0, inode: UInt64 = 0

        init?(_ bytes: ArraySlice<UInt8>) {
            var i = bytes.startIndex
            func number(_ radix: UInt64, until stop: UInt8) -> UInt64? {
                var v: UInt64 = 0, digits = 0
                while i < bytes.endIndex, bytes[i] != stop {
                    let b = bytes[i]
                    let d: UInt64
                    switch b {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt64(b - UInt8(ascii: "0"))
                    case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: d = UInt64(b - UInt8(ascii: "a") + 10)
                    default: return nil
                    }
                    v = v &* radix &+ d
                    digits += 1
                    i += 1
                }
                guard digits > 0, i < bytes.endIndex else { return nil }
                i += 1  // past `stop`
                return v
            }
            func skip(past stop: UInt8) -> Bool {
                while i < bytes.endIndex, bytes[i] != stop { i += 1 }
                guard i < bytes.endIndex else { return false }
                i += 1
                return true
            }
            guard let low = number(16, until: UInt8(ascii: "-")), let high = number(16, until: UInt8(ascii: " ")),
                  skip(past: UInt8(ascii: " ")), skip(past: UInt8(ascii: " ")),  // perms, offset
                  let major = number(16, until: UInt8(ascii: ":")), let minor = number(16, until: UInt8(ascii: " ")),
                  let inode = number(10, until: UInt8(ascii: " ")) else { return nil }
            (self.low, self.high, self.major, self.minor, self.inode) = (low, high, major, minor, inode)
        }
    }
}
