import CLMDB
import COHKSystem
import Glibc
import Synchronization

/// The second thread of a large read in parts (rule 75): it reads parts
/// ahead, in a read transaction of the same snapshot, while the caller's
/// thread reads others and hands every part out in order
/// (`Store.readInPartsAhead`). Each part is read whole by one thread, as
/// a read on one thread reads it, so the parts are the same; only where
/// each one starts must be known ahead (`Store.recordPosition` for a walk,
/// `Store.positionsEnd` for a plan of positions). A store
/// keeps its thread between reads (`Store.partsHelper`; starting and
/// ending one took a tenth of a large delete's read) and stops it when
/// it closes.
final class PartsAhead: @unchecked Sendable {
    private let monitor = Monitor()
    /// The anchors of the parts asked for and not yet begun, in order.
    private var tasks: [QueryAnchor] = []
    /// The parts read and not yet taken, in order.
    private var results: [Result<RowsQueryResult, any Error>] = []
    /// Whether the thread is reading a part (taken from `tasks`, not yet
    /// in `results`).
    private var reading = false
    private var stopping = false
    /// How often the caller asked for freed memory to be given back once
    /// the thread is idle (`giveBackSoon`) since it last did.
    private var trimsWanted = 0
    private var thread = pthread_t()
    /// The read of one part, lent for one read in parts (`begin`, `end`:
    /// the caller's closure must not outlive its read).
    private var read: ((QueryAnchor) throws -> RowsQueryResult)?
    /// The process whose thread it is (a forked child has none).
    let owner = getpid()
    /// Itself in the process that started its thread; nil in a forked child.
    var ownedHere: PartsAhead? { owner == getpid() ? self : nil }
    /// How often each side has posted (a part asked for or the thread
    /// told to stop; a part read): what a thread watches while it spins.
    private let asked = Atomic<Int>(0), answered = Atomic<Int>(0)
    /// The caller's count of the parts it asked for and took.
    private var started = 0, taken = 0
    /// How often the caller asked the thread to give freed memory back,
    /// and how often it did (for tests).
    let askedToGiveBack = Atomic<Int>(0), givenBack = Atomic<Int>(0)

    init() {
        thread = startThread { [self] in run() }
    }

    private func run() {
        var begun = 0
        while true {
            Self.spin { asked.load(ordering: .acquiring) > begun }
            var trims = 0
            var (next, lent) = monitor.locked { () -> (QueryAnchor?, ((QueryAnchor) throws -> RowsQueryResult)?) in
                while tasks.isEmpty && !stopping && trimsWanted == 0 { monitor.wait() }
                if stopping { return (nil, nil) }
                if tasks.isEmpty {
                    (trims, trimsWanted) = (trimsWanted, 0)
                    return (nil, nil)
                }
                reading = true
                return (tasks.removeFirst(), read)
            }
            if trims > 0 {
                begun += trims  // each ask counted in `asked`
                FreedMemory.giveBack()
                givenBack.add(1, ordering: .releasing)
                continue
            }
            guard let anchor = next, lent != nil else { return }
            begun += 1
            let r: Result<RowsQueryResult, any Error>
            do { r = .success(try lent!(anchor)) } catch { r = .failure(error) }
            // Let go of before the part is posted: once the last is taken,
            // `end` returns the closure to its owner, which checks that no
            // one holds it (a binding held to the loop's end was a race).
            (next, lent) = (nil, nil)
            monitor.locked {
                results.append(r)
                reading = false
                monitor.broadcast()
            }
            answered.add(1, ordering: .releasing)
        }
    }

    /// The parts asked for and not yet taken.
    var pending: Int { started - taken }

    /// Whether the oldest part not yet taken has been read.
    var isReady: Bool { answered.load(ordering: .acquiring) > taken }

    /// Asks for the part after `anchor`, read after those asked before.
    func start(_ anchor: QueryAnchor) {
        started += 1
        monitor.locked {
            tasks.append(anchor)
            monitor.broadcast()
        }
        asked.add(1, ordering: .releasing)
    }

