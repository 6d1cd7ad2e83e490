// Electrocardiograms, clinical records and activity summaries through
// HealthKit's calls (rules 41, 42 and 43).
import Foundation
@testable import OpenHealthKit
import OpenHealthKitCore
import Testing

private let watch = OpenHealthKitCore.Source(bundleIdentifier: "com.apple.NanoHeartRhythm", name: "ECG")

@Suite struct ClinicalAPITests {
    @Test func rule41_anElectrocardiogramQueryGivesEachVoltageThenDone() async throws {
        let store = try freshHealthStore()
        let recording = Electrocardiogram(classification: .atrialFibrillation, symptomsStatus: .present, averageHeartRate: 92,
                                          samplingFrequency: 4, voltages: [10.5, -3, 250, 0])
        _ = try store.coreStore().save([try OpenHealthKitCore.Sample.electrocardiogram(recording, start: day0, end: day0 + 1,
                                                                                        source: watch)])
        let found = try await HKSampleQueryDescriptor(predicates: [.sample(type: HKObjectType.electrocardiogramType())],
                                                      sortDescriptors: []).result(for: store)
        let ecg = try #require(found.first as? HKElectrocardiogram)
        #expect(ecg.classification == .atrialFibrillation && ecg.symptomsStatus == .present)
        #expect(ecg.averageHeartRate?.doubleValue(for: HKUnit(from: "count/min")) == 92)
        #expect(ecg.samplingFrequency?.doubleValue(for: .hertz()) == 4 && ecg.numberOfVoltageMeasurements == 4)

        let transcript = Transcript()
        store.execute(HKElectrocardiogramQuery(ecg) { _, result in
            switch result {
            case .measurement(let m):
                let v = m.quantity(for: .appleWatchSimilarToLeadI)?.doubleValue(for: .voltUnit(with: .micro)) ?? .nan
                transcript.record("v \(m.timeSinceSampleStart) \(v)")
            case .done: transcript.record("done")
            case .error(let e): transcript.record("error \(e)")
            }
        })
        #expect(await transcript.wait(forLinesStartingWith: "done"))
        #expect(transcript.lines == ["v 0.0 10.5", "v 0.25 -3.0", "v 0.5 250.0", "v 0.75 0.0", "done"])
        let afib = try await HKSampleQueryDescriptor(
            predicates: [.sample(type: HKObjectType.electrocardiogramType(),
                                 predicate: HKQuery.predicateForElectrocardiograms(classification: .atrialFibrillation))],
            sortDescriptors: []).result(for: store)
        let calm = try await HKSampleQueryDescriptor(
            predicates: [.sample(type: HKObjectType.electrocardiogramType(),
                                 predicate: HKQuery.predicateForElectrocardiograms(symptomsStatus: .none))],
            sortDescriptors: []).result(for: store)
        #expect(afib.count == 1 && calm.isEmpty)
        var times: [Double] = []
        for try await m in HKElectrocardiogramQueryDescriptor(ecg).results(for: store) { times.append(m.timeSinceSampleStart) }
        #expect(times == [0, 0.25, 0.5, 0.75])
    }

