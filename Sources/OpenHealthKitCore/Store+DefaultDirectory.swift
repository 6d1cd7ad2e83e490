import Glibc

extension Store {
    /// Where a program keeps its store when it is not told: `$OHK_STORE`,
    /// else `$XDG_DATA_HOME/openhealthkit/store`, else
    /// `~/.local/share/openhealthkit/store`. `ohk` and `HKHealthStore()`
    /// both open this one, so they see the same samples.
    public static var defaultDirectory: String {
        func environment(_ name: String) -> String? {
            getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        if let store = environment("OHK_STORE") { return store }
        if let data = environment("XDG_DATA_HOME") { return data + "/openhealthkit/store" }
        return (environment("HOME") ?? ".") + "/.local/share/openhealthkit/store"
    }
}
