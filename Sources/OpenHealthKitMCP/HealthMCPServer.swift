#if MCPServer
import Glibc
import MCP
import OpenHealthKitCore

/// `ohk mcp`: the store's tools for an assistant, over MCP on stdio
/// (docs/mcp.md). Every answer is JSON text, bounded (`HealthAnswers`);
/// a tool that cannot answer says why (`isError`), a call of an unknown
/// tool is a protocol error. Nothing but protocol messages goes to stdout.
public enum HealthMCPServer {
    /// Serves `store` until the client closes its end, from synchronous
    /// code (a command's `run`).
    public static func runBlocking(store: Store, version: String) throws {
        try OpenHealthKitCore.runBlocking { try await run(store: store, version: version) }
    }

    static func run(store: Store, version: String) async throws {
        let answers = HealthAnswers(store: store)
        let server = MCP.Server(name: "ohk", version: version,
                                instructions: "A person's Apple Health data, live. Start with store_summary; figures "
                                    + "come merged across the person's devices by priority, in the units and time zone each "
                                    + "answer names. Answers hold at most \(HealthAnswers.rowCap) rows and say when they are cut.",
                                capabilities: .init(tools: .init(listChanged: false)))
        await server.withMethodHandler(ListTools.self) { _ in ListTools.Result(tools: HealthTools.all) }
        await server.withMethodHandler(CallTool.self) { params in
            guard HealthTools.all.contains(where: { $0.name == params.name }) else {
                throw MCPError.invalidParams("unknown tool '\(params.name)': tools/list names them")
            }
            do {
                let text = try HealthTools.call(params.name, ToolArguments(params.arguments ?? [:]), answers)
                return CallTool.Result(content: [.text(text: text, annotations: nil, _meta: nil)], isError: false)
            } catch let r as HealthAnswers.Refusal {
                return CallTool.Result(content: [.text(text: r.message, annotations: nil, _meta: nil)], isError: true)
            } catch let e as OHKError {
                return CallTool.Result(content: [.text(text: e.message, annotations: nil, _meta: nil)], isError: true)
            }
        }
        // StdioTransport makes stdin and stdout non-blocking, which would
        // leak into the shell that started us: their flags come back at the end.
        let savedIn = fcntl(0, F_GETFL), savedOut = fcntl(1, F_GETFL)
        defer {
            _ = fcntl(0, F_SETFL, savedIn)
            _ = fcntl(1, F_SETFL, savedOut)
        }
        signal(SIGPIPE, SIG_IGN)  // a client that went away: an error, not a killed process
        try await server.start(transport: StdioTransport())
        await server.waitUntilCompleted()
        await server.stop()
    }
}

/// A tool call's arguments, read by name.
struct ToolArguments {
    let values: [String: Value]

    init(_ values: [String: Value]) { self.values = values }

    func string(_ name: String) throws -> String? {
        guard let v = values[name], !v.isNull else { return nil }
        guard let s = v.stringValue else { throw HealthAnswers.Refusal("\(name) must be a string") }
        return s
    }

    func required(_ name: String) throws -> String {
        guard let s = try string(name) else { throw HealthAnswers.Refusal("\(name) is required") }
        return s
    }

    func int(_ name: String, default d: Int) throws -> Int {
        guard let v = values[name], !v.isNull else { return d }
        guard let i = Int(v, strict: false) else { throw HealthAnswers.Refusal("\(name) must be a whole number") }
        return i
    }

    func bool(_ name: String) throws -> Bool {
        guard let v = values[name], !v.isNull else { return false }
        guard let b = v.boolValue else { throw HealthAnswers.Refusal("\(name) must be true or false") }
        return b
    }

    func strings(_ name: String) throws -> [String] {
        guard let v = values[name], !v.isNull else { return [] }
        if let one = v.stringValue { return [one] }
        guard let list = v.arrayValue else { throw HealthAnswers.Refusal("\(name) must be a list of strings") }
        return try list.map { item in
            guard let s = item.stringValue else { throw HealthAnswers.Refusal("\(name) must be a list of strings") }
            return s
        }
    }
}
#endif
