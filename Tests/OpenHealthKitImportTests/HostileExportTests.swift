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
}
