import FoundationEssentials
import Glibc
import OpenHealthKitCore
import OpenHealthKitImport
import OpenHealthKitJSON
import OpenHealthKitUpload

/// What each fuzz target feeds the library, and the properties it checks
/// beyond "no crash, no hang": what parses prints back to an equal value.
/// A broken property traps, which the fuzzer reports as a crash.
/// Text with every non-ASCII or control character escaped, for messages.
func escaped(_ text: String) -> String {
    text.unicodeScalars.map { $0.escaped(asASCII: true) }.joined()
}

enum FuzzTarget: String, CaseIterable {
    /// Predicate text (`SamplePredicate(_:)`), printed and parsed again.
    case predicate
    /// Unit strings (`HealthUnit(_:)`), printed and parsed again.
    case unit
    /// Anchors from bytes and from text; what decodes encodes back.
    case anchor
    /// Stored records (`RecordView`): a record that passes the check reads
    /// every field and its metadata without an error.
    case record
    /// Export XML through the importer's parser.
    case export
    /// The body of an upload to `ohk serve` (`UploadDecoding`): a sample
    /// that decodes prints (as `ohk changes` does) and decodes again to an
    /// equal sample.
    case upload

    func run(_ data: UnsafeRawBufferPointer) {
        switch self {
        case .predicate:
            let text = String(decoding: data, as: UTF8.self)
            guard let p = try? SamplePredicate(text) else { return }
            let printed = p.description
            guard let again = try? SamplePredicate(printed) else { fatalError("printed predicate does not parse: \(printed)") }
            guard again == p else { fatalError("printed predicate parses to another: \(escaped(printed)) parses to \(escaped(again.description))") }
        case .unit:
            let text = String(decoding: data, as: UTF8.self)
            guard let u = try? HealthUnit(text) else { return }
            guard let again = try? HealthUnit(u.description), again == u else { fatalError("unit does not print back: \(u)") }
            guard let one = try? u.convert(1, to: u), one == 1 else { fatalError("unit does not convert to itself: \(u)") }
        case .anchor:
            if let a = try? QueryAnchor(bytes: Array(data)), (try? QueryAnchor(bytes: a.bytes)) != a {
                fatalError("anchor bytes do not read back")
            }
            let text = String(decoding: data, as: UTF8.self)
            if let a = try? QueryAnchor(base64: text), (try? QueryAnchor(base64: a.base64)) != a {
                fatalError("anchor text does not read back")
            }
        case .record:
            let r = RecordView(bytes: data)
            guard r.isWellFormed else { return }
            _ = (r.uuid, r.start, r.end, r.quantity, r.category, r.sourceID, r.deviceID, r.isTombstone)
            guard (try? r.metadata()) != nil else { fatalError("a well-formed record's metadata does not read") }
        case .export:
            let parser = ExportParser()
            var offset = 0
            do {
                while true {
                    let n = try parser.parse(upTo: 4096) { buffer, capacity in
                        let n = min(capacity, data.count - offset)
                        if n > 0 { buffer.copyMemory(from: data.baseAddress! + offset, byteCount: n) }
                        offset += n
                        return n
                    }
                    _ = parser.takeRecords()
                    if n == 0 { break }
                }
            } catch {}
        case .upload:
            guard let body = try? UploadDecoding.body(Array(data)),
                  let samples = try? UploadDecoding.samples(body, grant: Self.grant, store: Self.store) else { return }
            _ = try? UploadDecoding.deletions(body)
            for s in samples {
                let printed = "{\"samples\": [\(JSONObject.sample(s).closed)]}"
                guard let again = try? UploadDecoding.body(Array(printed.utf8)),
                      let back = try? UploadDecoding.samples(again, grant: Self.grant, store: Self.store) else {
                    fatalError("a decoded sample prints as an upload that does not decode: \(escaped(printed))")
                }
                guard back == [s] else { fatalError("a decoded sample prints back to another: \(escaped(printed))") }
            }
        }
    }

    /// What the upload target decodes for: every type, any source.
    static let grant = Grant(person: "fuzz", app: "org.openhealthkit.fuzz", read: .all, write: .all, relay: true)
    /// A scratch store for the type lookups of the upload target.
    nonisolated(unsafe) static let store: Store = {
        var template = Array("/tmp/ohk-fuzz-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        var options = StoreOptions()
        options.durable = false
        return try! Store(directory: dir, options: options)
    }()
}
