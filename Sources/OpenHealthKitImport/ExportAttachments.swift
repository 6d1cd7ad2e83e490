import CArchive
import Glibc

/// The export's files beside its XML (`workout-routes/*.gpx`,
/// `clinical-records/*.json`, `electrocardiograms/*.csv`), read after the
/// XML in one pass: in a zip, a second walk over its entries (the Health
/// app writes some before the XML); in a folder, or beside a loose XML
/// file, the files themselves.
enum ExportAttachments {
    /// Calls `body` with each file of `limits` (path relative to the
    /// export's folder → the most bytes it may have; a larger file is
    /// skipped as damage) the export holds, its name as the export has
    /// it, and its bytes. `exportPath` is what the import was given;
    /// `exportXML` the XML's name inside it (nil for a loose XML file).
    /// `stopped` true ends the pass early, checked at each file or entry.
    static func read(_ exportPath: String, exportXML: String?, limits: [String: Int], unless stopped: () -> Bool = { false },
                     _ body: (_ path: String, _ name: String, _ bytes: [UInt8]) throws -> Void) throws {
        // Only files inside the export: no "..", no absolute path.
        let limits = limits.filter { p, _ in !p.hasPrefix("/") && !p.split(separator: "/").contains("..") }
        let paths = Set(limits.keys)
        guard !paths.isEmpty else { return }
        var st = stat()
        guard stat(exportPath, &st) == 0 else { return }
        let base = exportXML.map { x in x.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") } ?? ""
        let inFolder = { (p: String) in base.isEmpty ? p : base + "/" + p }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            for p in paths.sorted() where !stopped() {
                if let bytes = file(exportPath + "/" + inFolder(p), limits[p]!) { try body(p, inFolder(p), bytes) }
            }
        } else if isZip(exportPath) {
            var wanted: [String: (path: String, maxBytes: Int)] = [:]
            for (p, limit) in limits { wanted[inFolder(p)] = (p, limit) }
            try zipEntries(exportPath, wanted, stopped, body)
        } else {
            let folder = exportPath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            for p in paths.sorted() where !stopped() {
                if let bytes = file((folder.isEmpty ? "." : folder) + "/" + p, limits[p]!) { try body(p, p, bytes) }
            }
        }
    }

    /// The files in the folders beside a loose XML file (which lists no
    /// files of its own), one level down, as paths from the XML's folder
    /// (`electrocardiograms/ecg_2020-02-05.csv`); none when `exportPath`
    /// is a zip or a folder.
    static func files(besideLooseXML exportPath: String) -> [String] {
        var st = stat()
        guard stat(exportPath, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, !isZip(exportPath) else { return [] }
        let parts = exportPath.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        let parent = parts.isEmpty ? "." : parts.joined(separator: "/").isEmpty ? "/" : parts.joined(separator: "/")
        var out: [String] = []
        for folder in names(in: parent) {
            var fs = stat()
            guard stat(parent + "/" + folder, &fs) == 0, (fs.st_mode & S_IFMT) == S_IFDIR else { continue }
            out += names(in: parent + "/" + folder).map { folder + "/" + $0 }
        }
        return out.sorted()
    }

    /// A folder's entries without hidden files (`._x.csv`, which macOS
    /// leaves in copies).
    private static func names(in folder: String) -> [String] {
        ExportInput.names(in: folder).filter { !$0.hasPrefix(".") }
    }

    private static func isZip(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var magic = [UInt8](repeating: 0, count: 4)
        return pread(fd, &magic, 4, 0) == 4 && magic == [0x50, 0x4b, 0x03, 0x04]
    }

    /// A regular file's bytes; nil when it is missing, not regular, or larger than `maxBytes`.
    private static func file(_ path: String, _ maxBytes: Int) -> [UInt8]? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size) <= maxBytes,
              let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var out = [UInt8](repeating: 0, count: Int(st.st_size))
        let n = out.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
        return n == out.count ? out : nil
    }

    /// The zip's entries named in `wanted` (entry name → path and most
    /// bytes), front to back; damage ends the pass (what was read stays read).
    private static func zipEntries(_ path: String, _ wanted: [String: (path: String, maxBytes: Int)], _ stopped: () -> Bool,
                                   _ body: (String, String, [UInt8]) throws -> Void) throws {
        guard let a = archive_read_new() else { return }
        defer { archive_read_free(a) }
        archive_read_support_format_zip_streamable(a)
        guard archive_read_open_filename(a, path, 1 << 16) == ARCHIVE_OK else { return }
        var entry: OpaquePointer?
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while !stopped() {
            let status = archive_read_next_header(a, &entry)
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else { return }
            let name = (archive_entry_pathname_utf8(entry) ?? archive_entry_pathname(entry)).map { String(cString: $0) } ?? ""
            guard let (p, maxBytes) = wanted[name] else {
                archive_read_data_skip(a)
                continue
            }
            var bytes: [UInt8] = []
            while true {
                let n = chunk.withUnsafeMutableBytes { archive_read_data(a, $0.baseAddress, $0.count) }
                if n < 0 { return }
                if n == 0 { break }
                bytes += chunk[0..<n]
                // A file of more than `maxBytes` is damage, or a zip bomb.
                if bytes.count > maxBytes { bytes = []; archive_read_data_skip(a); break }
            }
            if !bytes.isEmpty { try body(p, name, bytes) }
        }
    }
}
