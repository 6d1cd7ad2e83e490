#if Server
import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitUpload

/// Wakes the requests waiting for a store's next commit (long polls and
/// event streams) from one `CommitListener`, so that no thread is held
/// per waiter. A waiter names the generation it has seen; a commit after
/// it, even before the waiter sleeps, is never missed.
final class CommitBroadcast: @unchecked Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Waiters released (timed out, cancelled) before they slept.
        var released: Set<UInt64> = []
        var next: UInt64 = 0
    }
    private let state = Locked(State())

    var generation: UInt64 { state.withLock { $0.generation } }

    /// Called on the listener's thread after each commit.
    func committed() {
        let woken = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.generation &+= 1
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for w in woken { w.resume() }
    }

    /// Returns when the generation moves past `seen`, when `timeout` ends,
    /// or when the task is cancelled; true when there was a commit.
    func wait(after seen: UInt64, timeout: Duration) async -> Bool {
        let id = state.withLock { s -> UInt64 in
            s.next &+= 1
            return s.next
        }
        let timer = Task {
            do { try await Task.sleep(for: timeout) } catch { return }  // cancelled: the wait ended
            self.release(id)
        }
        defer {
            timer.cancel()
            state.withLock { _ = $0.released.remove(id) }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.generation != seen || s.released.contains(id) { return true }
                    s.waiters[id] = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            release(id)
        }
        return generation != seen
    }

    /// Resumes waiter `id` if it still waits.
    private func release(_ id: UInt64) {
        let w = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let w = s.waiters.removeValue(forKey: id) else {
                s.released.insert(id)
                return nil
            }
            return w
        }
        w?.resume()
    }
}
#endif
