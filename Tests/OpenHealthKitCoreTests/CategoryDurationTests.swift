import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// Rule 59: the time a category type's values cover, per interval, sources
/// merged by priority; for sleep, time in bed and the stages merge apart.
@Suite struct CategoryDurationTests {
    // 2020-11-01T12:00:00Z: noon, where nights start.
    private let noon = Date(timeIntervalSinceReferenceDate: 625_924_800)
    private let watch = Source(bundleIdentifier: "com.apple.health.watch", name: "Ann's Apple Watch")
    private let phone = Source(bundleIdentifier: "com.apple.health.phone", name: "Ann's iPhone")
    private let app = Source(bundleIdentifier: "com.example.sleep", name: "A sleep app")

    private func at(_ hours: Double) -> Date { noon.addingTimeInterval(hours * 3600) }

    private func sleep(_ value: Int, _ from: Double, _ to: Double, _ source: Source, offset: Int? = nil) throws -> Sample {
        try Sample.category(sleepType, value: value, start: at(from), end: at(to), source: source, utcOffset: offset)
    }

    private var sleepType: SampleType { try! SampleType.named("SleepAnalysis") }

    @Test func rule59_sourcesMergeByPriorityAndInBedIsItsOwnLayer() throws {
        let store = try makeStore()
        defer { store.close() }
        // Night one (22:00-07:00 UTC): the phone and an app both log time in bed, overlapping;
        // the watch logs stages inside it: core 23-01, deep 01-02, REM 02-03, awake 03-03:30, core 03:30-06.
        try store.save([
            try sleep(0, 10, 19, phone),               // in bed 22:00-07:00
            try sleep(0, 10.5, 19.5, app),             // in bed 22:30-07:30, another source
            try sleep(3, 11, 13, watch), try sleep(4, 13, 14, watch), try sleep(5, 14, 15, watch),
            try sleep(2, 15, 15.5, watch), try sleep(3, 15.5, 18, watch),
            try sleep(1, 12, 16, app),                 // the app's own asleep, covered by the watch's stages
            try sleep(0, 34, 42, phone),               // night two: in bed 22:00-06:00
        ])
        let nights = try store.categoryDurations(type: sleepType, anchor: noon, interval: .day, from: noon,
                                                 to: at(47))
        #expect(nights.map(\.startDate) == [at(0), at(24)])
        let one = nights[0].byValue
        // In bed: the union of both sources' time in bed, 22:00 to 07:30, not their 18 hours' sum.
        #expect(one[0] == 9.5 * 3600)
        // The watch comes first (rule 27): its stages count, and the app's asleep fills no gap.
        #expect(one[3] == 4.5 * 3600 && one[4] == 3600 && one[5] == 3600 && one[2] == 1800 && one[1] == nil)
        #expect(nights[0].total == 9.5 * 3600)
        #expect(nights[1].byValue == [0: 8 * 3600] && nights[1].total == 8 * 3600)
        // Put the app first: its asleep 00:00-04:00 counts, the watch's stages fill the rest.
        try store.setSourcePriority([app.bundleIdentifier], for: sleepType)
        let reordered = try store.categoryDurations(type: sleepType, anchor: noon, interval: .day, from: noon, to: at(23))
        // Core 23:00-00:00 and 04:00-06:00; deep, REM and awake lie under the app's asleep.
        #expect(reordered[0].byValue[1] == 4 * 3600 && reordered[0].byValue[3] == 3 * 3600)
        #expect(reordered[0].byValue[4] == nil && reordered[0].byValue[2] == nil)
        #expect(reordered[0].byValue[0] == 9.5 * 3600)  // time in bed is its own layer, not cut by the stages
        // A predicate selects before the merge; the duration statistic is the union of the merged pieces.
        let deep = try store.categoryDurations(type: sleepType, predicate: try SamplePredicate("value == 4"), anchor: noon,
                                               interval: .day, from: noon, to: at(23))
        #expect(deep[0].byValue == [4: 3600])
        let total = try store.statisticsCollection(type: sleepType, options: .duration, anchor: noon, interval: .day,
                                                   from: noon, to: at(23))
        #expect(total[0].duration == 9.5 * 3600)
        #expect(throws: OHKError.self) { try store.statistics(type: sleepType, options: .cumulativeSum) }
        #expect(throws: OHKError.self) {
            try store.categoryDurations(type: steps, anchor: noon, interval: .day, from: noon, to: at(23))
        }
    }

    /// Nights in each sample's own offset: a night in New York (UTC-5)
    /// and one in Tokyo (UTC+9), both 23:00-07:00 local, fall on their own
    /// nights, noon to noon local.
    @Test func rule59_nightsInEachSamplesOwnOffset() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.save([
            try sleep(1, 11 + 5, 19 + 5, watch, offset: -5 * 3600),        // 23:00-07:00 in New York
            try sleep(1, 24 + 11 - 9, 24 + 19 - 9, watch, offset: 9 * 3600),  // the next night, 23:00-07:00 in Tokyo
        ])
        let nights = try store.categoryDurations(type: sleepType, anchor: noon, interval: .day, from: noon, to: at(47),
                                                 sampleLocalTime: true)
        #expect(nights.count == 2 && nights.allSatisfy(\.isLocalTime))
        #expect(nights.map { $0.byValue[1] } == [8 * 3600, 8 * 3600])
    }
}
