// openhealthkit.h section 10: Version, errors and strings
import COpenHealthKit
import Glibc
import OpenHealthKitCore

/// The library's version as text, "MAJOR.MINOR.PATCH".
/// Returns a static string (never NULL, never freed). Any thread; never blocks.
@c public func ohk_version_string() -> UnsafePointer<CChar> {
    Interned.cString(OHK_VERSION_STRING)
}

/// The ABI version of the library (OHK_ABI_VERSION of the header it was
/// built with). Bindings compare it with their own and refuse a mismatch.
/// Any thread; never blocks.
@c public func ohk_abi_version() -> UInt32 { UInt32(OHK_ABI_VERSION) }

/// The message of the last failed call on the calling thread, in English,
/// naming what was wrong ("" before any failure). Borrowed: valid until the
/// next failing call on this thread. Successful calls leave it unchanged.
/// Any thread; never blocks.
@c public func ohk_last_error_message() -> UnsafePointer<CChar> { LastError.message }

/// The name of a status code ("OHK_ERR_UNKNOWN_TYPE"), or "OHK_ERR_UNKNOWN"
/// for a value that is not one. Returns a static string. Any thread.
@c public func ohk_status_name(_ status: Int32) -> UnsafePointer<CChar> {
    Interned.cString(statusNames[status] ?? "OHK_ERR_UNKNOWN")
}

private let statusNames: [Int32: String] = [
    0: "OHK_OK", -1: "OHK_ERR_INVALID_ARGUMENT", -2: "OHK_ERR_UNKNOWN_TYPE", -3: "OHK_ERR_INVALID_UNIT",
    -4: "OHK_ERR_INCOMPATIBLE_UNIT", -5: "OHK_ERR_INVALID_VALUE", -6: "OHK_ERR_INVALID_DATE_RANGE",
    -7: "OHK_ERR_DUPLICATE_UUID", -8: "OHK_ERR_NOT_FOUND", -9: "OHK_ERR_ANCHOR_WRONG_STORE",
    -10: "OHK_ERR_ANCHOR_CORRUPT", -11: "OHK_ERR_ANCHOR_FROM_FUTURE", -12: "OHK_ERR_ANCHOR_EXPIRED",
    -13: "OHK_ERR_STORE_FORMAT_TOO_NEW", -14: "OHK_ERR_STORAGE", -15: "OHK_ERR_CLOSED",
    -16: "OHK_ERR_INVALID_PREDICATE", -17: "OHK_ERR_INVALID_METADATA", -18: "OHK_ERR_STORE_FORMAT_TOO_OLD",
    -19: "OHK_ERR_BUFFER_TOO_SMALL", -20: "OHK_ERR_STORE_CORRUPT", -21: "OHK_ERR_IMPORT_INPUT",
    -22: "OHK_ERR_IMPORT_DAMAGED", -23: "OHK_ERR_UNAVAILABLE", -24: "OHK_ERR_CANCELLED",
    -25: "OHK_ERR_SINK_CONNECT", -26: "OHK_ERR_SINK_CONNECTION_LOST", -27: "OHK_ERR_SINK_FENCED",
    -28: "OHK_ERR_SINK_REFUSED", -29: "OHK_ERR_SINK_CHECKPOINT", -30: "OHK_ERR_READ_ONLY",
    -31: "OHK_ERR_SYNC_CHECKPOINT", -32: "OHK_ERR_SYNC_BUSY",
]

/// Frees a string the library returned as owned (ohk_predicate_to_text,
/// ohk_unit_canonical). NULL is ignored. Any thread.
@c public func ohk_string_free(_ string: UnsafeMutablePointer<CChar>?) {
    free(string)
}
