import COpenHealthKit
import Glibc
import OpenHealthKitCore

/// A failure of the C layer itself, or a core error on its way to C.
struct CError: Error {
    let status: Int32
    let message: String

    init(_ code: OHKError.Code, _ message: String) {
        status = code.status
        self.message = message
    }

    init(status: Int32, _ message: String) {
        self.status = status
        self.message = message
    }
}

extension OHKError.Code {
    /// The C status of a core error code: its negation (openhealthkit_types.h).
    var status: Int32 { -rawValue }
}

/// Reports a core error to C: the thread's message, and the status to return.
func report(_ e: OHKError) -> Int32 {
    LastError.set(e.message)
    return e.code.status
}

/// The message of the last failure on each thread (`ohk_last_error_message`).
enum LastError {
    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k) { free($0) }
        return k
    }()

    static func set(_ message: String) {
        free(pthread_getspecific(key))
        pthread_setspecific(key, strdup(message))
    }

    static var message: UnsafePointer<CChar> {
        if let p = pthread_getspecific(key) { return UnsafePointer(p.assumingMemoryBound(to: CChar.self)) }
        return staticEmpty
    }

    nonisolated(unsafe) private static let staticEmpty: UnsafePointer<CChar> = UnsafePointer(strdup("")!)
}

/// Runs one C entry point: its status, and the thread's message on failure.
@inline(__always)
func cCall(_ body: () throws -> Void) -> Int32 {
    do {
        try body()
        return 0
    } catch let e as CError {
        LastError.set(e.message)
        return e.status
    } catch let e as OHKError {
        return report(e)
    } catch {
        return report(OHKError(.storage, "\(error)"))
    }
}

/// Writes `value` through an out-parameter that must not be NULL.
@inline(__always)
func out<T>(_ pointer: UnsafeMutablePointer<T>?, _ what: @autoclosure () -> String) throws -> UnsafeMutablePointer<T> {
    guard let pointer else { throw CError(.invalidArgument, "\(what()) is NULL") }
    return pointer
}

/// A required C string as a Swift string; NULL and invalid UTF-8 are refused.
func string(_ p: UnsafePointer<CChar>?, _ what: @autoclosure () -> String) throws -> String {
    guard let p else { throw CError(.invalidArgument, "\(what()) is NULL") }
    guard let s = String(validatingCString: p) else { throw CError(.invalidArgument, "\(what()) is not valid UTF-8") }
    return s
}

/// An optional C string: NULL is nil.
func optionalString(_ p: UnsafePointer<CChar>?, _ what: @autoclosure () -> String) throws -> String? {
    guard let p else { return nil }
    return try string(p, what())
}

/// A library-owned copy of `s`, freed with `ohk_string_free`.
func ownedCString(_ s: String) -> UnsafeMutablePointer<CChar> { strdup(s)! }

/// malloc'ed room for `count` values (at least one, so the pointer is
/// never NULL), for structs the caller frees with the library's free call.
func mallocArray<T>(of: T.Type, _ count: Int) -> UnsafeMutablePointer<T> {
    malloc(max(1, count) * MemoryLayout<T>.stride)!.bindMemory(to: T.self, capacity: max(1, count))
}

/// An array the caller passed as pointer + count: NULL is allowed only
/// with a zero count.
func buffer<T>(_ p: UnsafePointer<T>?, _ count: UInt64, _ what: @autoclosure () -> String) throws -> UnsafeBufferPointer<T> {
    guard count <= UInt64(Int32.max) else { throw CError(.invalidArgument, "\(what()): count \(count) is too large") }
    guard let p else {
        if count == 0 { return UnsafeBufferPointer(start: nil, count: 0) }
        throw CError(.invalidArgument, "\(what()) is NULL with a count of \(count)")
    }
    return UnsafeBufferPointer(start: p, count: Int(count))
}

/// Strings that live as long as the process: type identifiers and units,
/// handed to C as borrowed `const char *`. Bounded by the distinct names used.
enum Interned {
    private static let lock = Lock()
    nonisolated(unsafe) private static var table: [String: UnsafePointer<CChar>] = [:]

    static func cString(_ s: String) -> UnsafePointer<CChar> {
        lock.locked {
            if let p = table[s] { return p }
            let p = UnsafePointer(strdup(s)!)
            table[s] = p
            return p
        }
    }
}
