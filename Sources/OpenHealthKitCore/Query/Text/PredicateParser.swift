import FoundationEssentials

extension SamplePredicate {
    /// Parses predicate text (the grammar is in docs/predicates.md), with
    /// `$1…$n` bound to `arguments` in order. Every argument must be used.
    /// Errors name the offset (in UTF-8 bytes) and what was expected.
    public init(_ text: String, arguments: [PredicateValue] = []) throws {
        var p = PredicateParser(tokens: try PredicateLexer.tokens(text), arguments: arguments, type: nil)
        self = try p.parseAll()
    }

    /// Parses predicate text for queries of `type`, so that what only the
    /// type decides is refused here, at its offset: a unit of another
    /// dimension than the type's (`.incompatibleUnit`), a quantity term on
    /// a category type or a category value on a quantity type
    /// (`.invalidPredicate`). Text parsed without a type meets the same
    /// checks when a query uses it, naming the term instead.
    public init(_ text: String, arguments: [PredicateValue] = [], for type: SampleType) throws {
        var p = PredicateParser(tokens: try PredicateLexer.tokens(text), arguments: arguments, type: type)
        self = try p.parseAll()
    }
}

/// The operator of a comparison in predicate text.
enum PredicateOperator { case compare(Comparison), between, isIn, text(TextMatch) }

/// Recursive descent over the tokens: or → and → not → primary.
struct PredicateParser {
    let tokens: [PredicateToken]
    let arguments: [PredicateValue]
    /// The queried type, when known: its checks run term by term.
    let type: SampleType?
    private var pos = 0
    /// Which of `arguments` the text used. (An array: a `Set<Int>`'s
    /// storage type is made at run time, and the first one a process
    /// makes looks up `Hashable` among all conformances, 140 K
    /// instructions, a tenth of a first predicate query.)
    private var used: [Bool]
    /// How deep the descent is (`nested`).
    private var depth = 0

    init(tokens: [PredicateToken], arguments: [PredicateValue], type: SampleType?) {
        self.tokens = tokens
        self.arguments = arguments
        self.type = type
        used = Array(repeating: false, count: arguments.count)
    }

    mutating func parseAll() throws -> SamplePredicate {
        let p = try parseOr()
        guard case .end = peek.kind else { throw error("expected AND, OR or the end of the predicate") }
        try p.checkDepth()
        if let k = used.firstIndex(of: false) {
            throw OHKError(.invalidPredicate, "parameter $\(k + 1) is given but not used")
        }
        return p
    }

    // MARK: tokens

    private var peek: PredicateToken { tokens[pos] }
    private mutating func advance() -> PredicateToken { defer { pos += 1 }; return tokens[pos] }

    /// A category type's value names ("AsleepCore", or HealthKit's full
    /// name) as their numbers, in a value or a list of them: the text then
    /// reads as the CLI and exports write the values.
    private static func categoryNumbers(_ v: PredicateValue, of type: SampleType, offset: Int) throws -> PredicateValue {
        switch v {
        case .list(let items): return .list(try items.map { try categoryNumbers($0, of: type, offset: offset) })
        case .string(let name):
            guard let n = type.categoryValue(named: name) else {
                guard case .category(let values) = type.kind else { return v }
                let known = values.keys.sorted().joined(separator: ", ")
                throw OHKError(.invalidPredicate, "at offset \(offset): '\(name)' is not a value of \(TypeCatalogue.shortName(type)) (\(known))")
            }
            return .number(Double(n))
        default: return v
        }
    }

    private func error(_ what: String) -> OHKError {
        OHKError(.invalidPredicate, "at offset \(peek.offset): \(what), found \(describe(peek.kind))")
    }

    private func describe(_ k: PredicateToken.Kind) -> String {
        switch k {
        case .word(let w): "'\(w)'"
        case .string(let s): "the string \"\(s)\""
        case .number(let n): "the number \(n)"
        case .date(let d): "the date \(d)"
        case .parameter(let n): "$\(n)"
        case .symbol(let s): "'\(s)'"
        case .end: "the end of the predicate"
        }
    }

    private func isKeyword(_ k: PredicateToken.Kind, _ word: String) -> Bool {
        if case .word(let w) = k { return w.uppercased() == word }
        return false
    }

