/// The one error type of the core. `code` is stable (the C API maps it to a
/// status); `message` names the problem for a person.
public struct OHKError: Error, Equatable, Sendable, CustomStringConvertible {

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
