import CCrypto
import FoundationEssentials

/// UUIDs derived from a record's content, so that the same record
/// imported twice, from the same export or a later one, gets the same UUID
/// and is stored once. Laid out as RFC 9562 version 8: the first 48 bits
/// are the sample's start in milliseconds since 1970 (as in version 7), the
/// other 74 free bits come from the SHA-1 of a namespace and the content.
/// Time first keeps an import's inserts into the store's UUID index close
/// together (exports run in time order per type); random UUIDs would touch
/// every page of that index in every batch, and grow slower as it grows.
package final class ContentUUID {
    /// The namespace of Apple Health export records (a fixed random UUID).
    package static let namespace: [UInt8] = [0x6f, 0x0e, 0x3c, 0x52, 0x8a, 0x41, 0x4d, 0x27,
                                             0x9b, 0x5e, 0x21, 0xd4, 0x70, 0xc3, 0x1a, 0x88]
    private let md: OpaquePointer
    private let ctx: OpaquePointer
    /// The namespace hashed before every name: records of one origin.
    private let namespace: [UInt8]

    /// Not thread-safe: one a thread (or a call) at a time.
    package init(namespace: [UInt8] = ContentUUID.namespace) {
        self.namespace = namespace
        // SHA-1 is part of OpenSSL's default provider; its absence is a broken install.
        guard let md = EVP_MD_fetch(nil, "SHA1", nil), let ctx = EVP_MD_CTX_new() else {
            fatalError("libcrypto has no SHA-1")
        }
        self.md = md
        self.ctx = ctx
    }

    deinit {
        EVP_MD_CTX_free(ctx)
        EVP_MD_free(md)
    }

    /// The hash state after the namespace and the leading bytes of a
    /// record's name: records of one type, source and device share them,
    /// so they are hashed once, not once a record.
    final class Prefix {
        fileprivate let ctx: OpaquePointer

        fileprivate init(_ ctx: OpaquePointer) { self.ctx = ctx }
        deinit { EVP_MD_CTX_free(ctx) }
    }

    /// The state after hashing the namespace and `bytes`.
    func prefix(_ bytes: [UInt8]) -> Prefix {
        guard let p = EVP_MD_CTX_new() else { fatalError("libcrypto is out of memory") }
        EVP_DigestInit_ex2(p, md, nil)
        namespace.withUnsafeBytes { _ = EVP_DigestUpdate(p, $0.baseAddress, $0.count) }
        bytes.withUnsafeBytes { _ = EVP_DigestUpdate(p, $0.baseAddress, $0.count) }
        return Prefix(p)
    }

    /// The UUID of `name` (the record's canonical bytes) for a sample
    /// starting at `start` (seconds since 1970; before 1970 counts as 1970).
    package func uuid(of name: [UInt8], start: Double) -> UUID {
        uuid(after: prefix([]), of: name, start: start)
    }

    /// The UUID of the name that is `prefix`'s bytes followed by `rest`.
    func uuid(after prefix: Prefix, of rest: [UInt8], start: Double) -> UUID {
        EVP_MD_CTX_copy_ex(ctx, prefix.ctx)
        rest.withUnsafeBytes { _ = EVP_DigestUpdate(ctx, $0.baseAddress, $0.count) }
        var d: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { digest in  // EVP_MAX_MD_SIZE
            var length: UInt32 = 0
            EVP_DigestFinal_ex(ctx, digest.baseAddress, &length)
            withUnsafeMutableBytes(of: &d) { $0.copyMemory(from: UnsafeRawBufferPointer(start: digest.baseAddress, count: 16)) }
        }
        let ms = UInt64(max(0, min(start * 1000, Double(1 << 48 - 1))))
        withUnsafeMutableBytes(of: &d) { b in
            for i in 0..<6 { b[i] = UInt8(truncatingIfNeeded: ms >> (40 - 8 * UInt64(i))) }
            b[6] = (b[6] & 0x0f) | 0x80  // version 8
            b[8] = (b[8] & 0x3f) | 0x80  // RFC variant
        }
        return UUID(uuid: d)
    }
}

extension ContentUUID {
    /// SHA-256 of `bytes` in hex, through the same lazily opened libcrypto
    /// (`ohk token` keeps tokens' hashes so).
    package static func sha256Hex(_ bytes: [UInt8]) -> String {
        guard let md = EVP_MD_fetch(nil, "SHA256", nil), let ctx = EVP_MD_CTX_new() else {
            fatalError("libcrypto has no SHA-256")
        }
        defer {
            EVP_MD_CTX_free(ctx)
            EVP_MD_free(md)
        }
        var digest = [UInt8](repeating: 0, count: 64)  // EVP_MAX_MD_SIZE
        var length: UInt32 = 0
        EVP_DigestInit_ex2(ctx, md, nil)
        bytes.withUnsafeBytes { _ = EVP_DigestUpdate(ctx, $0.baseAddress, $0.count) }
        EVP_DigestFinal_ex(ctx, &digest, &length)
        return digest.prefix(Int(length)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
