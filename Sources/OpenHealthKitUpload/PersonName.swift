/// A person's name as it appears in URLs and as a folder of the data
/// directory: 1 to 64 of the letters A–Z and a–z, digits, `.`, `_` and
/// `-`, not starting with `.` (so never `..`, a hidden file, or the
/// server's own `.ohk-tokens`), and no `/` or NUL.
public enum PersonName {
    public static func validate(_ text: some StringProtocol) throws(APIError) -> String {
        let bytes = Array(text.utf8)
        guard (1...64).contains(bytes.count), bytes.first != UInt8(ascii: "."),
              bytes.allSatisfy({ isAllowed($0) }) else {
            throw APIError(.badRequest, "person must be 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'",
                           field: "person")
        }
        return String(text)
    }

    private static func isAllowed(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}
