#if CommandLineTool && MCPServer
import ArgumentParser
import OpenHealthKitCore
import OpenHealthKitMCP

struct MCPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Answer an AI assistant's questions about the store: an MCP server over stdin and stdout.",
        discussion: """
        Tools: store_summary, statistics (per interval, sources merged by
        priority), latest, workouts, sleep (per night) and changes_since.
        Every answer is JSON, at most 500 rows, and says when it was cut;
        units and time zones are named in it. The store is read at each
        call: what ohk import or ohk serve commits shows at the next one.
        An MCP client starts it (docs/mcp.md):

          {"command": "ohk", "args": ["mcp", "--store", "/home/me/health"]}
        """
    )

    @OptionGroup var location: StoreLocation

    func run() throws {
        try reportingErrors {
            var options = StoreOptions()
            options.readOnly = true  // an assistant reads; nothing it asks writes
            let store = try Store(directory: location.directory, options: options)
            defer { store.close() }
            try HealthMCPServer.runBlocking(store: store, version: LibraryVersion.string)
        }
    }
}
#endif
