#if Server
import ArgumentParser
import FoundationEssentials
import Glibc
import OpenHealthKitCore
import OpenHealthKitJSON
import OpenHealthKitServer
import OpenHealthKitUpload

/// `ohk token`: the bearer tokens of `ohk serve` (docs/server.md).
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Create, list and revoke the tokens that ohk serve accepts.",
        discussion: """
        A token is one app's grant on one person's store, per type, to read
        and to write, after HealthKit's authorization. Only its hash is kept
        (DIR/.ohk-tokens); the token is shown once, on the last line. A
        running server sees changes at its next request.
        """,
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a token and print it, once, on the last line.",
            discussion: """
            Examples:
              ohk token create --data /srv/health --person alice --app com.example.phone-sync --write all --read all --relay
              ohk token create --data /srv/health --person alice --app org.example.dashboard --read StepCount,HeartRate
            """
        )

        @Option(help: ArgumentHelp("The data folder of ohk serve.", valueName: "dir"))
        var data: String

        @Option(help: "The person whose store the token opens.")
        var person: String

        @Option(help: ArgumentHelp("The app's bundle identifier: the source of what it writes.", valueName: "bundle-id"))
        var app: String

        @Option(help: ArgumentHelp("Types it may read: comma-separated, or all.", valueName: "types"))
        var read = ""

        @Option(help: ArgumentHelp("Types it may write: comma-separated, or all.", valueName: "types"))
        var write = ""

        @Flag(help: "It may upload samples of any source (a phone's sync app).")
        var relay = false

        func run() throws {
            try reportingErrors {
                let grant = Grant(person: try personName(person), app: app, read: try TypeSet.parse(read),
                                  write: try TypeSet.parse(write), relay: relay)
                guard !(grant.read.isEmpty && grant.write.isEmpty) else {
                    throw OHKError(.invalidArgument, "give the token --read TYPES, --write TYPES or both (all for every type)")
                }
                let (token, record) = try TokenFile(directory: try dataDirectory(data)).create(grant)
                printError("ohk: token \(record.id) for \(grant.person), app \(grant.app): read \(grant.read), "
                           + "write \(grant.write)\(grant.relay ? ", relay" : ""). It is shown once:")
                print(token)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the tokens (never the tokens themselves).")

        @Option(help: ArgumentHelp("The data folder of ohk serve.", valueName: "dir"))
        var data: String

        @Flag(help: "One JSON object per line.")
        var json = false

        func run() throws {
            try reportingErrors {
                for r in try TokenFile(directory: try dataDirectory(data)).records() {
                    let g = r.grant
                    if json {
                        var o = JSONObject()
                        o.add("id", r.id)
                        o.add("person", g.person)
                        o.add("app", g.app)
                        o.add("read", g.read.description)
                        o.add("write", g.write.description)
                        o.add("relay", bool: g.relay)
                        o.add("created", OutputText.time(r.created))
                        o.add("revoked", r.revoked.map(OutputText.time))
                        print(o.closed)
                    } else {
                        print([r.id, g.person, g.app, "read=\(g.read)", "write=\(g.write)", g.relay ? "relay" : "-",
                               r.revoked == nil ? "live" : "revoked"].joined(separator: "  "))
                    }
                }
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token by its id (ohk token list).")

        @Option(help: ArgumentHelp("The data folder of ohk serve.", valueName: "dir"))
        var data: String

        @Argument(help: "The token's id.")
        var id: String

        func run() throws {
            try reportingErrors {
                guard try TokenFile(directory: try dataDirectory(data)).revoke(id: id) else {
                    throw OHKError(.notFound, "no live token \(id) (ohk token list shows them)")
                }
                printError("ohk: token \(id) revoked")
            }
        }
    }
}

private func dataDirectory(_ text: String) throws -> String {
    let dir = expandingTilde(text)
    var st = stat()
    guard stat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
        throw OHKError(.storage, "--data \(dir) is not a directory")
    }
    return dir
}

private func personName(_ text: String) throws -> String {
    do { return try PersonName.validate(text) } catch { throw OHKError(.invalidArgument, "--person: \(error.message)") }
}
#endif
