import FoundationEssentials
import OpenHealthKitCore
@testable import OpenHealthKitImport
import Testing

/// Heart-rate-variability beat lists become heartbeat series (rule 39).
@Suite struct HeartbeatImportTests {
    @Test func rule39_anHRVRecordsBeatListIsAHeartbeatSeriesBesideIt() throws {
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(fixtureA, into: store)
        #expect(r.heartbeatSeries == 1 && r.heartbeatSeriesAdded == 1)
        #expect(r.contents.contains(ImportReport.Row(kind: "HeartRateVariabilityMetadataList", count: 1, imported: 1,
                                                     note: "as heartbeat series")))
        let series = try store.anchoredQuery(type: TypeCatalogue.heartbeatSeriesType, anchor: nil).samples
        let hrv = try store.anchoredQuery(type: try SampleType.named("HeartRateVariabilitySDNN"), anchor: nil).samples
        #expect(series.count == 1 && hrv.count == 1)
        // The fixture's record starts at 11:26:00 -0800; its beats at 11:26:02.34, 03.37, …
        guard case .heartbeats(let h) = series[0].value else { Issue.record("not a heartbeat series"); return }
        #expect(h.beats.map(\.timeSinceStart) == [2.34, 3.37, 4.41, 5.42, 6.44, 7.44, 8.46, 9.49, 10.48, 11.52])
        #expect(h.beats.allSatisfy { !$0.precededByGap })
        #expect(series[0].startDate == hrv[0].startDate && series[0].source == hrv[0].source && series[0].utcOffset == -28_800)
        // Again: nothing new.
        let again = try importFile(fixtureA, into: store)
        #expect(again.heartbeatSeriesAdded == 0 && again.heartbeatSeriesAlreadyStored == 1)
    }

    @Test func rule39_beatsAcrossMidnightAndBeforeTheStartKeepTheirOrder() throws {
        let store = try newStore()
        defer { store.close() }
        let dir = temporaryDirectory()
        writeText(dir + "/export.xml", """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Watch" unit="ms" startDate="2024-03-01 23:59:58 +0100" endDate="2024-03-02 00:00:30 +0100" value="40">
          <HeartRateVariabilityMetadataList>
           <InstantaneousBeatsPerMinute bpm="60" time="11:59:57.50 PM"/>
           <InstantaneousBeatsPerMinute bpm="61" time="11:59:58.50 PM"/>
           <InstantaneousBeatsPerMinute bpm="62" time="12:00:00.25 AM"/>
           <InstantaneousBeatsPerMinute bpm="62" time="0:00:01.25"/>
          </HeartRateVariabilityMetadataList>
         </Record>
         <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Watch" unit="ms" startDate="2024-03-02 08:00:00 +0100" endDate="2024-03-02 08:01:00 +0100" value="41">
          <HeartRateVariabilityMetadataList>
           <InstantaneousBeatsPerMinute bpm="60" time="eight o'clock"/>
          </HeartRateVariabilityMetadataList>
         </Record>
        </HealthData>
        """)
        let r = try importFile(dir + "/export.xml", into: store)
        #expect(r.records == 2 && r.added == 2)
        #expect(r.heartbeatSeries == 2 && r.heartbeatSeriesAdded == 1)
        #expect(r.skipped == [SkipReason(kind: .badValue, subject: TypeCatalogue.heartbeatSeriesIdentifier): 1])
        let s = try #require(try store.anchoredQuery(type: TypeCatalogue.heartbeatSeriesType, anchor: nil).samples.first)
        guard case .heartbeats(let h) = s.value else { Issue.record("not a heartbeat series"); return }
        // The first beat comes half a second before the record: the series starts with it.
        #expect(h.beats.map(\.timeSinceStart) == [0, 1, 2.75, 3.75])
        #expect(s.startDate.timeIntervalSince1970 == 1_709_333_997.5)
    }

    @Test func timesOfDayReadInBothClocks() {
        #expect(RecordMapper.timeOfDay("7:00:01.10 AM")! == (25_201, 0.10))
        #expect(RecordMapper.timeOfDay("12:30:00.00 AM")! == (1_800, 0))
        #expect(RecordMapper.timeOfDay("12:00:00 PM")! == (43_200, 0))
        #expect(RecordMapper.timeOfDay("19:05:09.5")! == (68_709, 0.5))
        // Other locales: a decimal comma, lower-case and dotted markers, markers in front.
        #expect(RecordMapper.timeOfDay("08:34:05,10")! == (30_845, 0.10))
        #expect(RecordMapper.timeOfDay("3:10:02,11 a.m.")! == (11_402, 0.11))
        #expect(RecordMapper.timeOfDay("3:10:02.11 pm")! == (54_602, 0.11))
        #expect(RecordMapper.timeOfDay("午後7:00:01.10")! == (68_401, 0.10))
        #expect(RecordMapper.timeOfDay("오전 12:00:01.5")! == (1, 0.5))
        for bad in ["13:00:00 PM", "7:60:00 AM", "7:00", "", "25:00:00", "7:00:0x.5", "7:00:01.2.3"] { #expect(RecordMapper.timeOfDay(bad) == nil, "\(bad)") }
    }

    /// A record's first beat list is its series; a second is not read,
    /// and the report says so.
    @Test func rule39_aSecondBeatListIsReportedNotMerged() throws {
        let store = try newStore()
        defer { store.close() }
        let dir = temporaryDirectory()
        let list = { (t: String) in
            "<HeartRateVariabilityMetadataList><InstantaneousBeatsPerMinute bpm=\"60\" time=\"\(t)\"/></HeartRateVariabilityMetadataList>"
        }
        writeText(dir + "/export.xml", export("""
         <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Watch" unit="ms" startDate="2024-03-02 08:00:00 +0100" endDate="2024-03-02 08:01:00 +0100" value="41">\(list("8:00:01.00 AM"))\(list("8:00:02.00 AM"))</Record>
        """))
        let r = try importFile(dir + "/export.xml", into: store)
        #expect(r.heartbeatSeriesAdded == 1)
        #expect(r.notImported == ["Record > HeartRateVariabilityMetadataList": 1, "InstantaneousBeatsPerMinute (nested)": 1])
        let s = try #require(try store.anchoredQuery(type: TypeCatalogue.heartbeatSeriesType, anchor: nil).samples.first)
        guard case .heartbeats(let h) = s.value else { Issue.record("not a heartbeat series"); return }
        #expect(h.beats.count == 1)
    }
}

