import Glibc

/// What every C handle is: a Swift object whose address the caller holds.
/// The registry knows which addresses are live, so a closed, freed or
/// foreign pointer gets a status instead of a crash, and a handle of the
/// wrong kind is named in the message.
class Handle {
    /// The C type name, for messages ("ohk_store").
    class var kindName: String { "handle" }
}

/// The live handles. One lock for all: every call that takes a handle
/// looks it up once (a multiply and a probe or two), far below the cost
/// of the call.
enum Registry {
    private static let lock = Lock()
    nonisolated(unsafe) private static var live = PointerSet()

    private static func locked<T>(_ body: () throws -> T) rethrows -> T { try lock.locked(body) }

    /// Makes `handle` live and returns the pointer the caller gets; the
    /// registry holds a reference until `remove`.
    static func add<H: Handle, C>(_ handle: H, as _: C.Type = C.self) -> UnsafeMutablePointer<C> {
        let p = Unmanaged.passRetained(handle as Handle).toOpaque()
        locked { _ = live.insert(p) }
        return p.assumingMemoryBound(to: C.self)
    }

    /// The live handle at `pointer`, which must be an `H`.
    static func get<H: Handle>(_ pointer: UnsafeRawPointer?, _: H.Type, _ what: @autoclosure () -> String) throws -> H {
        guard let pointer else { throw CError(.invalidArgument, "\(what()) is NULL") }
        let handle: Handle = try locked {
            guard live.contains(pointer) else {
                throw CError(.closed, "\(what()) is not a live \(H.kindName) (closed, freed, or never made by this library)")
            }
            return Unmanaged<Handle>.fromOpaque(pointer).takeUnretainedValue()
        }
        guard let h = handle as? H else {
            throw CError(.invalidArgument, "\(what()) is an \(type(of: handle).kindName), not an \(H.kindName)")
        }
        return h
    }

    /// Ends a handle's life: later calls with it get `OHK_ERR_CLOSED`.
    /// Returns the handle (nil when it was not live or not an `H`).
    static func remove<H: Handle>(_ pointer: UnsafeRawPointer?, _: H.Type) -> H? {
        guard let pointer else { return nil }
        return locked { () -> H? in
            let p = UnsafeMutableRawPointer(mutating: pointer)
            guard live.contains(p), Unmanaged<Handle>.fromOpaque(p).takeUnretainedValue() is H else { return nil }
            live.remove(p)
            return (Unmanaged<Handle>.fromOpaque(p).takeRetainedValue() as! H)
        }
    }
}
