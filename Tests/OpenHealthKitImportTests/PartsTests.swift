import FoundationEssentials
import Testing
import OpenHealthKitCore
@testable import OpenHealthKitImport

@Suite struct Parts {
    @Test func timestampsCarryTheirOffsets() {
        let t = ExportTimestamp.parse("2018-01-24 15:54:24 -0800")
        #expect(t.map { ISODate.format(Date(timeIntervalSinceReferenceDate: $0)) } == "2018-01-24T23:54:24Z")
        let east = ExportTimestamp.parse("2024-03-01 00:30:00 +0530")
        #expect(east.map { ISODate.format(Date(timeIntervalSinceReferenceDate: $0)) } == "2024-02-29T19:00:00Z")
        #expect(ExportTimestamp.parseWithOffset("2024-03-01 00:30:00 +0530")?.offset == 19_800)
        #expect(ExportTimestamp.parseWithOffset("2018-01-24 15:54:24 -0800")?.offset == -28_800)
        #expect(ExportTimestamp.parseWithOffset("2018-01-24 15:54:24 +0000")?.offset == 0)
        for bad in ["2018-01-24 15:54:24", "2018-01-24T15:54:24 -0800", "2018-02-30 10:00:00 +0000",
                    "2018-01-24 24:00:00 +0000", "2018-01-24 15:54:24 -08:00", "", "abcd-ef-gh ij:kl:mn +0000"] {
            #expect(ExportTimestamp.parse(bad) == nil, "\(bad)")
        }
    }

    /// Every digit's place refuses what is no digit, on either side of
    /// '0' and '9', and the days of February follow the leap years.
    @Test func aTimestampWithANonDigitAnywhereIsRefused() {
        let good = Array("2018-01-24 15:54:24 -0800".utf8)
        #expect(ExportTimestamp.parse(String(decoding: good, as: UTF8.self)) != nil)
        for i in good.indices where (48...57).contains(good[i]) {
            for c in ["/", ":", "a", " ", "\u{7f}"] {
                var t = good
                t[i] = c.utf8.first!
                #expect(ExportTimestamp.parse(String(decoding: t, as: UTF8.self)) == nil, "\(i) \(c)")
            }
        }
        #expect(ExportTimestamp.parse("2024-02-29 12:00:00 +0000") != nil)
        #expect(ExportTimestamp.parse("2000-02-29 12:00:00 +0000") != nil)
        #expect(ExportTimestamp.parse("2023-02-29 12:00:00 +0000") == nil)
        #expect(ExportTimestamp.parse("1900-02-29 12:00:00 +0000") == nil)
        #expect(ExportTimestamp.parse("2023-12-31 23:59:60 +2359") != nil)
        #expect(ExportTimestamp.parse("2023-13-01 00:00:00 +0000") == nil)
        #expect(ExportTimestamp.parse("2023-00-01 00:00:00 +0000") == nil)
        #expect(ExportTimestamp.parse("2023-01-00 00:00:00 +0000") == nil)
        #expect(ExportTimestamp.parse("2023-01-01 00:00:00 +2400") == nil)
    }

    /// The recent values answer by their keys whatever order they are
    /// asked in, make a value only for a key not among them, and forget
    /// the oldest past their capacity.
    @Test func recentValuesFindEachKeyAndMakeOnlyNewOnes() {
        var recent = RecentValues<String, Int>(capacity: 3)
        var made: [String] = []
        func look(_ k: String) -> Int { recent.value(for: k) { made.append($0); return $0.count } }
        #expect(look("a") == 1 && look("bb") == 2 && look("ccc") == 3)
        #expect(look("bb") == 2 && look("bb") == 2 && look("a") == 1 && look("ccc") == 3)
        #expect(made == ["a", "bb", "ccc"])
        #expect(look("dddd") == 4)  // takes the oldest place, a's
        #expect(look("ccc") == 3 && look("bb") == 2)
        #expect(made == ["a", "bb", "ccc", "dddd"])
        #expect(look("a") == 1)  // made again
        #expect(made == ["a", "bb", "ccc", "dddd", "a"])
        #expect(look("dddd") == 4 && look("a") == 1)
    }

