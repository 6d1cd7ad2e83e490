import CExpat

/// The start of an XML file, before its root element: what the root
/// element is, and whether the internal DTD subset parses. Works on the
/// bytes read ahead (`ExportInput`), never on the whole file.
enum ExportProlog {
    /// Where things are in the prolog: the DOCTYPE's name, the bytes of its
    /// internal subset (between `[` and `]`), the end of the DOCTYPE, and
    /// the root element's name when the bytes reach it.
    struct Layout {
        var doctypeName: String?
        var subset: Range<Int>?
        var doctypeEnd: Int?
        var root: String?
        /// The bytes ended inside the DOCTYPE.
        var truncated = false
    }

    /// The root element's name (or, when the bytes end before it, the
    /// DOCTYPE's, which a valid document's root has); nil when neither
    /// was reached.
    static func rootElement(_ bytes: ArraySlice<UInt8>) -> String? {
        let l = layout(bytes)
        return l.root ?? l.doctypeName
    }

    /// The DOCTYPE's internal subset does not fit in `bytes` yet.
    static func needsMore(_ bytes: ArraySlice<UInt8>) -> Bool { layout(bytes).truncated }

    /// The internal subset and why expat refuses it, when the prolog up to
    /// the end of the DOCTYPE does not parse because of it; nil when it
    /// parses, when there is none, or when the error lies elsewhere (the
    /// parse proper reports that, with its line).
    static func brokenInternalSubset(_ bytes: ArraySlice<UInt8>) -> (subset: Range<Int>, reason: String)? {
        let l = layout(bytes)
        guard let subset = l.subset, let end = l.doctypeEnd, let root = l.doctypeName else { return nil }
        guard let parser = XML_ParserCreate("UTF-8") else { return nil }
        defer { XML_ParserFree(parser) }
        // An entity declaration stops this check as it stops the import
        // (`ExportParser`): the subset is then not "broken" but refused,
        // by the parse proper, before anything is expanded.
        struct Check { let parser: XML_Parser; var declaresEntity = false }
        var check = Check(parser: parser)
        let ok = withUnsafeMutablePointer(to: &check) { c in
            XML_SetUserData(parser, c)
            XML_SetEntityDeclHandler(parser) { user, _, _, _, _, _, _, _, _ in
                let c = user!.assumingMemoryBound(to: Check.self)
                c.pointee.declaresEntity = true
                XML_StopParser(c.pointee.parser, 0)
            }
            return parse(parser, prolog: Array(bytes[bytes.startIndex..<(bytes.startIndex + end)]), root: root)
        }
        guard !ok, !check.declaresEntity else { return nil }
        let at = Int(XML_GetCurrentByteIndex(parser))
        guard subset.contains(at) || at == subset.upperBound else { return nil }
        let message = String(cString: XML_ErrorString(XML_GetErrorCode(parser)))
        return (subset, "line \(XML_GetCurrentLineNumber(parser)), column \(XML_GetCurrentColumnNumber(parser) + 1): \(message)")
    }

    /// Feeds the prolog, then an empty root element, to `parser`: whether
    /// both parse.
    private static func parse(_ parser: XML_Parser, prolog: [UInt8], root: String) -> Bool {
        let fed = prolog.withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { XML_Parse(parser, $0.baseAddress, Int32($0.count), 0) }
        }
        guard fed != XML_STATUS_ERROR else { return false }
        let close = Array("<\(root)/>".utf8CString.dropLast())
        return close.withUnsafeBufferPointer { XML_Parse(parser, $0.baseAddress, Int32($0.count), 1) } != XML_STATUS_ERROR
    }

    /// `bytes` with the subset's contents removed but for its line breaks.
    static func emptyingSubset(_ bytes: [UInt8], _ subset: Range<Int>) -> [UInt8] {
        Array(bytes[..<subset.lowerBound]) + bytes[subset].filter { $0 == 10 } + bytes[subset.upperBound...]
    }

    /// Scans the prolog: the XML declaration and processing instructions,
    /// comments, the DOCTYPE (with an internal subset, whose quoted strings
    /// and comments may hold `]` and `>`), then the root element's name.
    static func layout(_ bytes: ArraySlice<UInt8>) -> Layout {
        var l = Layout()
        let b = Array(bytes)
        var i = b.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func at(_ s: String) -> Bool { b[i...].starts(with: Array(s.utf8)) }
        func skip(past s: String) -> Bool {
            let t = Array(s.utf8)
            while i + t.count <= b.count {
                if b[i..<(i + t.count)].elementsEqual(t) { i += t.count; return true }
                i += 1
            }
            i = b.count
            return false
        }
        func name() -> String {
            let start = i
            while i < b.count, !" \t\r\n>/[".utf8.contains(b[i]) { i += 1 }
            return String(decoding: b[start..<i], as: UTF8.self)
        }
        while i < b.count {
            if " \t\r\n".utf8.contains(b[i]) { i += 1; continue }
            if at("<?") { guard skip(past: "?>") else { return l }; continue }
            if at("<!--") { guard skip(past: "-->") else { return l }; continue }
            if at("<!DOCTYPE") {
                i += 9
                while i < b.count, " \t\r\n".utf8.contains(b[i]) { i += 1 }
                l.doctypeName = name()
                // The external ID, if any, then the subset or the end.
                var quote: UInt8?
                while i < b.count {
                    let c = b[i]
                    if let q = quote { if c == q { quote = nil } } else if c == 0x22 || c == 0x27 { quote = c } else if c == 0x5B || c == 0x3E { break }
                    i += 1
                }
                guard i < b.count else { l.truncated = true; return l }
                if b[i] == 0x5B {  // [
                    let start = i + 1
                    i = start
                    var quote: UInt8?
                    while i < b.count {
                        let c = b[i]
                        if let q = quote {
                            if c == q { quote = nil }
                        } else if at("<!--") {
                            guard skip(past: "-->") else { l.truncated = true; return l }
                            continue
                        } else if c == 0x22 || c == 0x27 {
                            quote = c
                        } else if c == 0x5D {  // ]
                            break
                        }
                        i += 1
                    }
                    guard i < b.count else { l.truncated = true; return l }
                    l.subset = start..<i
                    i += 1
                    while i < b.count, b[i] != 0x3E { i += 1 }
                    guard i < b.count else { l.truncated = true; return l }
                }
                i += 1  // >
                l.doctypeEnd = i
                continue
            }
            if b[i] == 0x3C {  // <
                i += 1
                l.root = name()
            }
            return l
        }
        return l
    }
}