/// `<Audiogram>` elements become audiograms (rule 40).
@Suite struct AudiogramImportTests {
    @Test func rule40_anExportsAudiogramIsImportedWithItsPoints() throws {
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(fixtureB, into: store)
        #expect(r.contents.contains(ImportReport.Row(kind: "Audiogram", count: 1, imported: 1, note: "with their sensitivity points")))
        let a = try #require(try store.anchoredQuery(type: TypeCatalogue.audiogramType, anchor: nil).samples.first)
        guard case .audiogram(let got) = a.value else { Issue.record("not an audiogram"); return }
        // The fixture's points, as written (Hz, dBHL).
        #expect(got.points.map(\.frequency) == [250, 500])
        #expect(got.points.map { $0.left?.sensitivity } == [35.0459, 29.6554])
        #expect(got.points.map { $0.right?.sensitivity } == [20.0452, 17.6095])
        #expect(a.source.name == "Hearing Test" && a.utcOffset == -28_800)
        // Its sync identifier is kept, so a newer version replaces it (rule 14).
        #expect(a.metadata["HKMetadataKeySyncIdentifier"] == .string("479728a4-8e83-4de1-bb71-f75f5a691a6c"))
    }

    @Test func rule40_pointsInOtherUnitsAndUnreadablePoints() throws {
        let store = try newStore()
        defer { store.close() }
        let dir = temporaryDirectory()
        writeText(dir + "/export.xml", """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <Audiogram type="HKDataTypeIdentifierAudiogram" sourceName="Hearing" startDate="2024-03-01 10:00:00 +0100" endDate="2024-03-01 10:00:00 +0100">
          <SensitivityPoint frequencyValue="1" frequencyUnit="kHz" leftEarValue="20" leftEarUnit="dBHL" leftEarMasked="1"/>
         </Audiogram>
         <Audiogram type="HKDataTypeIdentifierAudiogram" sourceName="Hearing" startDate="2024-03-02 10:00:00 +0100" endDate="2024-03-02 10:00:00 +0100">
          <SensitivityPoint frequencyValue="loud" leftEarValue="20"/>
         </Audiogram>
        </HealthData>
        """)
        let got = try importOneOfTwoAudiograms(dir + "/export.xml", into: store)
        #expect(got.points == [Audiogram.Point(frequency: 1000, left: .init(sensitivity: 20, masked: true))])
    }

