/// The one error type of the core. `code` is stable (the C API maps it to a
/// status); `message` names the problem for a person.
public struct OHKError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: Int32, Sendable {
        case invalidArgument = 1
        case unknownType = 2
        case invalidUnit = 3
        case incompatibleUnit = 4
        case invalidValue = 5
        case invalidDateRange = 6
        case duplicateUUID = 7
        case notFound = 8
        case anchorWrongStore = 9
        case anchorCorrupt = 10
        case anchorFromFuture = 11
        case anchorExpired = 12
        case storeFormatTooNew = 13
        case storage = 14
        case closed = 15
        case invalidPredicate = 16
        case invalidMetadata = 17
        case storeFormatTooOld = 18
        /// The store's file is damaged: a structure no write makes
        /// (`ohk check` tells what; 19 is the C API's own code).
        case storeCorrupt = 20
        /// A write through a store opened read-only (21 to 29 are the C
        /// API's own codes).
        case readOnly = 30
        /// A replication's checkpoint does not fit its source: another
        /// store at the same place, pruned past, or behind it, or other
        /// types (rule 69); `--from-scratch` starts again.
        case syncCheckpoint = 31
        /// Another sync of the same name into the same store moved the
        /// checkpoint while this one ran; nothing of the batch was written.
        case syncBusy = 32
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

extension OHKError {
    /// Any error as an `OHKError` (the core only throws `OHKError`; anything
    /// else is reported as a storage failure with its description).
    package init(_ error: any Error) {
        self = error as? OHKError ?? OHKError(.storage, "\(error)")
    }
}
