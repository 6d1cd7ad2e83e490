import CCrypto
import FoundationEssentials
import OpenHealthKitCore

/// A fingerprint of everything a store returns to its readers, the same in
/// every process that reads the same store: the byte flips compare a
/// damaged copy's fingerprint with the undamaged store's, so a flip that
/// changes nothing is told from one that changes a read.
///
/// Each part is a list of lines in a canonical text (`CanonicalText`),
/// sorted, and hashed with SHA-256; the fingerprint names each part's line
/// count and the first 16 hex digits of its hash, so a difference says
/// where it is.
struct Fingerprint {
    private(set) var parts: [(name: String, lines: [String])] = []

    mutating func add(_ name: String, _ lines: [String]) { parts.append((name, lines.sorted())) }

    var text: String {
        parts.map { "\($0.name)=\($0.lines.count):\(Self.sha256($0.lines).prefix(16))" }.joined(separator: " ")
    }

    static func sha256(_ lines: [String]) -> String {
        let ctx = EVP_MD_CTX_new()!
        defer { EVP_MD_CTX_free(ctx) }
        EVP_DigestInit_ex(ctx, EVP_sha256(), nil)
        for line in lines {
            var bytes = Array(line.utf8)
            bytes.append(10)
            EVP_DigestUpdate(ctx, bytes, bytes.count)
        }
        var digest = [UInt8](repeating: 0, count: 32)
        var size: UInt32 = 0
        EVP_DigestFinal_ex(ctx, &digest, &size)
        return digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}

extension Fingerprint {
    /// Reads every part of `store`:
    /// - samples: every live sample of every type, whole, by UUID; read in
    ///   one query, in batches of 50 and into columns (the in-place page
    ///   walk), which must agree;
    /// - deleted: every deleted object, whole;
    /// - links: each workout's associated samples;
    /// - statistics: each quantity type's daily and hourly figures, as a
    ///   collection query returns them (from the maintained buckets);
    /// - kept: activity summaries, characteristics, subscriptions, source
    ///   priorities and every source and device the samples name.
    static func read(_ store: Store) throws -> Fingerprint {
        var f = Fingerprint()
        let counts = try store.counts()
        let types = counts.types.map(\.type)
        let descriptors = types.map { QueryDescriptor(type: $0) }
        let once = try store.anchoredQuery(descriptors, anchor: nil)
        let samples = once.samples.map { "\($0.uuid) \(CanonicalText.of($0))" }
        f.add("samples", samples)
        let batched = try readInBatches(store, descriptors, bound: counts.samples + counts.deletedObjects + 2)
        f.add("batched", batched.sorted() == samples.sorted() ? ["equal"] : ["differ"] + batched)
        f.add("columns", try readColumns(store, counts.types))
        f.add("deleted", once.deletedObjects.map { "\($0.uuid) \(CanonicalText.of($0))" })
        var links: [String] = []
        for s in once.samples where s.type == TypeCatalogue.workoutType {
            links.append("\(s.uuid) \(try store.associatedUUIDs(of: s.uuid).map(\.uuidString).sorted())")
        }
        f.add("links", links)
        f.add("statistics", try statistics(store, types))
        var kept = try store.activitySummaries().map { "activity \(CanonicalText.of($0))" }
        kept.append("characteristics \(CanonicalText.of(try store.characteristics()))")
        kept += try store.subscriptions().map { "subscription \(CanonicalText.of($0))" }
        for t in types { kept.append("priority \(t.identifier) \(try store.sourcePriority(for: t))") }
        kept += try store.sources(descriptors).map { "source \(CanonicalText.of($0))" }
        kept += Set(once.samples.compactMap(\.device)).map { "device \(CanonicalText.of($0))" }
        f.add("kept", kept)
        return f
    }

    /// The samples read 50 at a time from each new anchor; a read whose
    /// anchor stops moving ends after `bound` batches (the store's objects),
    /// so that a damaged position cannot loop forever.
    private static func readInBatches(_ store: Store, _ descriptors: [QueryDescriptor], bound: Int) throws -> [String] {
        var out: [String] = []
        var anchor: QueryAnchor? = nil
        for _ in 0..<bound {
            let r = try store.anchoredQuery(descriptors, anchor: anchor, limit: 50)
            if r.samples.isEmpty && r.deletedObjects.isEmpty { return out }
            out += r.samples.map { "\($0.uuid) \(CanonicalText.of($0))" }
            anchor = r.newAnchor
        }
        return out + ["the batches did not end after \(bound) reads"]
    }

