import FoundationEssentials
import Glibc

/// A time zone of the system's tz database (`/usr/share/zoneinfo`, the
/// TZif files every Linux reads): its UTC offsets over time, daylight
/// saving included, for statistics intervals in calendar terms (rule 28).
/// Read here rather than through Foundation's `TimeZone`, which needs ICU
/// for named zones and the core does without.
public struct ZoneRules: Sendable, Hashable {
    public let identifier: String
    /// UTC instants (seconds since 1970) where the offset changes, sorted,
    /// and the offset (seconds east of UTC) from each on.
    private let transitions: [Int64]
    private let offsets: [Int32]
    /// The offset before the first transition.
    private let initial: Int32

    /// Where the tz database lives; tests may point elsewhere.
    static let directory = "/usr/share/zoneinfo"

    /// The zone named `identifier` ("Europe/Paris", "UTC"); an unknown name
    /// or an unreadable file is an invalid-argument error.
    public init(_ identifier: String) throws {
        let allowed = identifier.utf8.allSatisfy { c in
            (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c == 95 || c == 45 || c == 43 || c == 47
        }
        guard !identifier.isEmpty, allowed, !identifier.hasPrefix("/"), !identifier.contains("..") else {
            throw OHKError(.invalidArgument, "'\(identifier)' is not a time zone name (like Europe/Paris)")
        }
        guard let bytes = Self.read(Self.directory + "/" + identifier) else {
            throw OHKError(.invalidArgument, "unknown time zone '\(identifier)' (none in \(Self.directory); Debian: apt-get install tzdata)")
        }
        guard let parsed = Self.parse(bytes) else {
            throw OHKError(.invalidArgument, "the tz database's file for '\(identifier)' does not read as TZif")
        }
        self.identifier = identifier
        (transitions, offsets, initial) = parsed
    }

    /// The offset in force at `unix` (seconds since 1970). Past the file's
    /// last transition (2037 in the usual files) the last offset holds.
    public func offset(atUnix unix: Double) -> Int {
        var low = 0, high = transitions.count
        while low < high {
            let mid = (low + high) / 2
            if Double(transitions[mid]) <= unix { low = mid + 1 } else { high = mid }
        }
        return Int(low == 0 ? initial : offsets[low - 1])
    }

    /// The instant of local time `local` (seconds since 1970 read as a
    /// wall clock): of two, the earlier (a clock set back repeats an hour);
    /// of none (a clock set forward skips it), the moment the clock jumps,
    /// as Calendar's `.nextTime` does.
    public func instant(ofLocal local: Double) -> Double {
        let before = Double(offset(atUnix: local - 86_400)), after = Double(offset(atUnix: local + 86_400))
        let candidates = [local - max(before, after), local - min(before, after)]
        if let exact = candidates.first(where: { $0 + Double(offset(atUnix: $0)) == local }) { return exact }
        // A gap: the first transition after the earlier candidate.
        let from = candidates[0]
        return Double(transitions.first { Double($0) > from } ?? Int64(from))
    }

    private static func read(_ path: String) -> [UInt8]? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, f)
            if n == 0 { break }
            out.append(contentsOf: buffer[0..<n])
            if out.count > 1 << 20 { return nil }  // no zone file is this large
        }
        return out
    }

    /// RFC 8536: a version-1 header and body, then (version 2 and later)
    /// a second header and body with 64-bit times, which is the one read.
    private static func parse(_ b: [UInt8]) -> (transitions: [Int64], offsets: [Int32], initial: Int32)? {
        func u32(_ at: Int) -> Int? {
            guard at + 4 <= b.count else { return nil }
            return Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3])
        }
        func header(_ at: Int) -> (isut: Int, isstd: Int, leap: Int, time: Int, type: Int, chars: Int)? {
            guard at + 44 <= b.count, b[at] == 84, b[at + 1] == 90, b[at + 2] == 105, b[at + 3] == 102,
                  let isut = u32(at + 20), let isstd = u32(at + 24), let leap = u32(at + 28),
                  let time = u32(at + 32), let type = u32(at + 36), let chars = u32(at + 40), type > 0 else { return nil }
            return (isut, isstd, leap, time, type, chars)
        }
        guard let h1 = header(0) else { return nil }
        let version = b[4]
        var at = 44, timeSize = 4, h = h1
        if version >= 50 {  // '2' or later: skip the 32-bit body
            at += h1.time * 4 + h1.time + h1.type * 6 + h1.chars + h1.leap * 8 + h1.isstd + h1.isut
            guard let h2 = header(at) else { return nil }
            h = h2
            at += 44
            timeSize = 8
        }
        let timesAt = at, indexesAt = at + h.time * timeSize, typesAt = indexesAt + h.time
        guard typesAt + h.type * 6 <= b.count else { return nil }
        func time(_ i: Int) -> Int64 {
            var v: UInt64 = 0
            for k in 0..<timeSize { v = v << 8 | UInt64(b[timesAt + i * timeSize + k]) }
            return timeSize == 4 ? Int64(Int32(bitPattern: UInt32(v))) : Int64(bitPattern: v)
        }
        func typeOffset(_ t: Int) -> Int32? {
            guard t < h.type, let raw = u32(typesAt + t * 6) else { return nil }
            return Int32(bitPattern: UInt32(raw))
        }
        var transitions: [Int64] = [], offsets: [Int32] = []
        for i in 0..<h.time {
            guard let o = typeOffset(Int(b[indexesAt + i])), abs(Int(o)) <= Sample.maxUTCOffset + 3600 else { return nil }
            transitions.append(time(i))
            offsets.append(o)
        }
        guard zip(transitions, transitions.dropFirst()).allSatisfy({ $0 < $1 }), let first = typeOffset(0) else { return nil }
        return (transitions, offsets, first)
    }
}
