// C times (Unix seconds) and packed UUIDs ⇄ the core's Date and UUID.
import FoundationEssentials
import OpenHealthKitCore

/// C times are Unix seconds; the core keeps Dates (seconds since 2001).
enum UnixTime {
    static let referenceOffset = 978_307_200.0
    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
    static let range = -62_135_596_800.0 ... 253_402_300_799.0

    static func date(_ t: Double, _ what: @autoclosure () -> String) throws -> Date {
        guard t.isFinite else { throw CError(.invalidValue, "\(what()) is not a finite time (\(t))") }
        guard range.contains(t) else {
            throw CError(.invalidDateRange, "\(what()) \(t) is outside years 1 to 9999")
        }
        return Date(timeIntervalSince1970: t)
    }

    @inline(__always) static func seconds(_ date: Date) -> Double { date.timeIntervalSince1970 }
    /// A core reference-date time as Unix seconds.
    @inline(__always) static func fromReference(_ t: Double) -> Double { t + referenceOffset }
}

/// 16 C bytes ⇄ UUID.
enum UUIDBytes {
    static func isZero(_ t: uuid_t) -> Bool {
        withUnsafeBytes(of: t) { $0.allSatisfy { $0 == 0 } }
    }

    static func read(_ p: UnsafePointer<UInt8>) -> UUID {
        UUID(uuid: UnsafeRawPointer(p).loadUnaligned(as: uuid_t.self))
    }

    /// `count` UUIDs packed 16 bytes apart, as C passes them.
    static func array(_ p: UnsafePointer<UInt8>?, _ count: UInt64, _ what: String) throws -> [UUID] {
        guard count <= UInt64(Int32.max) / 16 else { throw CError(.invalidArgument, "\(what): count \(count) is too large") }
        let bytes = try buffer(p, count * 16, what)
        return (0..<Int(count)).map { read(bytes.baseAddress! + 16 * $0) }
    }
}
