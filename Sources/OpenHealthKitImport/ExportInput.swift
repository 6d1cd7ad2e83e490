import CArchive
import Glibc

/// The bytes of the export's XML, wherever it is: a loose XML file, the
/// XML of an unzipped export folder, or the XML entry of the Health app's
/// zip, decompressed as it is read (nothing is unpacked to disk). The zip
/// is read front to back through its local headers, so a truncated archive
/// still yields everything before the cut.
///
/// The export's XML is the file whose root element is `HealthData`,
/// whatever its name: `export.xml`, `Export.xml`, `导出.xml` on a
/// Chinese-locale phone. Each XML file is sniffed (`ExportProlog`), and
/// one whose root is another element is passed over: in a zip, entry by
/// entry in the zip's order; in a folder, `export.xml` first. `export_cda.xml` (the clinical document) never
/// is the export.
final class ExportInput {
    /// What progress is measured against: the size of the file on disk.
    let totalBytes: Int64
    /// The XML read: the zip entry ("apple_health_export/export.xml") or
    /// the file in a folder; nil for a loose file.
    private(set) var entryName: String?
    /// Said once in the report: what the input worked around.
    private(set) var warnings: [String] = []
    /// The other files of the export (zip entries or files of the folder),
    /// relative to it: what the report lists as not imported.
    private(set) var otherFiles: [String] = []
    private var fd: Int32 = -1
    private var archive: OpaquePointer?
    /// Bytes read ahead (to sniff the root, to check the DTD), served first.
    private var pending: [UInt8] = []
    private var pendingAt = 0
    /// What stopped the read-ahead, thrown after `pending`.
    private var damage: (any Error)?
    /// How far ahead a root element is looked for.
    private static let sniffBytes = 64 << 10
    private let limits: ImportLimits
    /// Bytes the zip's entry gave so far (for the zip-bomb bound).
    private var decompressed: Int64 = 0

