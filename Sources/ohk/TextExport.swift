#if CommandLineTool
import ArgumentParser
import FoundationEssentials
import Glibc
import OpenHealthKitCore
import OpenHealthKitJSON

/// The CSV or NDJSON files of `ohk export`: the changes of a run are
/// written to a file of new rows per type as they are read; `finish`
/// then makes each changed type's file (its old rows but those the
/// changes replace or delete, then the new rows) under a temporary name
/// and renames it over the old one, and writes the anchor last.
final class TextExport {
    let folder: String
    let format: ExportCommand.Format
    let incremental: Bool
    private var rows: [String: RowFile] = [:]
    /// By type identifier: the UUIDs the run added or deleted, whose old
    /// rows go (an interrupted run's repeat must not count them twice).
    private var changed: [String: Set<String>] = [:]
    private let deletions: RowFile

    private var ext: String { format == .csv ? "csv" : "ndjson" }
    static let csvHeader = "uuid,start_date,end_date,value,unit,type,source,source_bundle,device,metadata,utc_offset,creation_date\n"
    static let deletionsHeader = "uuid,start_date,end_date,deletion_date,type,source_bundle\n"

    init(folder: String, format: ExportCommand.Format, incremental: Bool) throws {
        (self.folder, self.format, self.incremental) = (folder, format, incremental)
        try makeExportFolders([folder, folder + "/samples"], for: folder)
        deletions = try RowFile(folder + "/.deletions.\(format == .csv ? "csv" : "ndjson").new")
    }

    func add(_ page: AnchoredQueryResult) throws {
        for s in page.samples {
            let id = s.type.identifier
            let file = try rows[id] ?? { let f = try RowFile("\(folder)/samples/.\(id).\(ext).new"); rows[id] = f; return f }()
            file.write(format == .csv ? Self.csv(s) : JSONObject.sample(s).closed + "\n")
            if incremental { changed[id, default: []].insert(s.uuid.uuidString) }
        }
        for d in page.deletedObjects {
            deletions.write(format == .csv ? Self.csv(d) : JSONObject.deleted(d).closed + "\n")
            changed[d.type.identifier, default: []].insert(d.uuid.uuidString)
        }
    }

    /// Makes the final files and writes the anchor; returns how many
    /// sample files it wrote. A full export removes the files of `types`
    /// that have no sample left.
    func finish(anchor: String, types: [SampleType]) throws -> Int {
        var written = 0
        for id in Set(rows.keys).union(changed.keys).sorted() {
            let final = "\(folder)/samples/\(id).\(ext)"
            guard rows[id] != nil || (incremental && access(final, F_OK) == 0) else { continue }
            try replace(final, header: format == .csv ? Self.csvHeader : nil, dropping: changed[id] ?? [], then: rows[id])
            written += 1
        }
        if !incremental {
            for t in types where rows[t.identifier] == nil { unlink("\(folder)/samples/\(t.identifier).\(ext)") }
        }
        try replace("\(folder)/deletions.\(ext)", header: format == .csv ? Self.deletionsHeader : nil,
                    dropping: [], then: deletions, keepOld: incremental)
        writeFileAtomically(folder + "/anchor", anchor + "\n")
        return written
    }

    /// `final`'s old rows (when incremental or `keepOld`) but those whose
    /// UUID is in `dropping`, then `new`'s rows, under a temporary name
    /// renamed over `final`.
    private func replace(_ final: String, header: String?, dropping: Set<String>, then new: RowFile?,
                         keepOld: Bool = true) throws {
        let partial = final.replacingLastComponent { ".\($0).partial" }
        let out = try RowFile(partial)
        if let header { out.write(header) }
        if incremental && keepOld, let old = fopen(final, "r") {
            defer { fclose(old) }
            var line: UnsafeMutablePointer<CChar>?
            var room = 0
            defer { free(line) }
            var first = true
            while getline(&line, &room, old) > 0 {
                let text = String(cString: line!)
                defer { first = false }
                if first && header != nil { continue }
                if let uuid = Self.uuid(of: text, csv: format == .csv), dropping.contains(uuid) { continue }
                out.write(text)
            }
        }
        if let new { try out.append(contentsOf: new) }
        try out.close(renamingTo: final)
    }

    /// The UUID a row starts with: CSV's first field, NDJSON's "uuid" key.
    static func uuid(of line: String, csv: Bool) -> String? {
        let prefix = csv ? "" : "{\"uuid\":\""
        guard line.hasPrefix(prefix) else { return nil }
        let start = line.utf8.index(line.utf8.startIndex, offsetBy: prefix.utf8.count)
        guard let end = line.utf8.index(start, offsetBy: 36, limitedBy: line.utf8.endIndex) else { return nil }
        return String(line.utf8[start..<end])
    }

