#if Server
import OpenHealthKitCore

/// Counters for `GET /metrics`, in Prometheus's text format: requests and
/// their latencies by endpoint, samples in and out, stores open.
final class ServerMetrics: @unchecked Sendable {
    private static let buckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct Series {
        var count = 0
        var sum = 0.0
        var inBucket = [Int](repeating: 0, count: ServerMetrics.buckets.count)
    }

    private struct State {
        var requests: [String: Int] = [:]  // "endpoint method status"
        var latency: [String: Series] = [:]  // "endpoint method"
        var samplesIn = 0
        var samplesOut = 0
    }
    private let state = Locked(State())

    func request(endpoint: String, method: String, status: Int, seconds: Double) {
        state.withLock { s in
            s.requests["\(endpoint)\t\(method)\t\(status)", default: 0] += 1
            var series = s.latency["\(endpoint)\t\(method)", default: Series()]
            series.count += 1
            series.sum += seconds
            for (i, bound) in Self.buckets.enumerated() where seconds <= bound { series.inBucket[i] += 1 }
            s.latency["\(endpoint)\t\(method)"] = series
        }
    }

    func samplesIn(_ n: Int) { state.withLock { $0.samplesIn += n } }
    func samplesOut(_ n: Int) { state.withLock { $0.samplesOut += n } }

    func text(openStores: Int) -> String {
        state.withLock { s in
            var out = "# HELP ohk_http_requests_total Requests answered, by endpoint, method and status.\n"
            out += "# TYPE ohk_http_requests_total counter\n"
            for (key, n) in s.requests.sorted(by: { $0.key < $1.key }) {
                let p = key.split(separator: "\t")
                out += "ohk_http_requests_total{endpoint=\"\(p[0])\",method=\"\(p[1])\",status=\"\(p[2])\"} \(n)\n"
            }
            out += "# HELP ohk_http_request_duration_seconds Time to answer, by endpoint and method.\n"
            out += "# TYPE ohk_http_request_duration_seconds histogram\n"
            for (key, series) in s.latency.sorted(by: { $0.key < $1.key }) {
                let p = key.split(separator: "\t")
                let labels = "endpoint=\"\(p[0])\",method=\"\(p[1])\""
                for (i, bound) in Self.buckets.enumerated() {
                    out += "ohk_http_request_duration_seconds_bucket{\(labels),le=\"\(bound)\"} \(series.inBucket[i])\n"
                }
                out += "ohk_http_request_duration_seconds_bucket{\(labels),le=\"+Inf\"} \(series.count)\n"
                out += "ohk_http_request_duration_seconds_sum{\(labels)} \(series.sum)\n"
                out += "ohk_http_request_duration_seconds_count{\(labels)} \(series.count)\n"
            }
            out += "# HELP ohk_samples_received_total Samples and deletions received by uploads.\n"
            out += "# TYPE ohk_samples_received_total counter\nohk_samples_received_total \(s.samplesIn)\n"
            out += "# HELP ohk_samples_sent_total Samples and deletions sent by reads and streams.\n"
            out += "# TYPE ohk_samples_sent_total counter\nohk_samples_sent_total \(s.samplesOut)\n"
            out += "# HELP ohk_open_stores People's stores open now.\n"
            out += "# TYPE ohk_open_stores gauge\nohk_open_stores \(openStores)\n"
            return out
        }
    }
}
#endif
