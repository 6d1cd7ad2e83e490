import FoundationEssentials
import Glibc
@testable import OpenHealthKitCore
import Testing

/// Electrocardiograms (rule 41) and clinical records (rule 42): samples
/// whose values are a recording and a FHIR resource, change-tracked like
/// any sample.
@Suite struct ElectrocardiogramTests {
    private func ecg(_ voltages: [Double], rate: Double? = 512, seconds: Double = 30,
                     classification: Electrocardiogram.Classification = .sinusRhythm) throws -> Sample {
        try Sample.electrocardiogram(Electrocardiogram(classification: classification, symptomsStatus: .none,
                                                       averageHeartRate: 64, samplingFrequency: rate, voltages: voltages),
                                     start: t0, end: t0.addingTimeInterval(seconds), source: appA)
    }

    @Test func rule41_aRecordingKeepsItsVoltagesAndFieldsExactly() throws {
        let store = try makeStore()
        defer { store.close() }
        let voltages: [Double] = (0..<15_360).map { (k: Int) -> Double in sin(Double(k) / 20) * 321.123 + 0.001 * Double(k % 7) }
        let s = try ecg(voltages, classification: .inconclusiveHighHeartRate)
        _ = try store.save([s])
        let read = try store.anchoredQuery(type: TypeCatalogue.electrocardiogramType, anchor: nil).samples
        guard read.count == 1, case .electrocardiogram(let e) = read[0].value else { Issue.record("no recording read"); return }
        #expect(e.voltages == voltages)
        #expect(e.classification == .inconclusiveHighHeartRate && e.symptomsStatus == Electrocardiogram.SymptomsStatus.none)
        #expect(e.averageHeartRate == 64 && e.samplingFrequency == 512 && e.lead == .appleWatchSimilarToLeadI)
        #expect(e.timeSinceSampleStart(512) == 1)
        #expect(TypeCatalogue.lookup("Electrocardiogram") == TypeCatalogue.electrocardiogramType)
        // Deleted like any sample: its deletion is reported.
        let anchor = try store.currentAnchor()
        try store.delete(uuids: [s.uuid])
        #expect(try store.anchoredQuery(type: TypeCatalogue.electrocardiogramType, anchor: anchor).deletedObjects.count == 1)
    }

