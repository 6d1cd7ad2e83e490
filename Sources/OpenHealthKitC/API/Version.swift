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
@c public func ohk_status_name(_ status: ohk_status) -> UnsafePointer<CChar> {
    Interned.cString(statusNames[status] ?? "OHK_ERR_UNKNOWN")
}

/// Frees a string the library returned as owned (ohk_predicate_to_text,
/// ohk_unit_canonical). NULL is ignored. Any thread.
@c public func ohk_string_free(_ string: UnsafeMutablePointer<CChar>?) {
    free(string)
}
