#if Server
import COHKSystem
import FoundationEssentials
import Glibc
import OpenHealthKitCore
import OpenHealthKitImport
import OpenHealthKitUpload

/// One token as the data directory keeps it: its hash, never the token.
public struct TokenRecord: Codable, Sendable, Equatable {
    /// The token's public part, which `ohk token revoke` names.
    public var id: String
    /// SHA-256 of the token's secret part, in hex.
    public var hash: String
    public var grant: Grant
    public var created: Date
    public var revoked: Date?
}

/// The tokens of a data directory, in `DIR/.ohk-tokens` (one JSON object
/// a line, written whole to a new file renamed over the old, under an
/// exclusive lock on `DIR/.ohk-tokens.lock`). A token reads
/// `ohk_<id>_<secret>`: the id finds its record, and the secret is checked
/// against the record's hash in constant time.
public struct TokenFile: Sendable {
    public let directory: String
    var path: String { directory + "/.ohk-tokens" }

    public init(directory: String) {
        self.directory = directory
    }

    /// Makes a token for `grant`; returns it (shown once) and its record.
    public func create(_ grant: Grant) throws -> (token: String, record: TokenRecord) {
        _ = try PersonName.validate(grant.person)
        guard !grant.app.isEmpty, grant.app.utf8.count <= 255, !grant.app.contains(where: { $0 == " " || $0 == "\n" }) else {
            throw OHKError(.invalidArgument, "the app must be a bundle identifier (com.example.app), 1 to 255 characters without spaces")
        }
        let id = try Self.randomHex(8)
        let secret = try Self.randomHex(24)
        let record = TokenRecord(id: id, hash: Self.sha256Hex(secret), grant: grant, created: .now, revoked: nil)
        try update { records in records.append(record) }
        return ("ohk_\(id)_\(secret)", record)
    }

    /// Marks the token of `id` revoked; false when there is none.
    @discardableResult
    public func revoke(id: String) throws -> Bool {
        var found = false
        try update { records in
            for i in records.indices where records[i].id == id && records[i].revoked == nil {
                records[i].revoked = .now
                found = true
            }
        }
        return found
    }

    /// Every record, revoked ones too.
    public func records() throws -> [TokenRecord] {
        guard let text = try Self.readFile(path) else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        var out: [TokenRecord] = []
        for (n, line) in text.split(separator: "\n").enumerated() {
            do {
                out.append(try decoder.decode(TokenRecord.self, from: Data(line.utf8)))
            } catch {
                throw OHKError(.storeCorrupt, "\(path), line \(n + 1): not a token record (\(error))")
            }
        }
        return out
    }

    /// The grant of `token`, or nil when it is not a live token of `records`.
    public static func verify(_ token: some StringProtocol, in records: [String: TokenRecord]) -> Grant? {
        let parts = token.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "ohk", let record = records[String(parts[1])], record.revoked == nil else { return nil }
        let given = Array(sha256Hex(String(parts[2])).utf8), kept = Array(record.hash.utf8)
        guard given.count == kept.count else { return nil }
        // Constant time: every byte is compared, whatever differs first.
        var difference: UInt8 = 0
        for i in given.indices { difference |= given[i] ^ kept[i] }
        return difference == 0 ? record.grant : nil
    }

    /// Reads, changes and writes the records under the file's lock.
    private func update(_ change: (inout [TokenRecord]) throws -> Void) throws {
        let lock = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw OHKError(.storage, "cannot open \(path).lock: \(String(cString: strerror(errno)))") }
        defer { Glibc.close(lock) }
        guard flock(lock, LOCK_EX) == 0 else { throw OHKError(.storage, "cannot lock \(path).lock") }
        var all = try records()
        try change(&all)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        var text = ""
        for r in all { text += String(decoding: try encoder.encode(r), as: UTF8.self) + "\n" }
        try Self.writeFileAtomically(path, text)
    }

    static func sha256Hex(_ text: String) -> String {
        ContentUUID.sha256Hex(Array(text.utf8))
    }

    private static func randomHex(_ count: Int) throws -> String {
        var bytes = [UInt8](repeating: 0, count: count)
        guard ohk_getrandom(&bytes, count) == count else { throw OHKError(.storage, "getrandom failed") }
        return bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    static func readFile(_ path: String) throws -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 && errno == ENOENT { return nil }
        guard fd >= 0 else { throw OHKError(.storage, "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &chunk, chunk.count)
            guard n >= 0 else { throw OHKError(.storage, "cannot read \(path)") }
            if n == 0 { break }
            out += chunk[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A new file, synced, renamed over `path`: readers see the old or the
    /// new contents, never a part (mode 0600: hashes only, but private).
    private static func writeFileAtomically(_ path: String, _ text: String) throws {
        let temporary = path + ".new"
        // A new file, never one left there or a link planted in its place.
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw OHKError(.storage, "cannot write \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        Glibc.close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            throw OHKError(.storage, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        // The rename itself on disk: a revocation survives a crash.
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let directory = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            Glibc.close(directory)
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
#endif