    // MARK: CSV rows

    static func csv(_ s: Sample) -> String {
        var fields: [String] = [s.uuid.uuidString, TextForms.time(s.startDate), TextForms.time(s.endDate)]
        switch s.value {
        case .quantity(let q): fields += [TextForms.exactNumber(q), s.type.canonicalUnitText ?? ""]
        case .category(let c): fields += [String(c), ""]
        case .workout(let w): fields += [TextForms.exactNumber(w.duration), "s"]
        // The others' value is a count, as through C, Python and `ohk changes`.
        case .route(let r): fields += [String(r.locations.count), ""]
        case .correlation(let c): fields += [String(c.members.count), ""]
        case .audiogram(let a): fields += [String(a.points.count), ""]
        case .electrocardiogram(let e): fields += [String(e.voltages.count), ""]
        case .heartbeats, .clinicalRecord: fields += ["", ""]
        }
        fields += [s.type.identifier, s.source.name, s.source.bundleIdentifier,
                   s.device.flatMap { $0.name ?? $0.model ?? $0.manufacturer } ?? "",
                   s.metadata.isEmpty ? "" : JSONObject.metadata(s.metadata).closed,
                   s.utcOffset.map { String($0) } ?? "", s.creationDate.map(TextForms.time) ?? ""]
        return fields.map(csvField).joined(separator: ",") + "\n"
    }

    static func csv(_ d: DeletedObject) -> String {
        [d.uuid.uuidString, TextForms.time(d.startDate), TextForms.time(d.endDate), TextForms.time(d.deletionDate),
         d.type.identifier, d.source.bundleIdentifier].map(csvField).joined(separator: ",") + "\n"
    }

    /// RFC 4180: a field with a comma, a quote or a line break is quoted,
    /// its quotes doubled.
    static func csvField(_ s: String) -> String {
        guard s.utf8.contains(where: { $0 == 44 || $0 == 34 || $0 == 10 || $0 == 13 }) else { return s }
        var out = "\""
        for c in s { out += c == "\"" ? "\"\"" : String(c) }
        return out + "\""
    }
}

/// Creates `dirs` (each in turn, kept when present) and checks that the
/// last can be written: an export refuses before it writes anything.
func makeExportFolders(_ dirs: [String], for folder: String) throws {
    for dir in dirs where mkdir(dir, 0o755) != 0 && errno != EEXIST {
        throw ValidationError("cannot write the export to \(folder): \(String(cString: strerror(errno)))")
    }
    guard access(dirs.last!, W_OK) == 0 else {
        throw ValidationError("cannot write the export to \(folder): \(String(cString: strerror(errno)))")
    }
}

/// A file written through stdio, fsynced and renamed when closed.
final class RowFile {
    let path: String
    private var file: UnsafeMutablePointer<FILE>?

    init(_ path: String) throws {
        self.path = path
        guard let f = fopen(path, "w+") else {
            throw ValidationError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        file = f
    }

    func write(_ text: String) { fputs(text, file) }

    /// Appends the rows `other` holds (and removes it).
    func append(contentsOf other: RowFile) throws {
        guard let source = other.file else { return }
        fflush(source)
        rewind(source)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = fread(&buffer, 1, buffer.count, source)
            if n == 0 { break }
            guard fwrite(buffer, 1, n, file) == n else { throw ValidationError("cannot write \(path): \(String(cString: strerror(errno)))") }
        }
        fclose(source)
        other.file = nil
        unlink(other.path)
    }

    func close(renamingTo final: String) throws {
        guard let f = file else { return }
        file = nil
        let failed = fflush(f) != 0 || fsync(fileno(f)) != 0
        let error = errno
        fclose(f)
        guard !failed, rename(path, final) == 0 else {
            unlink(path)
            throw ValidationError("cannot write \(final): \(String(cString: strerror(failed ? error : errno)))")
        }
    }

    deinit {
        if let file {  // never finished: an interrupted run leaves no partial file
            fclose(file)
            unlink(path)
        }
    }
}

private extension String {
    /// The path with its last component replaced by `change(component)`.
    func replacingLastComponent(_ change: (Substring) -> String) -> String {
        guard let slash = lastIndex(of: "/") else { return change(self[...]) }
        return String(self[...slash]) + change(self[index(after: slash)...])
    }
}
#endif
