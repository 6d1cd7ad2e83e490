import Hummingbird
import OpenHealthKitCore
import OpenHealthKitJSON

/// An error answered as JSON, `{"error": MESSAGE, "field": FIELD}`, with
/// its HTTP status. `field` names the query parameter or the body's field
/// that was wrong (`samples[3].unit`), when there is one.
public struct APIError: Error, HTTPResponseError, CustomStringConvertible {
    public let status: HTTPResponse.Status
    public let message: String
    public let field: String?

    public init(_ status: HTTPResponse.Status, _ message: String, field: String? = nil) {
        self.status = status
        self.message = message
        self.field = field
    }

    /// An error of a store call: a client error where it is the request's
    /// fault (an `APIError` thrown inside passes through unchanged).
    init(_ error: any Error, field: String? = nil) {
        if let e = error as? APIError {
            self = e
            return
        }
        let e = ohkError(error)
        let status: HTTPResponse.Status = switch e.code {
        case .storage, .storeCorrupt, .closed, .storeFormatTooNew, .storeFormatTooOld: .internalServerError
        case .readOnly: .forbidden
        case .anchorExpired: .gone  // read again from no anchor
        default: .badRequest
        }
        self.init(status, e.message, field: field)
    }

    public var description: String { "\(status.code) \(message)" }

    public var body: String {
        var o = JSONObject()
        o.add("error", message)
        o.add("field", field)
        return o.closed
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer realm=\"ohk\"" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body + "\n")))
    }
}

/// Any error as the core's (its calls throw nothing else).
func ohkError(_ error: any Error) -> OHKError {
    error as? OHKError ?? OHKError(.storage, "\(error)")
}
