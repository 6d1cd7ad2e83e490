import FoundationEssentials
@testable import OpenHealthKitCore
import Testing

/// Activity summaries (rule 43): one per day, replaced whole, read by day
/// range; a query with updates gets only what changed, after each commit.
@Suite struct ActivitySummaryTests {
    private func day(_ text: String) throws -> ActivitySummary.Day { try ActivitySummary.Day(text) }

    @Test func rule43_oneSummaryPerDayReplacedWholeAndReadInCalendarOrder() throws {
        let store = try makeStore()
        defer { store.close() }
        let a = ActivitySummary(day: try day("2024-03-02"), activeEnergyBurned: 410, activeEnergyBurnedGoal: 500,
                                appleExerciseTime: 31, exerciseTimeGoal: 30, appleStandHours: 10, standHoursGoal: 12)
        let b = ActivitySummary(day: try day("2024-02-29"), appleMoveTime: 40, appleMoveTimeGoal: 30, moveMode: .appleMoveTime)
        #expect(try store.saveActivitySummaries([a, b]) == 2)
        #expect(try store.activitySummaries() == [b, a])
        // Saved again as it is: no change; changed: replaced whole.
        #expect(try store.saveActivitySummaries([a]) == 0)
        var a2 = a
        a2.activeEnergyBurned = nil
        a2.isPaused = true
        #expect(try store.saveActivitySummaries([a2]) == 1)
        #expect(try store.activitySummaries(from: try day("2024-03-01"), through: try day("2024-03-31")) == [a2])
        #expect(try store.activitySummaries(through: try day("2024-02-29")) == [b])
        // What changed since a sequence, and nothing at all when nothing did.
        let (_, seq) = try store.activitySummaries(from: nil, through: nil, changedAfter: 0)
        var b2 = b
        b2.appleMoveTime = 45
        try store.saveActivitySummaries([b2])
        #expect(try store.activitySummaries(from: nil, through: nil, changedAfter: seq).summaries == [b2])
    }

    @Test func rule43_badDaysAndValuesAreRefused() throws {
        let store = try makeStore()
        defer { store.close() }
        #expect(throws: OHKError.self) { try day("2023-02-29") }
        #expect(throws: OHKError.self) { try day("2024-13-01") }
        #expect(throws: OHKError.self) { try day("24-1-1") }
        #expect(throws: OHKError.self) {
            try store.saveActivitySummaries([ActivitySummary(day: try day("2024-01-01"), appleStandHours: -1)])
        }
        let d = try day("2024-01-01")
        #expect(throws: OHKError.self) { try store.saveActivitySummaries([ActivitySummary(day: d), ActivitySummary(day: d)]) }
        #expect(try store.activitySummaries().isEmpty)
    }

    @Test func rule43_aSequenceFromAnotherStoreAndABackwardRangeAreRefused() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.saveActivitySummaries([ActivitySummary(day: try day("2024-01-01"), appleStandHours: 1)])
        let (_, seq) = try store.activitySummaries(from: nil, through: nil, changedAfter: 0)
        #expect(errorCode { _ = try store.activitySummaries(from: nil, through: nil, changedAfter: seq + 1) } == .invalidArgument)
        #expect(try store.activitySummaries(from: nil, through: nil, changedAfter: seq).summaries.isEmpty)
        #expect(errorCode { _ = try store.activitySummaries(from: try day("2024-02-01"), through: try day("2024-01-01")) }
                == .invalidArgument)
    }

    /// `verify()` (`ohk check`) reads the activity tree too.
    @Test func rule43_checkFindsADamagedSummaryAKeyThatIsNoDayAndAStampPastTheLast() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.saveActivitySummaries([ActivitySummary(day: try day("2024-01-01"), appleStandHours: 1)])
        #expect(try store.verify().isClean)
        try store.env.write { txn in
            try txn.put(store.trees.activity, u64: 20_240_102, [1, 2, 3])
            try txn.put(store.trees.activity, u64: 20_241_399,
                        ActivitySummaryCodec.encode(ActivitySummary(day: try day("2024-01-03")), sequence: 1))
            try txn.put(store.trees.activity, u64: 20_240_104,
                        ActivitySummaryCodec.encode(ActivitySummary(day: try day("2024-01-04")), sequence: 99))
        }
        let problems = try store.verify().problems
        // Each of the three, and the activity table's check (format 15), which no write kept.
        #expect(problems.count == 4)
        #expect(problems.contains("the activity table does not match its check: an entry's bytes changed on disk"))
        #expect(problems.contains { $0.contains("2024-01-02") && $0.contains("does not decode") })
        #expect(problems.contains { $0.contains("20241399") })
        #expect(problems.contains { $0.contains("2024-01-04") && $0.contains("change 99") })
        #expect(errorCode { _ = try store.activitySummaries() } == .storeCorrupt)
    }

    @Test func rule43_aQueryWithUpdatesGetsTheRangeThenOnlyWhatChanged() throws {
        let store = try makeStore()
        defer { store.close() }
        let inRange = ActivitySummary(day: try day("2024-05-10"), appleStandHours: 3)
        try store.saveActivitySummaries([inRange])
        let calls = Locked<[([ActivitySummary], Bool)]>([])
        let waiter = Waiter()
        let q = ActivitySummaryQuery(from: try day("2024-05-01"), through: try day("2024-05-31"), updates: true) { _, r, isUpdate in
            calls.withLock { $0.append(((try? r.get()) ?? [], isUpdate)) }
            waiter.add("calls")
        }
        try store.execute(q)
        defer { q.stop() }
        #expect(waiter.wait { waiter.value("calls") >= 1 })
        // A sample saved: a commit that changes no summary calls nothing.
        _ = try store.save([try stepSample(5)])
        var changed = inRange
        changed.appleStandHours = 4
        try store.saveActivitySummaries([changed, ActivitySummary(day: try day("2024-06-01"), appleStandHours: 1)])
        #expect(waiter.wait { waiter.value("calls") >= 2 })
        let got = calls.withLock { $0 }
        #expect(got.count == 2)
        #expect(got[0].0 == [inRange] && !got[0].1)
        #expect(got[1].0 == [changed] && got[1].1)  // not June's: outside the range
    }

    @Test func rule43_aQueryWithoutUpdatesStopsAfterItsResults() throws {
        let store = try makeStore()
        defer { store.close() }
        let waiter = Waiter()
        let q = ActivitySummaryQuery(updates: false) { _, r, _ in
            if case .success(let s) = r, s.isEmpty { waiter.add("empty") }
        }
        try store.execute(q)
        #expect(waiter.wait { waiter.value("empty") == 1 })
        #expect(q.waitUntilStopped(seconds: 30))
        #expect(throws: OHKError.self) {
            try store.execute(ActivitySummaryQuery(from: try day("2024-02-01"), through: try day("2024-01-01"), updates: false) { _, _, _ in })
        }
    }
}
