/// A JSON reader over bytes, one value at a time, for the upload path,
/// FHIR resources and the answers of `ohk serve`: `JSONDecoder` spent
/// most of an upload's time in generic lookups and key hashing, and it
/// brings most of Foundation into the C library (5 MB). It checks the grammar of RFC 8259 as it goes (strings
/// valid UTF-8, no raw control characters, numbers as JSON writes them)
/// and says where it stopped; the caller names the field.
package struct JSONReader {
    package enum Kind { case object, array, string, number, bool, null }

    /// What was wrong, and where: `path` gathers the field's parts as
    /// the failure leaves each (`within`), outermost first.
    package struct Failure: Error {
        /// True when the text is not JSON at all (else a value of the wrong kind).
        package var syntax: Bool
        package var message: String
        package var path: [String] = []

        /// The field, as the answers name it: `samples[3].value`.
        package var field: String? { path.isEmpty ? nil : path.joined() }

        package init(syntax: Bool, message: String, path: [String] = []) {
            (self.syntax, self.message, self.path) = (syntax, message, path)
        }
    }

    /// Runs `read`; a failure in it gets `part` (`samples`, `[3]`,
    /// `.value`) in front of its path.
    /// (The part is made only on a failure: most reads have none.)
    package static func within<T>(_ part: @autoclosure () -> String, _ read: () throws(Failure) -> T) throws(Failure) -> T {
        do { return try read() } catch {
            var e = error
            e.path.insert(part(), at: 0)
            throw e
        }
    }

    package let bytes: UnsafeBufferPointer<UInt8>
    package private(set) var index = 0

    package init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private func syntax(_ what: String) -> Failure {
        Failure(syntax: true, message: "the body is not valid JSON (\(what) at byte \(index))")
    }

    package mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// The kind of the next value; the reader stays before it.
    package mutating func kind() throws(Failure) -> Kind {
        skipSpace()
        guard index < bytes.count else { throw syntax("the text ends") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw syntax("an unexpected character")
        }
    }

    /// A value of the wrong kind, named as the answer names it.
    package static func expected(_ what: String, found kind: Kind) -> Failure {
        let found = switch kind {
        case .object: "an object"
        case .array: "a list"
        case .string: "text"
        case .number: "a number"
        case .bool: "true or false"
        case .null: "null"
        }
        return Failure(syntax: false, message: "expected \(what), found \(found)")
    }

    /// The members of an object, `each` reading (or skipping) each value.
    package mutating func object(_ each: (inout JSONReader, String) throws(Failure) -> Void) throws(Failure) {
        let k = try kind()
        guard k == .object else { throw Self.expected("an object", found: k) }
        index += 1
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return }
        while true {
            guard try kind() == .string else { throw syntax("a member without a quoted name") }
            let key = try string()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw syntax("a name without ':'") }
            index += 1
            try each(&self, key)
            skipSpace()
            guard index < bytes.count else { throw syntax("the text ends") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return }
            throw syntax("an object without ',' or '}'")
        }
    }

    /// The items of a list, `each` reading each with its index.
    package mutating func array(_ each: (inout JSONReader, Int) throws(Failure) -> Void) throws(Failure) {
        let k = try kind()
        guard k == .array else { throw Self.expected("a list", found: k) }
        index += 1
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return }
        var n = 0
        while true {
            try each(&self, n)
            n += 1
            skipSpace()
            guard index < bytes.count else { throw syntax("the text ends") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return }
            throw syntax("a list without ',' or ']'")
        }
    }

    /// Consumes `null` when it comes next.
    package mutating func null() throws(Failure) -> Bool {
        guard try kind() == .null else { return false }
        try literal("null")
        return true
    }

    package mutating func bool() throws(Failure) -> Bool {
        let k = try kind()
        guard k == .bool else { throw Self.expected("true or false", found: k) }
        if bytes[index] == UInt8(ascii: "t") { try literal("true"); return true }
        try literal("false")
        return false
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let n = word.utf8CodeUnitCount
        guard index + n <= bytes.count else { throw syntax("an unknown word") }
        for k in 0..<n where bytes[index + k] != word.utf8Start[k] { throw syntax("an unknown word") }
        index += n
    }

    package mutating func string() throws(Failure) -> String {
        let k = try kind()
        guard k == .string else { throw Self.expected("text", found: k) }
        index += 1
        let start = index
        // The common case: no escape, the bytes as they are.
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                guard let s = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self) else {
                    throw syntax("text that is not UTF-8")
                }
                index += 1
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            guard c >= 0x20 else { throw syntax("a control character in text") }
            index += 1
        }
        var out = Array(bytes[start..<index])
        while index < bytes.count {
            let c = bytes[index]
            index += 1
            if c == UInt8(ascii: "\"") {
                guard let s = String(validating: out, as: UTF8.self) else { throw syntax("text that is not UTF-8") }
                return s
            }
            guard c >= 0x20 else { throw syntax("a control character in text") }
            guard c == UInt8(ascii: "\\") else { out.append(c); continue }
            guard index < bytes.count else { break }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {  // a surrogate pair
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw syntax("a lone surrogate")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw syntax("a lone surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let u = Unicode.Scalar(scalar) else { throw syntax("a lone surrogate") }
                out.append(contentsOf: String(Character(u)).utf8)
            default: throw syntax("an unknown escape")
            }
        }
        throw syntax("text without its closing quote")
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw syntax("a short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            index += 1
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = v << 4 | UInt32(c - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = v << 4 | UInt32(c - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = v << 4 | UInt32(c - 55)
            default: throw syntax("a bad \\u escape")
            }
        }
        return v
    }

    /// A number as JSON writes it; one past a double's range is refused.
    package mutating func number() throws(Failure) -> Double {
        let k = try kind()
        guard k == .number else { throw Self.expected("a number", found: k) }
        let start = index
        var integer = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits() -> Int {
            let from = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
            return index - from
        }
        let whole = digits()
        guard whole > 0, bytes[index - whole] != 48 || whole == 1 else { throw syntax("a malformed number") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            integer = false
            guard digits() > 0 else { throw syntax("a malformed number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            integer = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw syntax("a malformed number") }
        }
        // Up to 15 digits an integer is exact as a double: no parse needed.
        if integer, whole <= 15 {
            var v: Int64 = 0
            for i in (index - whole)..<index { v = v * 10 + Int64(bytes[i] - 48) }
            return Double(bytes[start] == UInt8(ascii: "-") ? -v : v)
        }
        guard let v = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)),
              v.isFinite else {
            throw Failure(syntax: false, message: "a number past a double's range")
        }
        return v
    }

    /// Passes over the next value, whatever it is (checking it is JSON).
    package mutating func skip() throws(Failure) {
        switch try kind() {
        case .object: try object { (r: inout JSONReader, _: String) throws(Failure) in try r.skip() }
        case .array: try array { (r: inout JSONReader, _: Int) throws(Failure) in try r.skip() }
        case .string: _ = try string()
        case .number: _ = try number()
        case .bool: _ = try bool()
        case .null: _ = try null()
        }
    }

    /// Checks nothing but white space follows.
    package mutating func end() throws(Failure) {
        skipSpace()
        guard index == bytes.count else { throw syntax("more after the value") }
    }
}
