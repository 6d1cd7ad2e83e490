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
final class ContentUUID {
    /// The namespace of Apple Health export records (a fixed random UUID).
    static let namespace: [UInt8] = [0x6f, 0x0e, 0x3c, 0x52, 0x8a, 0x41, 0x4d, 0x27,
                                     0x9b, 0x5e, 0x21, 0xd4, 0x70, 0xc3, 0x1a, 0x88]
    private let md: OpaquePointer
    private let ctx: OpaquePointer

    init() {
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

    /// The UUID of `name` (the record's canonical bytes) for a sample
    /// starting at `start` (seconds since 1970; before 1970 counts as 1970).
    func uuid(of name: [UInt8], start: Double) -> UUID {
        var digest = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        EVP_DigestInit_ex2(ctx, md, nil)
        Self.namespace.withUnsafeBytes { _ = EVP_DigestUpdate(ctx, $0.baseAddress, 16) }
        name.withUnsafeBytes { _ = EVP_DigestUpdate(ctx, $0.baseAddress, $0.count) }
        EVP_DigestFinal_ex(ctx, &digest, &length)
        let ms = UInt64(max(0, min(start * 1000, Double(1 << 48 - 1))))
        for i in 0..<6 { digest[i] = UInt8(truncatingIfNeeded: ms >> (40 - 8 * UInt64(i))) }
        digest[6] = (digest[6] & 0x0f) | 0x80  // version 8
        digest[8] = (digest[8] & 0x3f) | 0x80  // RFC variant
        return UUID(uuid: (digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
                           digest[8], digest[9], digest[10], digest[11], digest[12], digest[13], digest[14], digest[15]))
    }
}
