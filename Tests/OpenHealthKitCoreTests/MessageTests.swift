import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// Issue 48 item 12: messages that say what to write instead.
@Suite struct MessageTests {
    private func message(_ body: () throws -> Void) -> String {
        do { try body() } catch let e as OHKError { return e.message } catch { return "\(error)" }
        return ""
    }

    /// Type names are case-sensitive; an unknown one names the types it
    /// may have meant.
    @Test func unknownTypeNamesSuggestTheTypesMeant() throws {
        #expect(message { _ = try SampleType.named("stepcount") }.contains("did you mean StepCount?"))
        let sleep = message { _ = try SampleType.named("Sleep") }
        #expect(sleep.contains("did you mean SleepAnalysis"), "\(sleep)")
        #expect(message { _ = try SampleType.named("HKQuantityTypeIdentifierheartrate") }.contains("HeartRate"))
        #expect(!message { _ = try SampleType.named("Zzyzx") }.contains("did you mean"))
        let store = try makeStore()
        defer { store.close() }
        #expect(message { _ = try store.sampleType("bodymass") }.contains("did you mean BodyMass?"))
    }

    /// Units people write otherwise are refused with HealthKit's spelling.
    @Test func unknownUnitsNameHealthKitsSpelling() {
        for (written, spelt) in [("km/h", "km/hr"), ("lbs", "lb"), ("miles", "mi"), ("beats/min", "count/min"),
                                 ("kph", "km/hr"), ("mL/kg/hours", "mL/kg/hr")] {
            let m = message { _ = try HealthUnit(written) }
            #expect(m.contains("write \(spelt)"), "\(written): \(m)")
            #expect((try? HealthUnit(spelt)) != nil, "\(spelt) parses")
        }
        #expect(!message { _ = try HealthUnit("furlong") }.contains("write"))
    }

    /// A date-time without an offset in predicate text is named as such.
    @Test func aDateTimeWithoutAnOffsetIsNamedSo() {
        let m = message { _ = try SamplePredicate("startDate >= 2020-11-01T08:00:00") }
        #expect(m.contains("has no UTC offset") && m.contains("2020-11-01T08:00:00Z"), "\(m)")
    }
}
