/// Why an import could not start, or stopped early.
public enum ImportError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file is missing, unreadable or not a regular file.
    case cannotOpen(String)
    /// The input is not an Apple Health export (no XML whose root is
    /// `HealthData` in the zip or folder, another root element).
    case notAnExport(String)
    /// The zip or the XML is malformed (or the zip cut) past some point.
    case damaged(String)
    /// The XML ends before its root element does: the file was cut short.
    case truncated(String)
    /// expat, libarchive or libcrypto is not installed (they are opened
    /// when an import starts, not linked).
    case missingLibrary(String)
    /// The caller asked the import to stop (`ImportOptions.shouldStop`).
    case cancelled

    public var description: String {
        switch self {
        case .cancelled: "the import was stopped by its caller"
        case .missingLibrary(let m): m
        case .cannotOpen(let m): "cannot open \(m)"
        case .notAnExport(let m): "not an Apple Health export: \(m)"
        case .damaged(let m): m
        case .truncated(let m): "\(m) (the file ends early)"
        }
    }

    /// What to do about a failure after which what came before was imported.
    public var advice: String {
        switch self {
        case .truncated: "what came before was imported; run the import again on a complete export to add the rest"
        case .cancelled: "what came before was imported; run the import again to add the rest"
        default: "what came before was imported; the export is damaged there: export again from the Health app and import that (what is stored already is skipped)"
        }
    }
}
