import Glibc
import Synchronization

/// What every C handle is: a Swift object whose address the caller holds.
/// The registry knows which addresses are live, so a closed, freed or
/// foreign pointer gets a status instead of a crash, and a handle of the
/// wrong kind is named in the message.
/// Every handle may be used from any thread (the C contract), hence
/// `@unchecked Sendable`, restated by each kind.
class Handle: @unchecked Sendable {
    /// The C type name, for messages ("ohk_store").
    class var kindName: String { "handle" }
}

/// The live handles. One lock for all: every call that takes a handle
/// looks it up once (a multiply and a probe or two), far below the cost
/// of the call. The set lives inside the lock (one global, no dynamic
/// exclusivity check on a global `var`): a short query through C makes
/// six lookups, each a cache miss or two once a durable save has cooled
/// the caches.
enum Registry {
    private static let live = Mutex(PointerSet())

    /// Makes `handle` live and returns the pointer the caller gets; the
    /// registry holds a reference until `remove`.
    static func add<H: Handle, C>(_ handle: H, as _: C.Type = C.self) -> UnsafeMutablePointer<C> {
        let p = Unmanaged.passRetained(handle as Handle).toOpaque()
        live.withLock { _ = $0.insert(p) }
        return p.assumingMemoryBound(to: C.self)
    }

    /// The live handle at `pointer`, which must be an `H`.
    static func get<H: Handle>(_ pointer: UnsafeRawPointer?, _: H.Type, _ what: @autoclosure () -> String) throws -> H {
        guard let pointer else { throw CError(.invalidArgument, "\(what()) is NULL") }
        let handle: Handle? = live.withLock { set in
            set.contains(pointer) ? Unmanaged<Handle>.fromOpaque(pointer).takeUnretainedValue() : nil
        }
        guard let handle else {
            throw CError(.closed, "\(what()) is not a live \(H.kindName) (closed, freed, or never made by this library)")
        }
        // Handle classes are final: the exact class is the kind.
        guard type(of: handle) == H.self else {
            throw CError(.invalidArgument, "\(what()) is an \(type(of: handle).kindName), not an \(H.kindName)")
        }
        return unsafeDowncast(handle, to: H.self)
    }

    /// Ends a handle's life: later calls with it get `OHK_ERR_CLOSED`.
    /// Returns the handle (nil when it was not live or not an `H`).
    static func remove<H: Handle>(_ pointer: UnsafeRawPointer?, _: H.Type) -> H? {
        guard let pointer else { return nil }
        let p = UnsafeMutableRawPointer(mutating: pointer)
        let removed: Handle? = live.withLock { set in
            guard set.contains(p), type(of: Unmanaged<Handle>.fromOpaque(p).takeUnretainedValue()) == H.self else { return nil }
            set.remove(p)
            return Unmanaged<Handle>.fromOpaque(p).takeRetainedValue()
        }
        return removed.map { unsafeDowncast($0, to: H.self) }
    }
}
