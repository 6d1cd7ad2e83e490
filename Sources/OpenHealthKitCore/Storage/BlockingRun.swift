import Glibc

/// Runs `body` to its end from synchronous code (a command's `run`),
/// blocking the calling thread: `ohk serve` and `ohk mcp` are async, their
/// command-line root is not.
package func runBlocking(_ body: @escaping @Sendable () async throws -> Void) throws {
    let outcome = Locked<Result<Void, any Error>?>(nil)
    let done = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    sem_init(done, 0, 0)
    defer { sem_destroy(done); done.deallocate() }
    let signal = UInt(bitPattern: done)
    Task {
        let result: Result<Void, any Error>
        do { try await body(); result = .success(()) } catch { result = .failure(error) }
        outcome.withLock { $0 = result }
        sem_post(UnsafeMutablePointer<sem_t>(bitPattern: signal)!)
    }
    while sem_wait(done) != 0 {}
    try outcome.withLock { $0 }?.get()
}