    @Test func deviceDescriptionsSplitOnlyAtKnownFields() {
        let d = DeviceDescription.parse("<<HKDevice: 0x2820680f0>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch4,2, software:7.2>")
        #expect(d == Device(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch",
                            hardwareVersion: "Watch4,2", softwareVersion: "7.2"))
        // Another address, the same device.
        #expect(DeviceDescription.parse("<<HKDevice: 0x1>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch4,2, software:7.2>") == d)
        #expect(DeviceDescription.parse("Polar H10") == Device(name: "Polar H10"))
    }

    /// Checked against the same layout computed in Python with hashlib:
    /// 48 bits of start time in milliseconds, version 8, SHA-1 bits.
    @Test func contentUUIDsAreTimeFirstVersion8() {
        let h = ContentUUID()
        #expect(h.uuid(of: Array("hello".utf8), start: 1_700_000_000.25).uuidString == "018BCFE5-68FA-8F86-80EE-2D88DDF414E7")
        #expect(h.uuid(of: Array("Jane’s Apple\u{a0}Watch".utf8), start: 0).uuidString == "00000000-0000-8DB5-8663-83255D6D6DA9")
        // Before 1970 counts as 1970; the content still tells samples apart.
        #expect(h.uuid(of: Array("a".utf8), start: -5) != h.uuid(of: Array("b".utf8), start: -5))
    }

    @Test func categoryValuesByShortOrFullName() throws {
        let sleep = try SampleType.named("HKCategoryTypeIdentifierSleepAnalysis")
        #expect(sleep.categoryValue(named: "HKCategoryValueSleepAnalysisAsleepUnspecified") == 1)
        #expect(sleep.categoryValue(named: "HKCategoryValueSleepAnalysisAsleepCore") == 3)
        #expect(sleep.categoryValue(named: "Awake") == 2)
        #expect(sleep.categoryValue(named: "HKCategoryValueSleepAnalysisDreaming") == nil)
        #expect(try SampleType.named("HKQuantityTypeIdentifierStepCount").categoryValue(named: "Awake") == nil)
    }
}

/// Content UUIDs are a promise across versions: a newer export imported
/// into a store written by an older version must find its records
/// stored. Every UUID of each fixture's import, pinned by a digest.
@Suite struct ContentUUIDStability {
    static func digest(_ path: String) throws -> String {
        let store = try newStore()
        defer { store.close() }
        _ = try importFile(path, into: store)
        var uuids: [String] = []
        for t in try store.counts().types {
            uuids += try store.anchoredQuery(type: t.type, anchor: nil).samples.map(\.uuid.uuidString)
        }
        // FNV-1a over the sorted UUIDs.
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in uuids.sorted().joined(separator: ",").utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return "\(uuids.count) \(String(h, radix: 16))"
    }

    @Test func theUUIDsOfEachFixturesRecordsDoNotChange() throws {
        // A generated export too, with every kind the generator writes
        // (a change to scripts/gen_export.py changes its pin).
        let generated = temporaryDirectory() + "/export.zip"
        generatedExport(generated, size: "1M", seed: 7)
        // A: the seven records of 0.23.0, and since 0.24.0 the five clinical
        // records the XML alone holds, kept without their resource.
        for (path, pinned) in [(fixtureA, "12 1697995fb66b0a05"), (fixtureB, "42 e872595569ffe630"),
                               (phoneAndGarmin, "21 b92f895ea4ed3d93"), (generated, "4024 c12689e6c505b169")] {
            let d = try Self.digest(path)
            #expect(d == pinned, "\(path): \(d)")
        }
    }
}
