import FoundationEssentials
import Glibc
import Testing
import OpenHealthKitCore
@testable import OpenHealthKitImport

/// Files built to hurt get a clear error in bounded memory and time
/// (`ImportLimits`; docs/ohk.md). Each is small: the bounds are lowered
/// where the real ones would need gigabytes to reach.
@Suite struct HostileExport {
    private func failure(_ path: String, limits: ImportLimits = ImportLimits()) throws -> ImportError? {
        let store = try newStore()
        defer { store.close() }
        var options = ImportOptions()
        options.limits = limits
        do {
            return try AppleHealthImport.run(path, into: store, options: options).failure
        } catch let e as ImportError {
            return e
        }
    }

    /// The bounds docs/semantics.md (rule 54) and docs/ohk.md state.
    @Test func theDefaultBoundsAreTheDocumentedOnes() {
        let l = ImportLimits()
        #expect(l.depth == 64 && l.stretchBytes == 16 << 20 && l.zipRatio == 1000 && l.ratioAfter == 64 << 20)
        #expect(l.beatsPerSeries == 100_000 && l.pointsPerAudiogram == 1_000)
    }

    @Test func entityExpansionIsRefused() throws {
        let dir = temporaryDirectory()
        var dtd = "<!ENTITY lol \"lol\">\n"
        for i in 1...9 { dtd += "<!ENTITY lol\(i) \"" + String(repeating: "&lol\(i == 1 ? "" : String(i - 1));", count: 10) + "\">\n" }
        writeText(dir + "/laughs.xml", "<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData [\n\(dtd)]>\n<HealthData locale=\"&lol9;\">\n\(record())\n</HealthData>\n")
        let e = try failure(dir + "/laughs.xml")
        #expect(e.map { "\($0)" }?.contains("declares the entity lol") == true, "\(String(describing: e))")
    }

    @Test func nestingPastTheBoundIsRefused() throws {
        let dir = temporaryDirectory()
        let depth = 100_000
        writeText(dir + "/deep.xml", "<HealthData>" + String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth) + "</HealthData>")
        let e = try failure(dir + "/deep.xml")
        #expect(e.map { "\($0)" }?.contains("nested deeper than 64 levels") == true, "\(String(describing: e))")
    }

    @Test func aTokenLongerThanTheBoundIsRefused() throws {
        let dir = temporaryDirectory()
        var limits = ImportLimits()
        limits.stretchBytes = 1 << 20
        let long = record(value: "70", source: String(repeating: "x", count: 3 << 20))
        writeText(dir + "/long.xml", export([record(value: "69"), long].joined(separator: "\n")))
        let e = try failure(dir + "/long.xml", limits: limits)
        #expect(e.map { "\($0)" }?.contains("no element starts or ends") == true, "\(String(describing: e))")
        // A real export is far inside the same bound.
        #expect(try failure(fixtureA, limits: limits) == nil)
    }

    @Test func aZipThatGrowsPastTheRatioIsRefused() throws {
        let dir = temporaryDirectory()
        var limits = ImportLimits()
        limits.zipRatio = 100
        limits.ratioAfter = 1 << 20
        // 8 MB of spaces between two records: it deflates about a thousandfold.
        writeText(dir + "/export.xml", export([record(value: "69"), String(repeating: " ", count: 8 << 20), record(value: "70")].joined(separator: "\n")))
        makeZip(dir + "/bomb.zip", [("apple_health_export/export.xml", dir + "/export.xml")])
        let e = try failure(dir + "/bomb.zip", limits: limits)
        #expect(e.map { "\($0)" }?.contains("zip bomb") == true, "\(String(describing: e))")
        makeZip(dir + "/real.zip", [("apple_health_export/export.xml", fixtureB)])
        #expect(try failure(dir + "/real.zip", limits: limits) == nil)
    }

    /// The DTD check refuses entities as the parse does: a subset that
    /// declares one is not skipped as broken (which would let the import
    /// go on) but refused, before any expansion, even via a default value.
    @Test func anEntityInAnAttributeDefaultIsRefusedNotSkipped() throws {
        let dir = temporaryDirectory()
        var dtd = "<!ENTITY lol \"lol\">\n"
        for i in 1...9 { dtd += "<!ENTITY lol\(i) \"" + String(repeating: "&lol\(i == 1 ? "" : String(i - 1));", count: 10) + "\">\n" }
        dtd += "<!ATTLIST HealthData locale CDATA \"&lol9;\">\n<!ATTLIST Record broken>\n"
        writeText(dir + "/laughs.xml", "<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData [\n\(dtd)]>\n<HealthData>\n\(record())\n</HealthData>\n")
        let e = try failure(dir + "/laughs.xml")
        #expect(e.map { "\($0)" }?.contains("declares the entity lol") == true, "\(String(describing: e))")
    }

    /// A list longer than its bound keeps its first items; the report
    /// counts the rest.
    @Test func listsPastTheirBoundKeepTheirFirstItemsAndTheReportCountsTheRest() throws {
        let dir = temporaryDirectory()
        let beats = (0..<5).map { "<InstantaneousBeatsPerMinute bpm=\"60\" time=\"8:00:0\($0).00 AM\"/>" }.joined()
        let points = [250, 500, 1000].map { "<SensitivityPoint frequencyValue=\"\($0)\" frequencyUnit=\"Hz\" leftEarValue=\"20\" leftEarUnit=\"dBHL\"/>" }.joined()
        writeText(dir + "/export.xml", export("""
         <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Watch" unit="ms" startDate="2024-03-02 08:00:00 +0100" endDate="2024-03-02 08:01:00 +0100" value="41"><HeartRateVariabilityMetadataList>\(beats)</HeartRateVariabilityMetadataList></Record>
         <Audiogram type="HKDataTypeIdentifierAudiogram" sourceName="Hearing" startDate="2024-03-01 10:00:00 +0100" endDate="2024-03-01 10:00:00 +0100">\(points)</Audiogram>
        """))
        var options = ImportOptions()
        options.limits.beatsPerSeries = 3
        options.limits.pointsPerAudiogram = 2
        let store = try newStore()
        defer { store.close() }
        let r = try AppleHealthImport.run(dir + "/export.xml", into: store, options: options)
        #expect(r.failure == nil && r.heartbeatSeriesAdded == 1 && r.audiogramsAdded == 1)
        #expect(r.cutShort == ["HeartRateVariabilityMetadataList > InstantaneousBeatsPerMinute": 2, "Audiogram > SensitivityPoint": 1])
        #expect(r.contents.contains(ImportReport.Row(kind: "Audiogram > SensitivityPoint", count: 1, imported: 0,
                                                     note: "past the most one list keeps: dropped")))
    }

    /// Endless distinct element names are counted under 1,000 keys at most.
    @Test func endlessElementNamesDoNotGrowTheReportWithoutEnd() throws {
        let dir = temporaryDirectory()
        let unknown = (0..<1_500).map { "<Thing\($0)/>" }.joined()
        writeText(dir + "/export.xml", export(record() + "\n" + unknown))
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(dir + "/export.xml", into: store)
        #expect(r.failure == nil && r.added == 1)
        #expect(r.notImported.count == 1_001 && r.notImported["(other elements)"] == 500)
    }
}
