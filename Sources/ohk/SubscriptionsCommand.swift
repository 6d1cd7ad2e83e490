#if CommandLineTool
import ArgumentParser
import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitJSON

/// `ohk subscriptions`: the store's durable subscriptions and how far behind each is.
struct SubscriptionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscriptions",
        abstract: "List the durable subscriptions: position, pending changes and lag.",
        discussion: """
        One row per durable subscription (rule 11): its name, types, delivery
        frequency, acknowledged position, the changes of its types committed
        since (what it still owes its consumer; its predicates are not
        applied), and its lag: the seconds since it last acknowledged a
        delivery while changes wait, 0 when none wait, "never" when it has
        acknowledged none. --remove NAME forgets one (the tombstones it held
        back may then be pruned). A PostgreSQL sink keeps its position in
        PostgreSQL, not here: see ohk_sink_checkpoints.

        Examples:
          ohk subscriptions
          ohk subscriptions --json
          ohk subscriptions --remove old-exporter
        """
    )

    @OptionGroup var location: StoreLocation

    @Flag(help: "One JSON object per line.")
    var json = false

    @Option(help: ArgumentHelp("Remove this subscription.", valueName: "name"))
    var remove: String?

    func run() throws {
        try reportingErrors {
            let store = try location.open()
            defer { store.close() }
            if let remove {
                try store.removeSubscription(named: remove)
                print("removed subscription '\(remove)'")
                return
            }
            let now = Date()
            let all = try store.subscriptionStatus()
            var rows: [[String]] = []
            for s in all {
                let lag = s.lagSeconds(at: now)
                if json {
                    var o = JSONObject()
                    o.add("name", s.name)
                    o.add("types", raw: JSONObject.array(s.typeIdentifiers.map(JSONObject.quoted)))
                    o.add("frequency", "\(s.frequency)")
                    o.add("position", int: Int(s.acknowledged.position))
                    o.add("anchor", s.acknowledged.base64)
                    o.add("head", int: Int(s.head))
                    o.add("pendingChanges", int: s.pendingChanges)
                    if let lag { o.add("lagSeconds", number: lag.rounded()) } else { o.add("lagSeconds", raw: "null") }
                    if let at = s.lastAcknowledged { o.add("lastAcknowledged", OutputText.time(at)) }
                    print(o.closed)
                } else {
                    let types = s.typeIdentifiers.count == 1 ? s.typeIdentifiers[0] : "\(s.typeIdentifiers.count) types"
                    rows.append([s.name, types, "\(s.frequency)", String(s.acknowledged.position), String(s.pendingChanges),
                                 lag.map { String(Int($0.rounded())) } ?? "never",
                                 s.lastAcknowledged.map(OutputText.time) ?? "-"])
                }
            }
            guard !json else { return }
            if all.isEmpty {
                print("no durable subscriptions in \(store.directory)")
                return
            }
            OutputText.printTable(["name", "types", "frequency", "position", "pending", "lag s", "last acknowledged"],
                                  rows, left: 3)
        }
    }
}
#endif
