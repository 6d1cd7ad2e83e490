import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// Base64 and JSON as the C library reads and writes them without
/// Foundation's `Data` and `JSONDecoder`: the same text as those, and the
/// same refusals.
@Suite struct TextFormTests {
    @Test func base64MatchesRFC4648sVectors() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=",
                       "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
        }
    }

    @Test func base64IsWhatDataWritesAndReads() {
        var rng = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let ours = Base64.encode(bytes)
            #expect(ours == Data(bytes).base64EncodedString())
            #expect(Base64.decode(ours) == bytes)
            #expect(Data(base64Encoded: ours).map(Array.init) == bytes)
        }
    }

    @Test func base64RefusesWhatIsNotPaddedStandardBase64() {
        for bad in ["Zg", "Zg=", "Z===", "Zm9v!A==", "Zm9v YmFy", "Zm9v\nYmFy", "Zm9-", "Zm9_", "é123"] {
            #expect(Base64.decode(bad) == nil, "\(bad)")
        }
    }

    @Test func jsonReadsEveryKindOfValue() {
        let text = #" {"a": [1, -2.5e3, true, false, null, "x\u00e9\n"], "b": {"c": {}}, "d": []} "#
        let v = JSONValue.read(Array(text.utf8))
        #expect(v == .object(["a": .array([.number(1), .number(-2500), .bool(true), .bool(false), .null, .string("xé\n")]),
                              "b": .object(["c": .object([:])]), "d": .array([])]))
        #expect(v?["a"]?.array?.first?.int == 1)
        #expect(v?["b"]?["c"]?.object?.isEmpty == true)
    }

    @Test func jsonRefusesWhatIsNotOneJSONValue() {
        for bad in ["", "{", "{\"a\":1} x", "{\"a\":01}", "{'a':1}", "[1,]", "{\"a\" 1}", "nul", "\"\u{01}\""] {
            #expect(JSONValue.read(Array(bad.utf8)) == nil, "\(bad)")
        }
        #expect(JSONValue.read([0x22, 0xFF, 0x22]) == nil)  // a string that is not UTF-8
    }

    @Test func jsonRefusesNestingPastItsBoundWithoutExhaustingTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(JSONValue.read(Array(deep.utf8)) == nil)
        let allowed = String(repeating: "[", count: JSONValue.maximumDepth) + String(repeating: "]", count: JSONValue.maximumDepth)
        #expect(JSONValue.read(Array(allowed.utf8)) != nil)
    }
}
