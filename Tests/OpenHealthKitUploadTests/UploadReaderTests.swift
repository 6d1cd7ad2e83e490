import FoundationEssentials
import Testing
import OpenHealthKitCore
@testable import OpenHealthKitUpload

/// The upload body's own JSON reader (rule 66): JSON's grammar, the
/// escapes of its text, and a 400 naming the field of each problem.
@Suite struct UploadReaderTests {
    let head = #""uuid":"A0000000-0000-4000-8000-000000000000","type":"StepCount","start":"2024-03-01T00:00:00Z","end":"2024-03-01T00:00:00Z""#

    func body(_ text: String) throws(APIError) -> UploadBody { try UploadDecoding.body(Array(text.utf8)) }

    @Test func rule66_textNumbersAndNullsReadAsJSONSaysAndUnknownFieldsAreSkipped() throws {
        let b = try body(#" { "ignored": {"a": [1, {"b": null}], "c": "\u00e9"}, "samples" : [ {"# + head
                         + #", "value": -1.5e3, "unit": "count", "sourceName": "Al\"ice\\ \u00e9\ud83d\ude00\n\/", "#
                         + #""device": {"name": "W", "model": null}, "metadata": {"n": 0, "t": "x", "b": false, "e": -0.0}, "#
                         + #""creationDate": null, "utcOffset": 3600, "future": [true]} ], "deleted": ["B0000000-0000-4000-8000-000000000000", "#
                         + #"{"uuid": "C0000000-0000-4000-8000-000000000000", "type": "x"}], "deleted2": null } "#)
        let s = try #require(b.samples.first)
        #expect(s.value == -1500 && s.unit == "count" && s.sourceName == "Al\"ice\\ é😀\n/" && s.creationDate == nil)
        #expect(s.device == ["name": "W"] && s.utcOffset == 3600)
        #expect(b.deleted.map(\.uuid) == ["B0000000-0000-4000-8000-000000000000", "C0000000-0000-4000-8000-000000000000"])
        guard case .number(let n)? = s.metadata?["n"], case .bool(false)? = s.metadata?["b"] else {
            Issue.record("metadata read wrong: \(String(describing: s.metadata))")
            return
        }
        #expect(n == 0)
        #expect(try body(#"{"samples": null}"#).samples.isEmpty && (try body("{}")).deleted.isEmpty)
        #expect(try body(#"{"samples": [{"# + head + #", "value": 123456789012345678}]}"#).samples[0].value == 123456789012345678)
    }

    @Test func rule66_whatIsNotJSONIsA400NamingNoFieldAndAWrongValueNamesItsField() {
        let notJSON = ["", "{", "[1]x", #"{"samples": [}"#, #"{"a": 01}"#, #"{"a": 1.}"#, #"{"a": .5}"#, #"{"a": +1}"#,
                       #"{"a": "\x"}"#, #"{"a": "\ud800"}"#, "{\"a\": \"\u{1}\"}", #"{"a": tru}"#, #"{"a" 1}"#,
                       #"{"a": 1,}"#, #"{"a": NaN}"#, #"{"a": "x"} {}"#]
        for text in notJSON {
            do { _ = try body(text); Issue.record("accepted \(text)") } catch {
                #expect(error.httpStatus.code == 400 && error.field == nil, "\(text): \(error.field ?? "") \(error.message)")
            }
        }
        #expect(throws: APIError.self) { try UploadDecoding.body([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]) }  // not UTF-8
        let wrong: [(String, String)] = [
            ("[]", ""), (#"{"samples": {}}"#, "samples"), (#"{"samples": [1]}"#, "samples[0]"),
            (#"{"samples": [{"# + head + #", "value": "1"}]}"#, "samples[0].value"),
            (#"{"samples": [{"# + head + #", "value": 1e999}]}"#, "samples[0].value"),
            (#"{"samples": [{"# + head + #", "utcOffset": 1.5}]}"#, "samples[0].utcOffset"),
            (#"{"samples": [{"# + head + #", "metadata": {"k": [1]}}]}"#, "samples[0].metadata.k"),
            (#"{"samples": [{"# + head + #", "device": {"name": 1}}]}"#, "samples[0].device.name"),
            (#"{"samples": [{"uuid": "x", "type": "StepCount", "start": "s"}]}"#, "samples[0].end"),
            (#"{"samples": [{"# + head + #", "workout": {"duration": "long"}}]}"#, "samples[0].workout.duration"),
            (#"{"samples": [{"# + head + #", "members": ["a", 2]}]}"#, "samples[0].members[1]"),
            (#"{"deleted": ["a", {"id": "b"}]}"#, "deleted[1].uuid"), (#"{"deleted": [3]}"#, "deleted[0]"),
        ]
        for (text, field) in wrong {
            do { _ = try body(text); Issue.record("accepted \(text)") } catch {
                #expect(error.httpStatus.code == 400 && (error.field ?? "") == field, "\(text): \(error.field ?? "none"), \(error.message)")
            }
        }
    }
}

/// The upload's UUID parser reads what `UUID(uuidString:)` reads.
@Suite struct UploadUUIDTests {
    @Test func uuidsParseAsFoundationParsesThem() {
        for _ in 0..<1000 {
            let u = RandomUUID.make()
            #expect(UploadDecoding.uuid(u.uuidString) == u && UploadDecoding.uuid(u.uuidString.lowercased()) == u)
        }
        for bad in ["", "nope", "A0000000-0000-4000-8000-00000000000", "A0000000-0000-4000-8000-0000000000000",
                    "A0000000+0000-4000-8000-000000000000", "G0000000-0000-4000-8000-000000000000",
                    "A00000000000-4000-8000-0000-00000000"] {
            #expect(UploadDecoding.uuid(bad) == nil && UUID(uuidString: bad) == nil, "\(bad)")
        }
    }
}