    /// Takes back the oldest part not yet taken when the thread has not
    /// begun it, for the caller to read instead of waiting: the thread
    /// may be waiting for a processor (another process's work, or the
    /// kernel writing back what a save wrote), and a read that waited on
    /// it ran at a third of one thread's speed. Whether it did; the thread
    /// then never reads that part.
    func withdrawOldest() -> Bool {
        let withdrawn = monitor.locked { () -> Bool in
            guard results.isEmpty, !reading, !tasks.isEmpty else { return false }
            tasks.removeFirst()
            return true
        }
        if withdrawn {
            started -= 1
            asked.subtract(1, ordering: .releasing)
        }
        return withdrawn
    }

    /// Waits for the oldest part not yet taken; its error, if it failed.
    func take() throws -> RowsQueryResult {
        taken += 1
        Self.spin { answered.load(ordering: .acquiring) >= taken }
        let r: Result<RowsQueryResult, any Error> = monitor.locked {
            while results.isEmpty { monitor.wait() }
            return results.removeFirst()
        }
        return try r.get()
    }

    /// Lends the thread `read` for the parts asked for until `end`.
    func begin(_ read: @escaping (QueryAnchor) throws -> RowsQueryResult) {
        monitor.locked { self.read = read }
    }

    /// Waits for the parts asked for and not taken, drops them (their
    /// blocks given back) and the lent read: before the read that lends
    /// the thread its transaction ends.
    func end() {
        while pending > 0 { (try? take())?.giveBack() }
        monitor.locked { read = nil }
    }

    /// Asks the thread to give the memory freed so far back to the system
    /// (`FreedMemory.giveBack`) once it has no part to read: a large
    /// read's trim, which took a tenth of the workload's delete's query
    /// on the caller's thread (235 µs of 2.2 ms), then runs beside the
    /// caller's next work.
    func giveBackSoon() {
        askedToGiveBack.add(1, ordering: .relaxed)
        monitor.locked {
            trimsWanted += 1
            monitor.broadcast()
        }
        asked.add(1, ordering: .releasing)
    }

    /// Ends the thread (when the store closes), after `end`.
    func stop() {
        monitor.locked {
            stopping = true
            monitor.broadcast()
        }
        asked.add(1, ordering: .releasing)
        pthread_join(thread, nil)
    }

    /// Returns once `ready` is true or some 200 µs have passed, for the
    /// caller to wait on the monitor after. A part takes a tenth of a
    /// millisecond or so, and waking a thread that sleeps took tens of
    /// microseconds on a virtual machine, once for each side of each part.
    private static func spin(_ ready: () -> Bool) {
        var started = timespec()
        clock_gettime(CLOCK_MONOTONIC, &started)
        var i = 0
        while !ready() {
            i += 1
            if i & 63 == 0 {
                var now = timespec()
                clock_gettime(CLOCK_MONOTONIC, &now)
                if (now.tv_sec - started.tv_sec) * 1_000_000_000 + (now.tv_nsec - started.tv_nsec) > 200_000 { return }
            }
            ohk_cpu_relax()
        }
    }
}

extension Store {
    /// Whether a read in parts of `records` from `from` (to `head`) uses
    /// a second thread: when there is room for two parts at least after
    /// `from` (the thread is started once for the store and woken in tens
    /// of microseconds; a part of 4,096 records takes a tenth of a
    /// millisecond or more) and a second processor.
    func partsAheadPay(records: Int, from: UInt64, head: UInt64, part: Int) -> Bool {
        min(records, Self.positions(from: from, head: head)) >= 2 * part && partsThreadWanted
    }

    /// Whether reads in parts may use a second thread at all: with a
    /// second processor (or as the tests ask, `StoreTuning.partsAhead`).
    var partsThreadWanted: Bool { tuning.partsAhead ?? Processors.several }