    private func isSymbol(_ k: PredicateToken.Kind, _ s: String) -> Bool {
        if case .symbol(let x) = k { return x == s }
        return false
    }

    /// Runs one level of nesting: deeper than `PredicateLimits.nesting`
    /// is an error, not a stack overflow.
    private mutating func nested<T>(_ body: (inout PredicateParser) throws -> T) throws -> T {
        guard depth < PredicateLimits.nesting else {
            throw error("nesting deeper than \(PredicateLimits.nesting) levels")
        }
        depth += 1
        defer { depth -= 1 }
        return try body(&self)
    }

    private mutating func expectSymbol(_ s: String) throws {
        guard isSymbol(peek.kind, s) else { throw error("expected '\(s)'") }
        pos += 1
    }

    // MARK: logic

    private mutating func parseOr() throws -> SamplePredicate {
        var items = [try parseAnd()]
        while isKeyword(peek.kind, "OR") || isSymbol(peek.kind, "||") {
            pos += 1
            items.append(try parseAnd())
        }
        return items.count == 1 ? items[0] : .or(items)
    }

    private mutating func parseAnd() throws -> SamplePredicate {
        var items = [try parseNot()]
        while isKeyword(peek.kind, "AND") || isSymbol(peek.kind, "&&") {
            pos += 1
            items.append(try parseNot())
        }
        return items.count == 1 ? items[0] : .and(items)
    }

