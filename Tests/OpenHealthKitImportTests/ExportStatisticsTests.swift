import FoundationEssentials
import Testing
import OpenHealthKitCore
@testable import OpenHealthKitImport

/// Daily steps of a real export (Tests/Fixtures/export-phone-and-garmin.xml:
/// one day, 2017-10-22, of a phone and a Garmin watch through Garmin
/// Connect, plus one step count entered by hand), against figures worked
/// out by hand from the file's records. Rules 26–28 and 34.
@Suite struct ExportStatisticsTests {
    private let steps = try! SampleType.named("StepCount")
    // 2017-10-22T00:00:00+02:00, the day the records give in their own offset.
    private let day = Date(timeIntervalSinceReferenceDate: 530_316_000)

    private func daily(_ store: Store, _ interval: StatisticsInterval = .day) throws -> [Statistics] {
        try store.statisticsCollection(type: steps, options: [.cumulativeSum, .separateBySource], anchor: day,
                                       interval: interval, from: day, to: day.addingTimeInterval(86_399), utcOffset: 7200)
    }

    private func bundle(_ stats: Statistics, named name: String) -> String {
        stats.sources.first { $0.name == name }!.bundleIdentifier
    }

    @Test func rule26_aRealExportsDailyStepsCountTheWalkBothDevicesRecordedOnce() throws {
        let store = try newStore()
        defer { store.close() }
        #expect(try importFile(phoneAndGarmin, into: store).added == 21)
        let stats = try #require(try daily(store).first)
        // Each source's own sums: the records' values added up.
        let phone = bundle(stats, named: "Jonathan’s iPhone"), garmin = bundle(stats, named: "Connect")
        let byHand = bundle(stats, named: "Health")
        let phoneValues: [Double] = [18, 74, 37, 11, 39, 9, 16]
        let garminValues: [Double] = [125, 377, 321, 42, 9, 13, 42, 204, 34, 308, 168, 92, 9]
        #expect(stats.bySource[phone]?.sum == phoneValues.reduce(0, +))  // 204
        #expect(stats.bySource[garmin]?.sum == garminValues.reduce(0, +))  // 1,744
        #expect(stats.bySource[byHand]?.sum == 100)
        // Merged, the phone first (rule 27: phones before other apps). Connect's
        // quarter hours [17:15, 17:29:59), [17:30, 17:44:59) and [17:45, 17:59:59)
        // (899 s each) hold six of the phone's records: the phone covers 64 + 54 = 118 s,
        // 6 + 61 + 61 + 119 = 247 s and 97 s of them, so Connect counts 321 × 781/899,
        // 377 × 652/899 and 125 × 802/899 there, and its ten other records whole (921).
        // The hand-entered 100 at 12:21 overlaps nothing.
        let filled: Double = (321.0 * 781 + 377.0 * 652 + 125.0 * 802) / 899
        let merged: Double = 204 + 100 + 921 + filled  // 1,888.80, not 2,048
        #expect(abs(stats.sum! - merged) < 1e-9)
        // The hour of the walk: the phone's 186, Connect's 42 from 17:00 and what it fills after.
        let hours = try daily(store, .hour)
        #expect(hours.count == 24 && abs(hours[17].sum! - (186 + 42 + filled)) < 1e-9)
        #expect(hours[14].sum == 18 + 168 + 308 && hours[12].sum == 100 && hours[13].sum == nil)
        // Connect first: it counts whole, and the phone fills the one second between
        // 17:29:59 and 17:30:00 (37 × 1/61) and its walk at 14:07 before Connect's 14:30.
        try store.setSourcePriority([garmin], for: steps)
        let connectFirst: Double = 1744 + 100 + 18 + 37.0 / 61
        #expect(abs(try daily(store)[0].sum! - connectFirst) < 1e-9)
    }
}