    /// A read in parts (`read`: one part from an anchor) on two threads,
    /// every part handed to `deliver` in order on this one. `end` says
    /// where the part after a position ends (nil: it is the last) before
    /// it is read: for a walk, each object is a record of the type's tree
    /// (`recordPosition` counts them in the leaf pages); for a plan whose
    /// positions are each an object, the positions (`positionsEnd`). A
    /// `PartsAhead` reads in `second`, a transaction of the same
    /// snapshot as `txn`, and is kept two parts ahead; this thread reads
    /// the first part, and a later part whenever the next to go out is not
    /// read yet (two ahead at most): the thread that also hands the parts
    /// out reads fewer, as many fewer as handing them out takes.
    /// Returns nil when `deliver` returns false (a short part or a stop).
    /// Should a part not end where the next one was to begin, the parts
    /// after it are dropped, and it returns where a read on one thread
    /// goes on: the part's anchor.
    func readInPartsAhead(_ txn: Txn, _ second: Txn, from anchor: QueryAnchor?, part: Int,
                          end: (UInt64) throws -> UInt64?, _ read: (Txn, QueryAnchor?) throws -> RowsQueryResult,
                          deliver: (RowsQueryResult) throws -> Bool) throws -> QueryAnchor? {
        let (_, horizon) = try position(txn)
        return try withoutActuallyEscaping(read) { read in
            let helper = takePartsHelper() ?? PartsAhead()
            helper.begin { try read(second, $0) }
            var planned: [PlannedPart] = []
            defer {
                helper.end()
                for p in planned { p.result?.giveBack() }
                // Kept for the next read; one more (a read beside this one) stops.
                partsHelper.withLock { h -> PartsAhead? in
                    guard h == nil else { return helper }
                    h = helper
                    return nil
                }?.stop()
            }
            // Where the next part not yet planned starts (0: the start);
            // nil: there is none.
            var next: UInt64? = anchor?.position ?? 0
            func partAnchor(after p: UInt64) -> QueryAnchor? {
                p == (anchor?.position ?? 0) ? anchor : QueryAnchor(storeID: storeID, position: p, horizon: horizon)
            }
            func plan(here: Bool) throws {
                guard let p = next else { return }
                next = try end(p)
                if !here {
                    helper.start(partAnchor(after: p)!)
                    partsAskedAhead.add(1, ordering: .relaxed)
                }
                planned.append(PlannedPart(after: p, here: here))
            }
            try plan(here: true)
            while true {
                while helper.pending < 2, next != nil { try plan(here: false) }
                let r: RowsQueryResult
                if planned[0].here {
                    r = try planned[0].result ?? read(txn, partAnchor(after: planned[0].after))
                } else if !helper.isReady, helper.withdrawOldest() {
                    // The thread has not begun it: read here, not waited for.
                    planned[0].here = true
                    continue
                } else if !helper.isReady, next != nil, planned.count(where: \.here) < 2 {
                    // Rather than wait: a later part, read here.
                    try plan(here: true)
                    planned[planned.count - 1].result = try read(txn, partAnchor(after: planned[planned.count - 1].after))
                    continue
                } else {
                    r = try helper.take()
                }
                planned.removeFirst()
                let end = r.objects == part ? r.result.newAnchor.position : nil
                if end != (planned.first?.after ?? next) {
                    // Not where the next part was to begin (not expected of
                    // a walk): what was planned after it is dropped (as the
                    // read ends) and read again on one thread.
                    return try deliver(r) ? r.result.newAnchor : nil
                }
                guard try deliver(r) else { return nil }
            }
        }
    }

    /// Gives freed memory back (`FreedMemory.giveBack`): on the store's
    /// parts thread when it has one (`PartsAhead.giveBackSoon`), so that
    /// the call returns without waiting for it; else here.
    func giveBackFreedMemory() {
        if let helper = partsHelper.withLock({ $0 })?.ownedHere { helper.giveBackSoon() } else { FreedMemory.giveBack() }
    }