    @Test func rule41_aSaveRefusesVoltagesWithoutAFrequencyOrPastTheEnd() throws {
        #expect(throws: OHKError.self) { try ecg([1, 2], rate: nil) }
        #expect(throws: OHKError.self) { try ecg([1, 2], rate: 0) }
        #expect(throws: OHKError.self) { try ecg([1, .nan]) }
        #expect(throws: OHKError.self) { try ecg(Array(repeating: 1, count: 512 * 30 + 2)) }  // past 30 s
        // A recording without voltages needs no frequency (HealthKit's may have none).
        #expect(throws: Never.self) { try ecg([], rate: nil) }
        #expect(throws: OHKError.self) {
            try Sample.electrocardiogram(Electrocardiogram(averageHeartRate: -1, samplingFrequency: 512, voltages: []),
                                         start: t0, end: t0, source: appA)
        }
    }

    @Test func rule41_predicatesSelectByClassificationAndSymptomsStatusInTextToo() throws {
        let store = try makeStore()
        defer { store.close() }
        let afib = try ecg([1, 2], classification: .atrialFibrillation)
        let sinus = try ecg([1, 2], classification: .sinusRhythm)
        _ = try store.save([afib, sinus])
        func matching(_ p: SamplePredicate) throws -> Set<UUID> {
            Set(try store.anchoredQuery([QueryDescriptor(type: TypeCatalogue.electrocardiogramType, predicate: p)], anchor: nil)
                .samples.map(\.uuid))
        }
        #expect(try matching(.electrocardiogram(.classification, [2])) == [afib.uuid])
        #expect(try matching(SamplePredicate("ecgClassification IN {'sinusRhythm', 'atrialFibrillation'}")) == [afib.uuid, sinus.uuid])
        #expect(try matching(SamplePredicate("ecgClassification != 'atrialFibrillation'")) == [sinus.uuid])
        #expect(try matching(SamplePredicate("ecgSymptomsStatus == 'none'")) == [afib.uuid, sinus.uuid])
        #expect(try matching(SamplePredicate("ecgSymptomsStatus == 2")).isEmpty)
        // The printed form reads back; an unknown name and another type are refused.
        let p = try SamplePredicate("ecgClassification IN {2, 'sinusRhythm'}")
        #expect(try SamplePredicate(p.description) == p)
        #expect(errorCode { _ = try SamplePredicate("ecgClassification == 'fast'") } == .invalidPredicate)
        #expect(errorCode { _ = try store.anchoredQuery([QueryDescriptor(type: steps, predicate: .electrocardiogram(.classification, [1]))],
                                                        anchor: nil) } == .invalidPredicate)
        // A deleted recording matches an anchored query's deleted objects (rule 8: unknown).
        let anchor = try store.currentAnchor()
        try store.delete(uuids: [afib.uuid])
        let r = try store.anchoredQuery([QueryDescriptor(type: TypeCatalogue.electrocardiogramType,
                                                         predicate: .electrocardiogram(.classification, [1]))], anchor: anchor)
        #expect(r.deletedObjects.map(\.uuid) == [afib.uuid])
    }

    private func record(_ type: String = "ImmunizationRecord", resource: String = "Immunization",
                        data: String = #"{"resourceType":"Immunization","vaccineCode":{"text":"Flu"}}"#) throws -> Sample {
        try Sample.clinicalRecord(TypeCatalogue.lookup(type)!,
                                  ClinicalRecord(displayName: "Flu", fhirResource: .init(resourceType: resource, identifier: "T1",
                                                                                          fhirVersion: "1.0.2", data: Array(data.utf8))),
                                  start: t0, end: t0, source: appA)
    }

    @Test func rule42_aClinicalRecordKeepsItsJSONByteForByte() throws {
        let store = try makeStore()
        defer { store.close() }
        let data = "{ \"resourceType\": \"Immunization\",\n  \"note\": \"é ✓\" }"
        let s = try record(data: data)
        _ = try store.save([s])
        let type = try #require(TypeCatalogue.lookup("ImmunizationRecord"))
        let read = try store.anchoredQuery(type: type, anchor: nil).samples
        guard read.count == 1, case .clinicalRecord(let c) = read[0].value else { Issue.record("no record read"); return }
        #expect(c.fhirResource?.data == Array(data.utf8) && c.displayName == "Flu" && c.fhirResource?.sourceURL == nil)
        #expect(TypeCatalogue.clinicalTypeNames.allSatisfy { TypeCatalogue.lookup($0)?.kind == .clinicalRecord })
        #expect(TypeCatalogue.shortName(type) == "ImmunizationRecord")
    }

    @Test func rule42_aSaveRefusesWhatHealthKitDoesNotRead() throws {
        #expect(throws: OHKError.self) { try record(resource: "Patient") }
        #expect(throws: OHKError.self) { try record(data: "[1, 2]") }
        #expect(throws: OHKError.self) { try record(data: "") }
        #expect(throws: OHKError.self) { try record("StepCount") }  // not a clinical type
    }

    /// Format 12 holds both kinds and activity summaries; a format-11
    /// store opens as the current format, and one that registered a later
    /// identifier as its own type is refused with the reason.
    @Test func aFormat11StoreOpensAsTheCurrentFormat() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        _ = try store.save([try stepSample(10)])
        try store.env.write { txn in try txn.setMetaU64(store.trees, .format, 11) }
        store.close()
        store = try makeStore(directory: dir)
        #expect(try store.env.read { txn in try txn.metaU64(store.trees, .format) } == UInt64(Schema.format))
        _ = try store.save([try ecg([1, 2]), try record()])
        try store.saveActivitySummaries([ActivitySummary(day: try .init("2024-01-02"), appleStandHours: 9)])
        #expect(try store.verify().isClean)
        try store.env.write { txn in
            _ = try txn.put(store.trees.custom, Array(TypeCatalogue.electrocardiogramIdentifier.utf8),
                            TableCodec.encode(.category(values: ["x": 0])))
            try txn.setMetaU64(store.trees, .format, 11)
        }
        store.close()
        #expect { store = try makeStore(directory: dir) } throws: { "\($0)".contains("0.13") }
    }
}
