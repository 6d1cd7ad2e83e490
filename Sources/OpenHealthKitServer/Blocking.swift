#if Server
import NIOPosix
import OpenHealthKitUpload

/// Runs store calls, which block on LMDB and fsync, on NIO's thread pool,
/// never on the event loops or Swift's cooperative threads.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await NIOThreadPool.singleton.runIfActive(body)
}
#endif