    private mutating func parseNot() throws -> SamplePredicate {
        if isKeyword(peek.kind, "NOT") || isSymbol(peek.kind, "!") {
            pos += 1
            return .not(try nested { try $0.parseNot() })
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws -> SamplePredicate {
        if isSymbol(peek.kind, "(") {
            pos += 1
            let p = try nested { try $0.parseOr() }
            try expectSymbol(")")
            return p
        }
        guard case .word(let word) = peek.kind else { throw error("expected a key path, NOT or '('") }
        switch word.uppercased() {
        case "TRUEPREDICATE": pos += 1; return .and([])
        case "FALSEPREDICATE": pos += 1; return .or([])
        case "AND", "OR":  // AND(p, …) / OR(p, …): the forms with fewer than two operands
            pos += 1
            try expectSymbol("(")
            var items: [SamplePredicate] = []
            if !isSymbol(peek.kind, ")") {
                items.append(try nested { try $0.parseOr() })
                while isSymbol(peek.kind, ",") { pos += 1; items.append(try nested { try $0.parseOr() }) }
            }
            try expectSymbol(")")
            return word.uppercased() == "AND" ? .and(items) : .or(items)
        case "DATERANGE":
            return try parseDateRange()
        case "ACTIVITY":  // ACTIVITY(p): a workout with an activity that p matches
            pos += 1
            try expectSymbol("(")
            let inner = try nested { try $0.parseOr() }
            try expectSymbol(")")
            return .workoutActivity(inner)
        default:
            return try parseComparison()
        }
    }

    /// DATERANGE(start, end[, strictStartDate][, strictEndDate]); nil for an open bound.
    private mutating func parseDateRange() throws -> SamplePredicate {
        pos += 1
        try expectSymbol("(")
        let start = try dateOrNil()
        try expectSymbol(",")
        let end = try dateOrNil()
        var options: DateRangeOptions = []
        while isSymbol(peek.kind, ",") {
            pos += 1
            if isKeyword(peek.kind, "STRICTSTARTDATE") { options.insert(.strictStartDate) }
            else if isKeyword(peek.kind, "STRICTENDDATE") { options.insert(.strictEndDate) }
            else { throw error("expected strictStartDate or strictEndDate") }
            pos += 1
        }
        try expectSymbol(")")
        return .dateRange(start: start, end: end, options: options)
    }

    private mutating func dateOrNil() throws -> Date? {
        let at = peek
        switch try parseValue(unitAllowed: false) {
        case .null: return nil
        case .date(let d): return d
        default: throw OHKError(.invalidPredicate, "at offset \(at.offset): expected a date or nil, found \(describe(at.kind))")
        }
    }

    // MARK: comparisons

    private mutating func parseComparison() throws -> SamplePredicate {
        let keyToken = advance()
        guard case .word(var key) = keyToken.kind else { throw error("expected a key path") }
        if key == "metadata", isSymbol(peek.kind, "[") {  // metadata["any key"]
            pos += 1
            guard case .string(let k) = peek.kind else { throw error("expected a quoted metadata key") }
            pos += 1
            try expectSymbol("]")
            key = "metadata." + k
        }
        let opToken = peek
        let op: PredicateOperator
        switch opToken.kind {
        case .symbol("<"): op = .compare(.lessThan)
        case .symbol("<="): op = .compare(.lessThanOrEqual)
        case .symbol("=="), .symbol("="): op = .compare(.equal)
        case .symbol("!="), .symbol("<>"): op = .compare(.notEqual)
        case .symbol(">="): op = .compare(.greaterThanOrEqual)
        case .symbol(">"): op = .compare(.greaterThan)
        case _ where isKeyword(opToken.kind, "BETWEEN"): op = .between
        case _ where isKeyword(opToken.kind, "IN"): op = .isIn
        case _ where isKeyword(opToken.kind, "BEGINSWITH"): op = .text(.beginsWith)
        case _ where isKeyword(opToken.kind, "ENDSWITH"): op = .text(.endsWith)
        case _ where isKeyword(opToken.kind, "CONTAINS"): op = .text(.contains)
        default: throw error("expected a comparison (<, <=, ==, !=, >=, >, BETWEEN, IN, BEGINSWITH, ENDSWITH, CONTAINS) after \(key)")
        }
        pos += 1
        let valueToken = peek
        var value = try parseValue(unitAllowed: KeyPathRules.takesUnit(key))
        if key == "value", let type, case .category = type.kind {
            value = try Self.categoryNumbers(value, of: type, offset: valueToken.offset)
        }
        let term = try KeyPathRules.build(key: key, keyOffset: keyToken.offset, op: op, value: value, valueOffset: valueToken.offset)
        if let type {
            do {
                try term.validate(for: type)
            } catch let e as OHKError {
                // A unit is wrong where the value is; a kind of term where the key is.
                let at = key == "quantity" && type.isQuantity ? valueToken.offset : keyToken.offset
                throw OHKError(e.code, "at offset \(at): \(e.message)")
            }
        }
        return term
    }

    // MARK: values

    private mutating func parseValue(unitAllowed: Bool) throws -> PredicateValue {
        let t = advance()
        switch t.kind {
        case .string(let s): return .string(s)
        case .number(let n):
            guard unitAllowed else { return .number(n) }
            switch peek.kind {
            case .word(let u) where !["AND", "OR"].contains(u.uppercased()), .string(let u):
                pos += 1
                do { return .quantity(n, try HealthUnit(u)) } catch {
                    let why = (error as? OHKError).map { " (\($0.message))" } ?? ""
                    throw OHKError(.invalidPredicate, "at offset \(tokens[pos - 1].offset): '\(u)' is not a unit\(why)")
                }
            default:
                return .number(n)
            }
        case .date(let d):
            guard let date = ISODate.parse(d) else {
                if ISODate.parse(Substring(d + "Z")) != nil {
                    throw OHKError(.invalidPredicate, "at offset \(t.offset): '\(d)' has no UTC offset: write \(d)Z for UTC, or \(d)+01:00")
                }
                throw OHKError(.invalidPredicate, "at offset \(t.offset): '\(d)' is not an ISO-8601 date (2024-03-01 or 2024-03-01T08:30:00Z)")
            }
            return .date(date)
        case .parameter(let n):
            guard n <= arguments.count else {
                throw OHKError(.invalidPredicate, "at offset \(t.offset): parameter $\(n) has no value (\(arguments.count) given)")
            }
            used[n - 1] = true
            return arguments[n - 1]
        case .word(let w) where w == "true": return .bool(true)
        case .word(let w) where w == "false": return .bool(false)
        case .word(let w) where w == "nil": return .null
        case .symbol("{"):
            var items: [PredicateValue] = []
            if !isSymbol(peek.kind, "}") {
                items.append(try nested { try $0.parseValue(unitAllowed: unitAllowed) })
                while isSymbol(peek.kind, ",") { pos += 1; items.append(try nested { try $0.parseValue(unitAllowed: unitAllowed) }) }
            }
            try expectSymbol("}")
            return .list(items)
        default:
            pos -= 1
            throw error("expected a value (string, number, date, true, false, nil, {…} or $n)")
        }
    }
}
