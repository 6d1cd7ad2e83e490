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
    static func read(_ t: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                           UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)) -> UUID { UUID(uuid: t) }

    static func isZero(_ t: uuid_t) -> Bool {
        withUnsafeBytes(of: t) { $0.allSatisfy { $0 == 0 } }
    }

    static func read(_ p: UnsafePointer<UInt8>) -> UUID {
        UUID(uuid: UnsafeRawPointer(p).loadUnaligned(as: uuid_t.self))
    }
}
