#if CommandLineTool
import ArgumentParser
import OpenHealthKitCore

/// `ohk`: Apple Health exports into a store, and the store's changes out.
@main
struct OHK: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ohk",
        abstract: "Import Apple Health exports into an OpenHealthKit store and follow what changes in it.",
        discussion: """
        Every command works on one store: --store DIR, else $OHK_STORE, else
        $XDG_DATA_HOME/openhealthkit/store (~/.local/share/openhealthkit/store).

        Examples:
          ohk import ~/Downloads/export.zip
          ohk stats
          ohk query HKQuantityTypeIdentifierBodyMass --where 'startDate >= 2020-01-01' --limit 10
          ohk changes --since none --anchor-file state.anchor
          ohk changes --anchor-file state.anchor --follow
          ohk sink postgres --url postgresql://me@localhost/health --follow
          ohk serve --data /srv/health --listen 127.0.0.1:8080

        Exit codes:
          0   success
          1   the store refused the request (unknown type, bad predicate or
              anchor, storage failure), or `check` found problems; the
              message says why
          64  bad command line
          65  import stopped at damaged input (truncated zip, malformed XML);
              what came before the damage was imported, and a new run resumes
          66  the input cannot be opened or is not an Apple Health export
        """,
        version: LibraryVersion.string,
        subcommands: [ImportCommand.self, TypesCommand.self, StatsCommand.self, QueryCommand.self,
                      ChangesCommand.self, ObserveCommand.self, AddCommand.self, DeleteCommand.self,
                      PruneCommand.self, CheckCommand.self, RebuildStatisticsCommand.self, ActivityCommand.self,
                      SubscriptionsCommand.self, SinkCommand.self, SyncCommand.self, ExportCommand.self] + serverCommands + mcpCommands
    )
}

/// `ohk serve` and `ohk token`, in a build with the Server trait.
#if Server
let serverCommands: [any ParsableCommand.Type] = [ServeCommand.self, TokenCommand.self]
#else
let serverCommands: [any ParsableCommand.Type] = []
#endif

/// `ohk mcp`, in a build with the MCPServer trait.
#if MCPServer
let mcpCommands: [any ParsableCommand.Type] = [MCPCommand.self]
#else
let mcpCommands: [any ParsableCommand.Type] = []
#endif
#endif
