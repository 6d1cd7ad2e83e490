import OpenHealthKitCore
import OpenHealthKitJSON

/// An HTTP status, as the answers of `ohk serve` use them.
public struct HTTPStatus: Equatable, Sendable {
    public let code: Int
    public init(_ code: Int) { self.code = code }

    public static let badRequest = HTTPStatus(400)
    public static let unauthorized = HTTPStatus(401)
    public static let forbidden = HTTPStatus(403)
    public static let notFound = HTTPStatus(404)
    public static let requestTimeout = HTTPStatus(408)
    public static let conflict = HTTPStatus(409)
    public static let gone = HTTPStatus(410)
    public static let contentTooLarge = HTTPStatus(413)
    public static let internalServerError = HTTPStatus(500)
    public static let serviceUnavailable = HTTPStatus(503)
}

/// A refused request, answered as JSON `{"error": MESSAGE, "field": FIELD}`
/// with its HTTP status. `field` names the query parameter or the body's
/// field that was wrong (`samples[3].unit`), when there is one.
public struct APIError: Error, CustomStringConvertible {
    public let httpStatus: HTTPStatus
    public let message: String
    public let field: String?
    /// What the server's log says beside the answer (a server failure's
    /// detail, which may name its files), never sent to the client.
    public let logged: String?

    public init(_ status: HTTPStatus, _ message: String, field: String? = nil, logged: String? = nil) {
        httpStatus = status
        self.message = message
        self.field = field
        self.logged = logged
    }

    /// An error of a store call: a client error where it is the request's
    /// fault (an `APIError` thrown inside passes through unchanged).
    public init(_ error: any Error, field: String? = nil) {
        if let e = error as? APIError {
            self = e
            return
        }
        let e = OHKError(error)
        switch e.code {
        case .storage, .storeCorrupt, .closed, .storeFormatTooNew, .storeFormatTooOld:
            // The store's own failure: its message names server paths.
            self.init(.internalServerError, "the server failed to use the store; its log says why", logged: e.message)
        case .readOnly: self.init(.forbidden, e.message, field: field)
        case .anchorExpired: self.init(.gone, e.message, field: field)  // read again from no anchor
        // A sync's checkpoint that does not fit, or moved by another sync (rule 69).
        case .syncCheckpoint: self.init(.conflict, e.message, field: "checkpoint")
        case .syncBusy: self.init(.conflict, e.message, field: "expected")
        default: self.init(.badRequest, e.message, field: field)
        }
    }

    public var description: String { "\(httpStatus.code) \(message)" }

    /// The answer's body.
    public var body: String {
        var o = JSONObject()
        o.add("error", message)
        o.add("field", field)
        return o.closed
    }
}