    /// The store's parts thread, taken for one read (a read beside it
    /// starts one of its own); nil when there is none, or when it is a
    /// parent's that a fork left without its thread.
    func takePartsHelper() -> PartsAhead? {
        partsHelper.withLock { h in defer { h = nil }; return h }?.ownedHere
    }

    /// Where the part after position `p` ends in a plan of `positions`
    /// (ascending), each an object: at its `part`-th position after `p`;
    /// nil when there are fewer.
    static func positionsEnd(_ positions: ArraySlice<UInt64>, after p: UInt64, part: Int) -> UInt64? {
        var (lo, hi) = (positions.startIndex, positions.endIndex)
        while lo < hi {
            let mid = (lo + hi) / 2
            if positions[mid] <= p { lo = mid + 1 } else { hi = mid }
        }
        return lo + part - 1 < positions.endIndex ? positions[lo + part - 1] : nil
    }

    /// The position of the `count`-th record of a record tree at or after
    /// `from`, nil when there are fewer: where a part of a walk ends. The
    /// nodes are counted in the leaf pages' headers, the leaves after the
    /// cursor's found in their parent page (`LeafPage.sibling`); LMDB is
    /// asked only to move to the next parent's first leaf. An entry LMDB
    /// reads itself (a record in overflow pages) counts one step.
    static func recordPosition(_ count: Int, from: UInt64, _ cursor: Cursor, _ map: LeafPage.Map) throws -> UInt64? {
        var left = count
        var lastPage: UInt64?
        var entry = try cursor.seek(atLeast: from)
        while let (seq, raw) = entry {
            if let page = LeafPage(record: raw, map) {
                if lastPage == nil { lastPage = map.lastPage(cursor) }
                switch countAhead(left, from: page, cursor, lastPage: lastPage!) {
                case .found(let key):
                    return key
                case .passed(let n, let last):
                    // Onto the last leaf counted, and a step past it.
                    if let (key, _) = last.entry(last.count - 1), try cursor.find(key) != nil {
                        left -= n
                        entry = try cursor.next()
                        continue
                    }
                case .unreadable:
                    break
                }
            }
            left -= 1
            if left == 0 { return seq }
            entry = try cursor.next()
        }
        return nil
    }

    private static let prefetchDistance = 8

    private enum Ahead {
        /// The record's position.
        case found(UInt64)
        /// This many records passed, through the whole of this leaf.
        case passed(Int, LeafPage)
        /// The record is not in place.
        case unreadable
    }

    /// `left` records counted from `page`'s node at `index` on, through
    /// the leaves after it under the same parent, whose headers are asked
    /// for `prefetchDistance` leaves ahead (a part's 80 or so leaves, each
    /// a miss in turn, took as long as a tenth of the part's read).
    private static func countAhead(_ left: Int, from page: LeafPage, _ cursor: Cursor, lastPage: UInt64) -> Ahead {
        var (leaf, first, passed, k) = (page, page.index, 0, 0)
        var previous: LeafPage?
        for d in 1...prefetchDistance { page.prefetchSibling(d, cursor, lastPage: lastPage) }
        while true {
            let here = leaf.count - first
            if left - passed <= here {
                if let (key, _) = leaf.entry(first + left - passed - 1) { return .found(key) }
                return previous.map { .passed(passed, $0) } ?? .unreadable
            }
            passed += here
            k += 1
            page.prefetchSibling(k + prefetchDistance, cursor, lastPage: lastPage)
            guard let next = page.sibling(k, cursor, lastPage: lastPage) else { return .passed(passed, leaf) }
            (previous, leaf, first) = (leaf, next, 0)
        }
    }
}

/// A part of a read in parts on two threads, handed out to be read: after
/// which position it starts, whether this thread reads it, and its result
/// once this thread has read it ahead.
private struct PlannedPart {
    let after: UInt64
    var here: Bool
    var result: RowsQueryResult?
}
