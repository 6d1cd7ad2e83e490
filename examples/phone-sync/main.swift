// A phone's sync to `ohk serve`, written as an iOS app writes it: an
// HKAnchoredObjectQuery per run with a persisted anchor and an update
// handler, each batch uploaded before its anchor is kept. On iOS, replace
// `import OpenHealthKit` with `import HealthKit` and the store directory
// with `HKHealthStore()`; docs/phone-sync.md has the same code.
//
//   phone-sync --store DIR --server URL --person NAME --token TOKEN --anchor-file FILE
//
// Prints "synced N" after each upload (N changes), and runs until killed.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OpenHealthKit

/// The types this app syncs, each with the unit its values travel in.
let syncedTypes: [(HKSampleType, HKUnit?)] = [
    (HKQuantityType(.stepCount), .count()),
    (HKQuantityType(.heartRate), HKUnit.count().unitDivided(by: .minute())),
    (HKQuantityType(.bodyMass), .gramUnit(with: .kilo)),
    (HKCategoryType(.sleepAnalysis), nil),
]

final class PhoneSync: @unchecked Sendable {
    let healthStore: HKHealthStore
    let endpoint: URL
    let token: String
    let anchorFile: URL
    private let units: [String: HKUnit]

    init(healthStore: HKHealthStore, server: URL, person: String, token: String, anchorFile: URL) {
        self.healthStore = healthStore
        endpoint = server.appendingPathComponent("v1/people/\(person)/changes")
        self.token = token
        self.anchorFile = anchorFile
        units = Dictionary(uniqueKeysWithValues: syncedTypes.compactMap { t, u in u.map { (t.identifier, $0) } })
    }

    /// The anchor of the last batch the server acknowledged, kept with
    /// NSKeyedArchiver as HealthKit's documentation shows.
    var savedAnchor: HKQueryAnchor? {
        guard let data = try? Data(contentsOf: anchorFile) else { return nil }
        return try? NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: data)
    }

    func start() {
        let descriptors = syncedTypes.map { HKQueryDescriptor(sampleType: $0.0, predicate: nil) }
        let handler: HKAnchoredObjectQuery.Handler = { [self] _, samples, deleted, newAnchor, error in
            guard error == nil, let newAnchor else {
                print("query failed: \(error.map { "\($0)" } ?? "no anchor")")
                exit(1)
            }
            upload(samples ?? [], deleted ?? [], newAnchor)
        }
        let query = HKAnchoredObjectQuery(queryDescriptors: descriptors, anchor: savedAnchor, limit: HKObjectQueryNoLimit,
                                          resultsHandler: handler)
        query.updateHandler = handler
        healthStore.execute(query)
    }

    /// Uploads one batch, retrying until the server has it; then keeps its
    /// anchor. Handlers of one query run one at a time, so batches go in order.
    private func upload(_ samples: [HKSample], _ deleted: [HKDeletedObject], _ anchor: HKQueryAnchor) {
        let body: [String: Any] = ["samples": samples.map(json), "deleted": deleted.map { $0.uuid.uuidString }]
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try! JSONSerialization.data(withJSONObject: body)
        while true {
            let (status, text) = send(request)
            if status == 200 { break }
            if (400..<500).contains(status) && status != 408 {  // refused: retrying will not help
                print("upload refused (\(status)): \(text)")
                exit(1)
            }
            Thread.sleep(forTimeInterval: 1)  // the server is away: try again
        }
        let data = try! NSKeyedArchiver.archivedData(withRootObject: anchor, requiringSecureCoding: true)
        try! data.write(to: anchorFile, options: .atomic)
        print("synced \(samples.count + deleted.count)")
        fflush(stdout)
    }

    private func send(_ request: URLRequest) -> (Int, String) {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var answer = (0, "")
        URLSession.shared.dataTask(with: request) { data, response, error in
            answer = ((response as? HTTPURLResponse)?.statusCode ?? 0,
                      data.map { String(decoding: $0, as: UTF8.self) } ?? "\(error.map { "\($0)" } ?? "")")
            done.signal()
        }.resume()
        done.wait()
        return answer
    }

    /// A sample as the server takes it (the object `ohk changes` prints).
    private func json(_ sample: HKSample) -> [String: Any] {
        let time = ISO8601DateFormatter()
        time.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var o: [String: Any] = [
            "uuid": sample.uuid.uuidString, "type": sample.sampleType.identifier,
            "start": time.string(from: sample.startDate), "end": time.string(from: sample.endDate),
            "source": sample.sourceRevision.source.bundleIdentifier,
            "sourceName": sample.sourceRevision.source.name,
        ]
        if let version = sample.sourceRevision.version { o["sourceVersion"] = version }
        if let q = sample as? HKQuantitySample, let unit = units[q.sampleType.identifier] {
            o["value"] = q.quantity.doubleValue(for: unit)
            o["unit"] = unit.unitString
        } else if let c = sample as? HKCategorySample {
            o["value"] = c.value
        }
        if let metadata = sample.metadata {
            o["metadata"] = metadata.mapValues { v -> Any in
                if let d = v as? Date { return time.string(from: d) }
                if let q = v as? HKQuantity { return "\(q)" }
                return v
            }
        }
        return o
    }
}

/// The command line of this stand-in for an app's settings.
func option(_ name: String) -> String {
    let args = CommandLine.arguments
    guard let i = args.firstIndex(of: "--" + name), i + 1 < args.count else {
        print("usage: phone-sync --store DIR --server URL --person NAME --token TOKEN --anchor-file FILE")
        exit(2)
    }
    return args[i + 1]
}

let sync = PhoneSync(healthStore: HKHealthStore(directory: option("store")), server: URL(string: option("server"))!,
                     person: option("person"), token: option("token"), anchorFile: URL(fileURLWithPath: option("anchor-file")))
sync.start()
dispatchMain()
