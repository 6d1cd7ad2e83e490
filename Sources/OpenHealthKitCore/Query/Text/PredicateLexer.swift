/// Tokens of predicate text, each with the offset (in UTF-8 bytes) where
/// it starts, for error messages.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        case word(String)          // key paths, keywords, bare units
        case string(String)        // "…" or '…'
        case number(Double)
        case date(Substring)       // an ISO-8601 literal, checked by the parser
        case parameter(Int)        // $1 …
        case symbol(String)        // ( ) { } [ ] , < <= == = != <> >= > && || !
        case end
    }
    let kind: Kind
    let offset: Int
}

/// What predicate text may hold (docs/predicates.md, "Limits"): past
/// these, text is refused with `.invalidPredicate` before any work that
/// grows with it, so hostile text costs a bounded time and stack.
public enum PredicateLimits {
    /// Bytes of text (UTF-8): room for an IN list of some 25,000 UUIDs.
    public static let textBytes = 1 << 20
    /// Parentheses, NOT, AND(…)/OR(…) and {…} lists nested in each other.
    public static let nesting = 256
    /// Levels of a predicate: NOT, AND and OR in each other, a term the
    /// last. Half of `nesting`, since a level prints as at most two
    /// (`NOT (…)`): every predicate's text parses back.
    public static let depth = 128
    /// The largest parameter number, `$n`.
    public static let parameter = 65_535
}

enum PredicateLexer {
    static func tokens(_ text: String) throws -> [PredicateToken] {
        guard text.utf8.count <= PredicateLimits.textBytes else {
            throw OHKError(.invalidPredicate, "predicate text of \(text.utf8.count) bytes is longer than the limit of \(PredicateLimits.textBytes)")
        }
        let b = Array(text.utf8)
        var out: [PredicateToken] = []
        var i = 0
        func fail(_ what: String) -> OHKError { OHKError(.invalidPredicate, "at offset \(i): \(what)") }
        func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
        func isWordStart(_ c: UInt8) -> Bool { (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95 || c == 37 || c >= 0x80 }
        func isWord(_ c: UInt8) -> Bool { isWordStart(c) || isDigit(c) || c == 46 }
        // Right after a number a word is its unit, which may be compound:
        // `100 count/min`, `40 mL/min·kg`, `9.8 m/s^2` need no quotes. A
        // unit with `<` or parentheses still does (`"mmol<180.15588>/L"`).
        func isUnit(_ c: UInt8, after previous: UInt8) -> Bool {
            isWord(c) || c == 47 || c == 94 || c == 42 || (c == 45 && previous == 94)
        }
        while i < b.count {
            let c = b[i]
            let start = i
            if c == 32 || c == 9 || c == 10 || c == 13 { i += 1; continue }
            if c == 34 || c == 39 {  // a quoted string, backslash escapes
                var bytes: [UInt8] = []
                i += 1
                while true {
                    guard i < b.count else { throw OHKError(.invalidPredicate, "at offset \(start): unterminated string") }
                    if b[i] == c { i += 1; break }
                    if b[i] == 92, i + 1 < b.count { bytes.append(b[i + 1]); i += 2; continue }
                    bytes.append(b[i])
                    i += 1
                }
                out.append(.init(kind: .string(String(decoding: bytes, as: UTF8.self)), offset: start))
            } else if c == 36 {  // $n
                i += 1
                var n = 0
                while i < b.count, isDigit(b[i]) {
                    n = n * 10 + Int(b[i] - 48)
                    i += 1
                    guard n <= PredicateLimits.parameter else {
                        throw OHKError(.invalidPredicate, "at offset \(start): parameter numbers go up to $\(PredicateLimits.parameter)")
                    }
                }
                guard i > start + 1, n >= 1 else { throw fail("expected a parameter number after $") }
                out.append(.init(kind: .parameter(n), offset: start))
            } else if isDigit(c) || ((c == 45 || c == 43) && i + 1 < b.count && isDigit(b[i + 1])) {
                // A date (dddd-…) or a number.
                if i + 4 < b.count, (0..<4).allSatisfy({ isDigit(b[i + $0]) }), b[i + 4] == 45 {
                    while i < b.count, isDigit(b[i]) || [45, 43, 58, 46, 84, 90].contains(b[i]) { i += 1 }
                    out.append(.init(kind: .date(Substring(String(decoding: b[start..<i], as: UTF8.self))), offset: start))
                    continue
                }
                i += 1
                while i < b.count, isDigit(b[i]) || b[i] == 46 || b[i] == 101 || b[i] == 69
                    || ((b[i] == 45 || b[i] == 43) && (b[i - 1] == 101 || b[i - 1] == 69)) { i += 1 }
                let s = String(decoding: b[start..<i], as: UTF8.self)
                guard let v = Double(s), v.isFinite else { throw OHKError(.invalidPredicate, "at offset \(start): '\(s)' is not a number") }
                out.append(.init(kind: .number(v), offset: start))
            } else if isWordStart(c), case .number? = out.last?.kind {
                i += 1
                while i < b.count, isUnit(b[i], after: b[i - 1]) { i += 1 }
                out.append(.init(kind: .word(String(decoding: b[start..<i], as: UTF8.self)), offset: start))
            } else if isWordStart(c) {
                while i < b.count, isWord(b[i]) { i += 1 }
                out.append(.init(kind: .word(String(decoding: b[start..<i], as: UTF8.self)), offset: start))
            } else {
                let two = i + 1 < b.count ? String(decoding: b[i...i + 1], as: UTF8.self) : ""
                if ["<=", ">=", "==", "!=", "<>", "&&", "||"].contains(two) {
                    out.append(.init(kind: .symbol(two), offset: start))
                    i += 2
                } else if "(){}[],<>=!".utf8.contains(c) {
                    out.append(.init(kind: .symbol(String(UnicodeScalar(c))), offset: start))
                    i += 1
                } else {
                    throw fail("unexpected character '\(String(decoding: [c], as: UTF8.self))'")
                }
            }
        }
        out.append(.init(kind: .end, offset: b.count))
        return out
    }
}