    /// Stopped from its first call, the query calls nothing more: another
    /// query over the same recording runs to its end meanwhile.
    @Test func rule41_aStoppedElectrocardiogramQueryCallsNothingMore() async throws {
        let store = try freshHealthStore()
        let recording = Electrocardiogram(samplingFrequency: 512, voltages: (0..<512).map(Double.init))
        _ = try store.coreStore().save([try OpenHealthKitCore.Sample.electrocardiogram(recording, start: day0, end: day0 + 1,
                                                                                        source: watch)])
        let ecg = try #require(try await HKSampleQueryDescriptor(predicates: [.sample(type: HKObjectType.electrocardiogramType())],
                                                                 sortDescriptors: []).result(for: store).first as? HKElectrocardiogram)
        let transcript = Transcript()
        store.execute(HKElectrocardiogramQuery(ecg) { query, result in
            if case .measurement = result { transcript.record("stopped one") } else { transcript.record("stopped done") }
            store.stop(query)
        })
        store.execute(HKElectrocardiogramQuery(ecg) { _, result in
            if case .done = result { transcript.record("other done") }
        })
        #expect(await transcript.wait(forLinesStartingWith: "other done"))
        #expect(await transcript.wait(forLinesStartingWith: "stopped one"))
        #expect(transcript.lines.filter { $0.hasPrefix("stopped") } == ["stopped one"])
    }

    @Test func rule42_aClinicalRecordHasItsTypeNameAndFHIRResource() async throws {
        let store = try freshHealthStore()
        let json = #"{"resourceType":"Condition","code":{"text":"Asthma"}}"#
        let type = try #require(HKObjectType.clinicalType(forIdentifier: .conditionRecord))
        let record = ClinicalRecord(displayName: "Asthma", fhirResource: .init(resourceType: "Condition", identifier: "C-1",
                                                                               fhirVersion: "4.0.1", sourceURL: "https://fhir.example/Condition/C-1",
                                                                               data: Array(json.utf8)))
        _ = try store.coreStore().save([try OpenHealthKitCore.Sample.clinicalRecord(TypeCatalogue.lookup("ConditionRecord")!, record,
                                                                                     start: day0, end: day0, source: watch)])
        let found = try await HKSampleQueryDescriptor(predicates: [.sample(type: type)], sortDescriptors: []).result(for: store)
        let r = try #require(found.first as? HKClinicalRecord)
        #expect(r.displayName == "Asthma" && r.clinicalType.identifier == HKClinicalTypeIdentifier.conditionRecord.rawValue)
        let resource = try #require(r.fhirResource)
        #expect(resource.resourceType == .condition && resource.identifier == "C-1")
        #expect(resource.data == Data(json.utf8) && resource.sourceURL?.absoluteString == "https://fhir.example/Condition/C-1")
        #expect(resource.fhirVersion?.fhirRelease == .r4 && resource.fhirVersion?.stringRepresentation == "4.0.1")
        #expect(HKObjectType.clinicalType(forIdentifier: HKClinicalTypeIdentifier("HKQuantityTypeIdentifierStepCount")) == nil)
        #expect(throws: HKError.self) { try HKFHIRVersion(fromVersionString: "4.0") }
    }

    @Test func rule43_anActivitySummaryQueryGivesTheDaysThenEachChange() async throws {
        let store = try freshHealthStore()
        let core = try store.coreStore()
        let may1 = ActivitySummary(day: try .init("2024-05-01"), activeEnergyBurned: 420, activeEnergyBurnedGoal: 500,
                                   appleExerciseTime: 25, exerciseTimeGoal: 30, appleStandHours: 9, standHoursGoal: 12)
        try core.saveActivitySummaries([may1, ActivitySummary(day: try .init("2024-04-30"), appleStandHours: 2)])
        let calendar = Calendar(identifier: .gregorian)
        let start = DateComponents(calendar: calendar, year: 2024, month: 5, day: 1)
        let end = DateComponents(calendar: calendar, year: 2024, month: 5, day: 31)
        let transcript = Transcript()
        let query = HKActivitySummaryQuery(predicate: HKQuery.predicate(forActivitySummariesBetweenStart: start, end: end)) { _, s, e in
            let days = (s ?? []).map { summary in
                let c = summary.dateComponents(for: calendar)
                return "\(c.month!)/\(c.day!) \(summary.activeEnergyBurned.doubleValue(for: .kilocalorie()))"
            }
            transcript.record("results \(days) \(e == nil)")
        }
        query.updateHandler = { _, s, _ in
            transcript.record("update \((s ?? []).map { $0.appleStandHours.doubleValue(for: .count()) })")
        }
        store.execute(query)
        #expect(await transcript.wait(forLinesStartingWith: "results"))
        #expect(transcript.lines == ["results [\"5/1 420.0\"] true"])
        var changed = may1
        changed.appleStandHours = 10
        try core.saveActivitySummaries([changed, ActivitySummary(day: try .init("2024-06-01"), appleStandHours: 1)])
        #expect(await transcript.wait(forLinesStartingWith: "update"))
        #expect(transcript.lines.last == "update [10.0]")
        store.stop(query)
        // A day's own predicate, and a predicate of samples refused.
        let one = Transcript()
        store.execute(HKActivitySummaryQuery(predicate: HKQuery.predicateForActivitySummary(with: start)) { _, s, _ in
            one.record("\(s?.count ?? -1) \(s?.first?.appleExerciseTimeGoal.doubleValue(for: .minute()) ?? -1)")
        })
        #expect(await one.wait(forLinesStartingWith: "1 30.0"))
        let refused = Transcript()
        store.execute(HKActivitySummaryQuery(predicate: HKQuery.predicateForSamples(withStart: day0, end: nil, options: [])) { _, s, e in
            refused.record("\(s == nil) \(e is HKError)")
        })
        #expect(await refused.wait(forLinesStartingWith: "true true"))
    }

    @Test func rule43_theDescriptorGivesTheDaysThenEachChange() async throws {
        let store = try freshHealthStore()
        let core = try store.coreStore()
        let day = ActivitySummary(day: try .init("2024-05-01"), appleStandHours: 9)
        try core.saveActivitySummaries([day])
        let descriptor = HKActivitySummaryQueryDescriptor(predicate: nil)
        #expect(try await descriptor.result(for: store).map { $0.appleStandHours.doubleValue(for: .count()) } == [9])
        var seen: [[Double]] = []
        for try await summaries in descriptor.results(for: store) {
            seen.append(summaries.map { $0.appleStandHours.doubleValue(for: .count()) })
            if seen.count == 1 {
                var changed = day
                changed.appleStandHours = 10
                try core.saveActivitySummaries([changed])
            } else {
                break
            }
        }
        #expect(seen == [[9], [10]])
    }
}