    /// Imports an export of two audiograms whose second does not read:
    /// the first's points.
    private func importOneOfTwoAudiograms(_ path: String, into store: Store) throws -> Audiogram {
        let r = try importFile(path, into: store)
        #expect(r.audiograms == 2 && r.audiogramsAdded == 1)
        #expect(r.skipped == [SkipReason(kind: .badValue, subject: TypeCatalogue.audiogramIdentifier): 1])
        let a = try #require(try store.anchoredQuery(type: TypeCatalogue.audiogramType, anchor: nil).samples.first)
        guard case .audiogram(let got) = a.value else { throw OHKError(.invalidValue, "not an audiogram") }
        return got
    }

    /// iOS 18.1's exports write each ear's clamping range (in the ear's
    /// unit, `%g`); they are kept, and a bound that does not read skips
    /// the audiogram with its reason.
    @Test func rule40_newerExportsClampingRangesAreKept() throws {
        let store = try newStore()
        defer { store.close() }
        let dir = temporaryDirectory()
        let attributes = "type=\"HKDataTypeIdentifierAudiogram\" sourceName=\"Hearing\" endDate=\"2024-03-01 10:00:00 +0100\""
        writeText(dir + "/export.xml", """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <Audiogram \(attributes) startDate="2024-03-01 10:00:00 +0100">
          <SensitivityPoint frequencyValue="500" frequencyUnit="Hz" leftEarValue="20" leftEarUnit="dBHL" leftEarMasked="true" leftEarClampingRangeLowerBound="-10" leftEarClampingRangeUpperBound="100" rightEarValue="25" rightEarUnit="dBHL" rightEarMasked="false" rightEarClampingRangeUpperBound="90"/>
          <SensitivityPoint frequencyValue="1000" frequencyUnit="Hz" leftEarValue="30" leftEarUnit="dBHL"/>
         </Audiogram>
         <Audiogram \(attributes) startDate="2024-03-01 09:00:00 +0100">
          <SensitivityPoint frequencyValue="500" frequencyUnit="Hz" leftEarValue="20" leftEarUnit="dBHL" leftEarClampingRangeLowerBound="low"/>
         </Audiogram>
        </HealthData>
        """)
        let got = try importOneOfTwoAudiograms(dir + "/export.xml", into: store)
        #expect(got.points == [
            Audiogram.Point(frequency: 500,
                            left: .init(sensitivity: 20, masked: true, clampingRange: .init(lowerBound: -10, upperBound: 100)),
                            right: .init(sensitivity: 25, masked: false, clampingRange: .init(upperBound: 90))),
            Audiogram.Point(frequency: 1000, left: .init(sensitivity: 30)),
        ])
        let again = try importFile(dir + "/export.xml", into: store)
        #expect(again.audiogramsAdded == 0 && again.audiogramsAlreadyStored == 1)
        // The ranges are not part of the content UUID: 0.16 imported the
        // same audiogram without them, and a rerun must not add it twice.
        let older = String(decoding: readBytes(dir + "/export.xml"), as: UTF8.self)
            .replacing(#/ (left|right)EarClampingRange(Lower|Upper)Bound="[^"]*"/#, with: "")
        writeText(dir + "/older.xml", older)
        let other = try newStore()
        defer { other.close() }
        _ = try importFile(dir + "/older.xml", into: other)
        let uuids = try [store, other].map { try $0.anchoredQuery(type: TypeCatalogue.audiogramType, anchor: nil).samples.map(\.uuid) }
        // (Without its bad bound the second audiogram imports there too.)
        #expect(uuids[0].count == 1 && uuids[1].count == 2 && uuids[1].contains(uuids[0][0]))
    }

    /// `ohk query --format json` gives each ear's masking and clamping bounds.
    @Test func rule40_ohkPrintsAnEarsClampingRange() throws {
        let dir = temporaryDirectory()
        writeText(dir + "/export.xml", """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <Audiogram type="HKDataTypeIdentifierAudiogram" sourceName="Hearing" startDate="2024-03-01 10:00:00 +0100" endDate="2024-03-01 10:00:00 +0100">
          <SensitivityPoint frequencyValue="500" frequencyUnit="Hz" leftEarValue="20" leftEarUnit="dBHL" leftEarMasked="true" leftEarClampingRangeUpperBound="100"/>
         </Audiogram>
        </HealthData>
        """)
        #expect(ohk(["import", dir + "/export.xml", "--store", dir + "/store"]).status == 0)
        let q = ohk(["query", "HKDataTypeIdentifierAudiogram", "--store", dir + "/store", "--format", "json"])
        #expect(q.status == 0)
        #expect(q.output.contains(#""leftEarDBHL":20,"leftEarMasked":true,"leftEarClampingUpperBoundDBHL":100"#), "\(q.output)")
        #expect(!q.output.contains("LowerBound"))
    }
}