    /// Each type's samples through a columns query (the leaf pages read in
    /// place), a line per row.
    private static func readColumns(_ store: Store, _ types: [StoreCounts.TypeCount]) throws -> [String] {
        var out: [String] = []
        for t in types {
            let n = max(1, t.samples)
            let columns = Columns(rows: n)
            defer { columns.free() }
            let r = try store.anchoredQuery([QueryDescriptor(type: t.type)], anchor: nil, into: columns.pointers, capacity: n)
            let p = columns.pointers
            for i in 0..<r.count {
                let source = Int(p.sourceID![i])
                let id = source < r.sourceOrder.count ? r.sourceOrder[source] : UInt32.max
                let name = r.result.samples.source(id: id).map { CanonicalText.of($0) } ?? "no source \(id)"
                let uuid = (0..<16).map { String(p.uuid!.load(fromByteOffset: 16 * i + $0, as: UInt8.self)) }
                out.append("\(t.type.identifier) \(uuid) \(p.startUnixMicroseconds![i]) \(p.endUnixMicroseconds![i]) "
                           + "\(p.value![i].bitPattern) \(p.flags![i]) \(p.creationUnixMicroseconds![i]) \(p.utcOffset![i]) \(name)")
            }
        }
        return out
    }

    /// Every column of a columns query, `rows` long, allocated together.
    private struct Columns {
        let pointers: SampleColumnPointers

        init(rows n: Int) {
            var p = SampleColumnPointers()
            p.uuid = UnsafeMutableRawPointer.allocate(byteCount: 16 * n, alignment: 8)
            p.startUnixMicroseconds = .allocate(capacity: n)
            p.endUnixMicroseconds = .allocate(capacity: n)
            p.creationUnixMicroseconds = .allocate(capacity: n)
            p.value = .allocate(capacity: n)
            p.sourceID = .allocate(capacity: n)
            p.flags = .allocate(capacity: n)
            p.utcOffset = .allocate(capacity: n)
            pointers = p
        }

        func free() {
            pointers.uuid?.deallocate()
            pointers.startUnixMicroseconds?.deallocate()
            pointers.endUnixMicroseconds?.deallocate()
            pointers.creationUnixMicroseconds?.deallocate()
            pointers.value?.deallocate()
            pointers.sourceID?.deallocate()
            pointers.flags?.deallocate()
            pointers.utcOffset?.deallocate()
        }
    }

    /// Daily and hourly figures of each quantity type over its samples'
    /// span, with the options its aggregation style allows.
    private static func statistics(_ store: Store, _ types: [SampleType]) throws -> [String] {
        var out: [String] = []
        for t in types {
            guard case .quantity(_, let style) = t.kind, let span = try store.sampleSpan(of: t) else { continue }
            let options: StatisticsOptions = style == .cumulative ? [.cumulativeSum, .separateBySource]
                : [.discreteAverage, .discreteMin, .discreteMax, .mostRecent, .separateBySource]
            let day = 86_400.0
            let from = Date(timeIntervalSinceReferenceDate: (span.start.timeIntervalSinceReferenceDate / day).rounded(.down) * day)
            let to = Date(timeIntervalSinceReferenceDate: (span.end.timeIntervalSinceReferenceDate / day).rounded(.up) * day + day)
            for interval in [StatisticsInterval.day, .hour] {
                let figures = try store.statisticsCollection(type: t, options: options, anchor: from, interval: interval,
                                                             from: from, to: to)
                out += figures.map { "\(t.identifier) \(interval.unit) \(CanonicalText.of($0))" }
            }
        }
        return out
    }
}

/// A text of a value that is the same in every process: each stored
/// property by reflection, with dictionaries and sets in sorted order
/// (their own order follows a hash seeded per process) and floating-point
/// numbers by their bits.
enum CanonicalText {
    static func of(_ value: Any) -> String {
        var out = ""
        write(value, into: &out)
        return out
    }

    private static func write(_ value: Any, into out: inout String) {
        switch value {
        case let d as Double: out += "0x" + String(d.bitPattern, radix: 16); return
        case let s as String: out += s.debugDescription; return
        case let u as UUID: out += u.uuidString; return
        case let d as Date: write(d.timeIntervalSinceReferenceDate, into: &out); return
        case let b as Bool: out += b ? "true" : "false"; return
        // A type is its identifier, and the catalogue says the rest.
        case let t as SampleType: out += t.identifier; return
        default: break
        }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .dictionary?, .set?:
            out += "[" + mirror.children.map { of($0.value) }.sorted().joined(separator: ", ") + "]"
        case .optional?:
            if let some = mirror.children.first { write(some.value, into: &out) } else { out += "nil" }
        case .enum?:
            out += "\(value)".prefix { $0 != "(" }
            for c in mirror.children { out += "("; write(c.value, into: &out); out += ")" }
        default:
            if mirror.children.isEmpty && mirror.superclassMirror == nil {
                out += "\(value)"
                return
            }
            out += "\(mirror.subjectType)("
            var first = true
            var m: Mirror? = mirror
            while let current = m {
                for c in current.children {
                    if !first { out += ", " }
                    first = false
                    out += (c.label ?? "_") + ": "
                    write(c.value, into: &out)
                }
                m = current.superclassMirror
            }
            out += ")"
        }
    }
}
