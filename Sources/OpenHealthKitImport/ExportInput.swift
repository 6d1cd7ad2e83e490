import CArchive
import Glibc

/// The bytes of export.xml: the file itself, or the `export.xml` entry of
/// the Health app's export.zip, decompressed as it is read (nothing is
/// unpacked to disk). The zip is read front to back through its local
/// headers, so a truncated archive still yields everything before the cut.
final class ExportInput {
    /// What progress is measured against: the size of the file on disk.
    let totalBytes: Int64
    /// The entry read from a zip ("apple_health_export/export.xml"), or nil.
    private(set) var entryName: String?
    private var fd: Int32 = -1
    private var archive: OpaquePointer?

    /// Opens `path`; a zip is recognised by its signature, not its name.
    init(path: String) throws {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ImportError.cannotOpen("\(path): \(String(cString: strerror(errno)))") }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw ImportError.cannotOpen("\(path): not a regular file")
        }
        totalBytes = Int64(st.st_size)
        var magic = [UInt8](repeating: 0, count: 4)
        let n = pread(fd, &magic, 4, 0)
        if n == 4 && magic == [0x50, 0x4b, 0x03, 0x04] {
            close(fd)
            fd = -1
            try openZip(path)
        }
    }

    deinit {
        if fd >= 0 { close(fd) }
        if let archive { archive_read_free(archive) }
    }

    private func openZip(_ path: String) throws {
        guard let a = archive_read_new() else { throw ImportError.cannotOpen("\(path): out of memory") }
        archive = a
        archive_read_support_format_zip_streamable(a)
        guard archive_read_open_filename(a, path, 1 << 16) == ARCHIVE_OK else {
            throw ImportError.cannotOpen("\(path): \(Self.message(a))")
        }
        var entry: OpaquePointer?
        while true {
            let status = archive_read_next_header(a, &entry)
            if status == ARCHIVE_EOF {
                throw ImportError.notAnExport("\(path) holds no export.xml")
            }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
                throw ImportError.notAnExport("\(path): damaged or truncated zip before export.xml was found: \(Self.message(a))")
            }
            let name = archive_entry_pathname(entry).map { String(cString: $0) } ?? ""
            if name == "export.xml" || name.hasSuffix("/export.xml") {
                entryName = name
                return
            }
            archive_read_data_skip(a)
        }
    }

    /// Reads up to `count` bytes into `buffer`; 0 at the end. Throws
    /// `ImportError.damaged` when the zip or the file cannot be read on.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) throws -> Int {
        if let archive {
            let n = archive_read_data(archive, buffer, count)
            guard n >= 0 else { throw ImportError.damaged("the zip is damaged or truncated: \(Self.message(archive))") }
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

/// Why an import could not start, or stopped early.
public enum ImportError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file is missing, unreadable or not a regular file.
    case cannotOpen(String)
    /// The file is not an Apple Health export (no export.xml in the zip,
    /// another root element).
    case notAnExport(String)
    /// The zip or the XML is truncated or malformed past some point.
    case damaged(String)

    public var description: String {
        switch self {
        case .cannotOpen(let m): "cannot open \(m)"
        case .notAnExport(let m): "not an Apple Health export: \(m)"
        case .damaged(let m): m
        }
    }
}
