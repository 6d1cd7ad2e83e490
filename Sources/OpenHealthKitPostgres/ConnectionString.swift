import FoundationEssentials

/// What the sink says about a libpq connection string: never its password.
public enum ConnectionString {
    /// `url` with any password replaced by `***`: in a URI
    /// (`postgresql://user:secret@host/db`, `?password=secret`) and in the
    /// keyword form (`password=secret`, `password='a b'`).
    public static func redacted(_ url: String) -> String {
        if url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") {
            var text = url
            // user:password@ in the authority, before the first / after the scheme.
            let schemeEnd = text.firstRange(of: "://")!.upperBound
            let authorityEnd = text[schemeEnd...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? text.endIndex
            if let at = text[schemeEnd..<authorityEnd].lastIndex(of: "@"),
               let colon = text[schemeEnd..<at].firstIndex(of: ":") {
                text.replaceSubrange(text.index(after: colon)..<at, with: "***")
            }
            // password=… among the query parameters.
            if let q = text.firstIndex(of: "?") {
                let params = text[text.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false).map { p in
                    p.lowercased().hasPrefix("password=") ? "password=***" : String(p)
                }
                text = String(text[...q]) + params.joined(separator: "&")
            }
            return text
        }
        // Neither form: libpq will refuse it; show none of it.
        guard url.contains("=") else { return "(a connection string that is neither a postgresql:// URL nor keyword=value pairs)" }
        // keyword=value pairs; a value may be quoted with escapes.
        var out = ""
        var i = url.startIndex
        while i < url.endIndex {
            guard let eq = url[i...].firstIndex(of: "=") else { out += url[i...]; break }
            let key = url[i..<eq]
            out += url[i...eq]
            var j = url.index(after: eq)
            while j < url.endIndex, url[j] == " " { out.append(" "); j = url.index(after: j) }
            var end = j
            if end < url.endIndex, url[end] == "'" {
                end = url.index(after: end)
                while end < url.endIndex, url[end] != "'" {
                    if url[end] == "\\" { end = url.index(after: end) }
                    if end < url.endIndex { end = url.index(after: end) }
                }
                if end < url.endIndex { end = url.index(after: end) }
            } else {
                while end < url.endIndex, url[end] != " " { end = url.index(after: end) }
            }
            out += key.trimmingSpaces.lowercased() == "password" ? "***" : String(url[j..<end])
            i = end
        }
        return out
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return s
    }
}