    /// Opens `path`: a zip (recognised by its signature, not its name), a
    /// folder, or an XML file.
    init(path: String, limits: ImportLimits = ImportLimits()) throws {
        self.limits = limits
        var st = stat()
        guard stat(path, &st) == 0 else { throw ImportError.cannotOpen("\(path): \(String(cString: strerror(errno)))") }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            let file = try Self.exportFile(inFolder: path)
            let xml = String(file.dropFirst(path.count + 1))
            entryName = xml
            otherFiles = Self.files(under: path, depth: 3).filter { $0 != xml }
            fd = try Self.openFile(file)
        } else {
            fd = try Self.openFile(path)
        }
        var fst = stat()
        fstat(fd, &fst)
        totalBytes = Int64(fst.st_size)
        var magic = [UInt8](repeating: 0, count: 4)
        if pread(fd, &magic, 4, 0) == 4 && magic == [0x50, 0x4b, 0x03, 0x04] {
            close(fd)
            fd = -1
            try openZip(path)
        }
        checkProlog()
    }

    deinit {
        if fd >= 0 { close(fd) }
        if let archive { archive_read_free(archive) }
    }

    private static func openFile(_ path: String) throws -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ImportError.cannotOpen("\(path): \(String(cString: strerror(errno)))") }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw ImportError.cannotOpen("\(path): not a regular file")
        }
        return fd
    }

    /// Whether an entry or file named `name` may be the export: an XML file
    /// at the top or one folder down (routes, ECGs and clinical records sit
    /// deeper or are not XML), and not the clinical document.
    static func mayBeExport(_ name: String) -> Bool {
        let parts = name.split(separator: "/")
        guard let base = parts.last, parts.count <= 2 else { return false }
        let lower = base.lowercased()
        return lower.hasSuffix(".xml") && lower != "export_cda.xml"
    }

    private static func isNamedExport(_ name: String) -> Bool {
        name.split(separator: "/").last?.lowercased() == "export.xml"
    }

    /// Whether an XML file whose first bytes show `root` is the export: its
    /// root is `HealthData`; or it is named export.xml and its root lies
    /// beyond what was sniffed (a prolog longer than 64 KB), in which case
    /// the parse checks the root.
    private static func isExport(root: String?, named name: String) -> Bool {
        root == "HealthData" || (root == nil && isNamedExport(name))
    }

    /// The export's XML in an unzipped export folder (or the folder that
    /// holds one): an XML file whose root is `HealthData`, `export.xml`
    /// tried first.
    private static func exportFile(inFolder folder: String) throws -> String {
        var candidates: [String] = []
        var seen: [String] = []
        for sub in ["", "apple_health_export/"] {
            for name in names(in: folder + "/" + sub) {
                seen.append(sub + name)
                if mayBeExport(sub + name) { candidates.append(sub + name) }
            }
        }
        candidates.sort { (isNamedExport($0) ? 0 : 1, $0) < (isNamedExport($1) ? 0 : 1, $1) }
        for c in candidates {
            let path = folder + "/" + c
            guard let fd = try? openFile(path) else { continue }
            defer { close(fd) }
            var head = [UInt8](repeating: 0, count: sniffBytes)
            let n = Glibc.read(fd, &head, head.count)
            if n > 0, isExport(root: ExportProlog.rootElement(head[0..<n]), named: c) { return path }
        }
        throw ImportError.notAnExport("\(folder) holds no export XML (a file whose root is <HealthData>); it holds "
                                      + listing(seen.sorted()))
    }

    /// Runs `body` with this thread in a UTF-8 locale: libarchive converts
    /// entry names to the locale's charset, and in a process that never
    /// set one ("C") 导出.xml has no name at all.
    private static func withUTF8Names<T>(_ body: () throws -> T) rethrows -> T {
        let utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil)
        let previous = utf8.map { uselocale($0) }
        defer {
            if let previous { uselocale(previous) }
            if let utf8 { freelocale(utf8) }
        }
        return try body()
    }

    private func openZip(_ path: String) throws {
        try Self.withUTF8Names { try findExportEntry(path) }
    }

    private func findExportEntry(_ path: String) throws {
        guard let a = archive_read_new() else { throw ImportError.cannotOpen("\(path): out of memory") }
        archive = a
        archive_read_support_format_zip_streamable(a)
        guard archive_read_open_filename(a, path, 1 << 16) == ARCHIVE_OK else {
            throw ImportError.cannotOpen("\(path): \(Self.message(a))")
        }
        var entry: OpaquePointer?
        var seen: [String] = []
        while true {
            let status = archive_read_next_header(a, &entry)
            if status == ARCHIVE_EOF {
                throw ImportError.notAnExport("\(path) holds no export XML (an entry whose root is <HealthData>); it holds "
                                              + Self.listing(seen))
            }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
                throw ImportError.notAnExport("\(path): damaged or truncated zip before the export XML was found: \(Self.message(a))")
            }
            let name = Self.name(of: entry)
            if Self.mayBeExport(name) {
                readAhead(Self.sniffBytes)
                if Self.isExport(root: ExportProlog.rootElement(pending[...]), named: name) {
                    entryName = name
                    otherFiles = seen
                    return
                }
                pending.removeAll()
                damage = nil
            }
            seen.append(name)
            archive_read_data_skip(a)
        }
    }

    /// After the export's XML: the zip's remaining entries, listed (their
    /// data skipped) until its end or the first damage.
    func listRemainingEntries() {
        guard let archive else { return }
        Self.withUTF8Names {
            var entry: OpaquePointer?
            while true {
                let status = archive_read_next_header(archive, &entry)
                guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else { return }
                otherFiles.append(Self.name(of: entry))
                archive_read_data_skip(archive)
            }
        }
    }

    private static func name(of entry: OpaquePointer) -> String {
        (archive_entry_pathname_utf8(entry) ?? archive_entry_pathname(entry)).map { String(cString: $0) } ?? ""
    }

    /// The regular files under `folder`, `depth` levels down at most,
    /// relative to it.
    private static func files(under folder: String, depth: Int) -> [String] {
        guard depth > 0 else { return [] }
        var out: [String] = []
        for name in names(in: folder) {
            var st = stat()
            guard stat(folder + "/" + name, &st) == 0 else { continue }
            if (st.st_mode & S_IFMT) == S_IFDIR {
                out += files(under: folder + "/" + name, depth: depth - 1).map { name + "/" + $0 }
            } else if (st.st_mode & S_IFMT) == S_IFREG {
                out.append(name)
            }
        }
        return out.sorted()
    }

    /// The names in a folder (not `.` and `..`); none when it cannot be read.
    static func names(in folder: String) -> [String] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var out: [String] = []
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { out.append(name) }
        }
        return out
    }

    /// "a, b and 3 more": what a zip or folder holds, for an error.
    private static func listing(_ names: [String]) -> String {
        guard !names.isEmpty else { return "nothing" }
        let shown = names.prefix(12).joined(separator: ", ")
        return names.count > 12 ? "\(shown) and \(names.count - 12) more" : shown
    }

    /// Reads until `pending` holds at least `count` bytes or the input
    /// ends. Damage met on the way is thrown once `pending` is consumed, so
    /// that what precedes it is parsed and imported first.
    private func readAhead(_ count: Int) {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while pending.count < count && damage == nil {
            do {
                let n = try chunk.withUnsafeMutableBytes { try readSource(into: $0.baseAddress!, count: $0.count) }
                if n == 0 { return }
                pending += chunk[0..<n]
            } catch {
                damage = error
            }
        }
    }

    /// A broken internal DTD (some iOS versions write a malformed ATTLIST
    /// in the export's own `<!DOCTYPE HealthData [ … ]>`) would stop expat
    /// before the first record; nothing in it is needed, so when it does
    /// not parse it is emptied (its line breaks kept, so that later line
    /// numbers stay true) and the report says so.
    private func checkProlog() {
        var limit = Self.sniffBytes
        while true {
            readAhead(limit)
            if let broken = ExportProlog.brokenInternalSubset(pending[...]) {
                pending = ExportProlog.emptyingSubset(pending, broken.subset)
                warnings.append("the export's internal DTD does not parse (\(broken.reason)); it was skipped, as the import needs nothing in it")
                return
            }
            // A DTD longer than what was read: read more, up to 16 MB.
            guard ExportProlog.needsMore(pending[...]), limit < 16 << 20, pending.count >= limit else { return }
            limit *= 4
        }
    }

    /// Reads up to `count` bytes into `buffer`; 0 at the end. Throws
    /// `ImportError.truncated` when the zip ends inside the XML, and
    /// `.damaged` when the zip or the file cannot be read on.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) throws -> Int {
        if pendingAt < pending.count {
            let n = min(count, pending.count - pendingAt)
            pending.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + pendingAt, byteCount: n) }
            pendingAt += n
            if pendingAt == pending.count { pending = []; pendingAt = 0 }
            return n
        }
        if let damage { throw damage }
        return try readSource(into: buffer, count: count)
    }

    private func readSource(into buffer: UnsafeMutableRawPointer, count: Int) throws -> Int {
        if let archive {
            let n = archive_read_data(archive, buffer, count)
            guard n >= 0 else {
                // Failing with the whole file read: the zip was cut short
                // (a download that stopped), not damaged in its middle.
                if archive_filter_bytes(archive, -1) >= totalBytes {
                    throw ImportError.truncated("the zip ends inside its XML: \(Self.message(archive))")
                }
                throw ImportError.damaged("the zip is damaged: \(Self.message(archive))")
            }
            decompressed += Int64(n)
            if decompressed > limits.ratioAfter, decompressed > limits.zipRatio * max(1, archive_filter_bytes(archive, -1)) {
                throw ImportError.damaged("the zip's XML grows more than \(limits.zipRatio) times its compressed size "
                                          + "(\(decompressed) bytes so far): not an export, perhaps a zip bomb")
            }
            return n
        }
        while true {
            let n = Glibc.read(fd, buffer, count)
            if n >= 0 { return n }
            guard errno == EINTR else { throw ImportError.damaged("read failed: \(String(cString: strerror(errno)))") }
        }
    }

    /// Bytes of the file on disk consumed so far (compressed bytes for a zip).
    var bytesConsumed: Int64 {
        if let archive { return archive_filter_bytes(archive, -1) }
        return Int64(lseek(fd, 0, SEEK_CUR))
    }

    private static func message(_ a: OpaquePointer) -> String {
        archive_error_string(a).map { String(cString: $0) } ?? "unknown libarchive error"
    }
}
