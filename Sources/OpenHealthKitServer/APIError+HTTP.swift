#if Server
import Hummingbird
import OpenHealthKitUpload

/// Refusals answer with their status and JSON body.
extension APIError: HTTPResponseError {
    public var status: HTTPResponse.Status { HTTPResponse.Status(code: httpStatus.code) }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if httpStatus == .unauthorized { headers[.wwwAuthenticate] = "Bearer realm=\"ohk\"" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body + "\n")))
    }
}
#endif
