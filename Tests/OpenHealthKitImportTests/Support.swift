import FoundationEssentials
import Glibc
import OpenHealthKitCore
@testable import OpenHealthKitImport
@_exported import TestSupport

/// The repository's root, found from this file's path.
let repositoryRoot: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Tests/OpenHealthKitImportTests/Support.swift
    return parts.joined(separator: "/")
}()

/// The small real exports in Tests/Fixtures (NOTICE.md there).
let fixtureA = repositoryRoot + "/Tests/Fixtures/export-small-a.xml"
let fixtureB = repositoryRoot + "/Tests/Fixtures/export-small-b.xml"
let phoneAndGarmin = repositoryRoot + "/Tests/Fixtures/export-phone-and-garmin.xml"

func newStore(_ directory: String = temporaryDirectory() + "/store") throws -> Store {
    var o = StoreOptions()
    o.durable = false
    return try Store(directory: directory, options: o)
}

func importFile(_ path: String, into store: Store, batchSize: Int = 20_000) throws -> ImportReport {
    try AppleHealthImport.run(path, into: store, options: ImportOptions(batchSize: batchSize))
}

func readBytes(_ path: String) -> [UInt8] {
    guard let f = fopen(path, "rb") else { return [] }
    defer { fclose(f) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&chunk, 1, chunk.count, f)
        if n == 0 { break }
        out += chunk[..<n]
    }
    return out
}

func writeBytes(_ path: String, _ bytes: [UInt8]) {
    let f = fopen(path, "wb")!
    fwrite(bytes, 1, bytes.count, f)
    fclose(f)
}

func writeText(_ path: String, _ text: String) { writeBytes(path, Array(text.utf8)) }

/// A zip holding `entries` (name, file to store), written by Python's
/// zipfile, a writer independent of the reader under test.
func makeZip(_ zipPath: String, _ entries: [(name: String, file: String)]) {
    let script = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\n"
        + "for name, path in zip(sys.argv[2::2], sys.argv[3::2]): z.write(path, name)\nz.close()\n"
    let result = run("/usr/bin/env", ["python3", "-c", script, zipPath] + entries.flatMap { [$0.name, $0.file] })
    precondition(result.status == 0, "python3 could not write \(zipPath): \(result.output)")
}

/// A generated export (scripts/gen_export.py) of about `size` bytes.
func generatedExport(_ path: String, size: String, seed: Int = 1) {
    let result = run("/usr/bin/env", ["python3", repositoryRoot + "/scripts/gen_export.py", path, "--size", size,
                                      "--seed", String(seed)])
    precondition(result.status == 0, "gen_export.py failed: \(result.output)")
}

/// A minimal export around `body` (records and other elements).
func export(_ body: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <HealthData locale="en_US">
     <ExportDate value="2024-06-01 09:00:00 -0700"/>
    \(body)
    </HealthData>

    """
}

func record(type: String = "HKQuantityTypeIdentifierBodyMass", unit: String? = "kg", value: String? = "70",
            source: String = "Scale", start: String = "2024-05-01 08:00:00 +0200",
            end: String = "2024-05-01 08:00:00 +0200", inner: String = "") -> String {
    var attributes = "type=\"\(type)\" sourceName=\"\(source)\""
    if let unit { attributes += " unit=\"\(unit)\"" }
    if let value { attributes += " value=\"\(value)\"" }
    attributes += " startDate=\"\(start)\" endDate=\"\(end)\""
    return inner.isEmpty ? " <Record \(attributes)/>" : " <Record \(attributes)>\(inner)</Record>"
}

/// Every sample of `type` in the store.
func samples(_ store: Store, _ identifier: String) throws -> [Sample] {
    Array(try store.anchoredQuery(type: try SampleType.named(identifier), anchor: nil).samples)
}

/// The `ohk` tool built beside the tests.
func ohk(_ args: [String], mergeStderr: Bool = false, setting: [String: String] = [:]) -> (status: Int32, output: String) {
    run(siblingExecutable("ohk"), args, mergeStderr: mergeStderr, setting: setting)
}

/// Reads a child's output line by line until `stop` says so or the pipe
/// ends; returns the lines read.
func readLines(_ fd: Int32, until stop: (String) -> Bool) -> [String] {
    var lines: [String] = []
    var current: [UInt8] = []
    var byte: UInt8 = 0
    while read(fd, &byte, 1) == 1 {
        if byte != UInt8(ascii: "\n") { current.append(byte); continue }
        let line = String(decoding: current, as: UTF8.self)
        current.removeAll()
        lines.append(line)
        if stop(line) { break }
    }
    return lines
}

func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    try JSONDecoder().decode(T.self, from: Data(text.utf8))
}
