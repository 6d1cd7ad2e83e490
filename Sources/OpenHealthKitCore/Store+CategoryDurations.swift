import FoundationEssentials

/// The time a category type's values cover per interval (rule 59 of
/// docs/semantics.md): what sleep apps compute from sleep analysis.
public struct CategoryDurations: Hashable, Sendable {
    /// The interval: instants, or a wall-clock time with `isLocalTime`
    /// (rule 28).
    public let startDate: Date
    public let endDate: Date
    public let isLocalTime: Bool
    /// Seconds each value covers in the interval, sources merged by
    /// priority; values without time are absent.
    public let byValue: [Int: Double]
    /// Seconds any value covers.
    public let total: Double
}

extension Store {
    /// A category type's durations per interval, in the intervals of a
    /// statistics collection (rule 28: one zone, or each sample's own
    /// offset with `sampleLocalTime`). Sources merge by priority (rules
    /// 26 and 27) before values are told apart, so two sources' records of
    /// one night count once; within a source every sample counts, and a
    /// value's time is the union of its pieces. Sleep analysis merges in
    /// two layers, as the Health app shows them: time in bed (`InBed`),
    /// and the stages (asleep, awake), so that a phone's time in bed is
    /// not cut by a watch's stages.
    public func categoryDurations(type: SampleType, predicate: SamplePredicate? = nil, anchor: Date,
                                  interval: StatisticsInterval, from: Date, to: Date, utcOffset: Int = 0,
                                  timeZone: ZoneRules? = nil, sampleLocalTime: Bool = false) throws -> [CategoryDurations] {
        guard case .category = type.kind else {
            throw OHKError(.invalidArgument, "category durations are of category types; \(type.identifier) is a \(type.kindName) type")
        }
        let (edges, time) = try Self.collectionEdges(anchor: anchor, interval: interval, from: from, to: to, utcOffset: utcOffset,
                                                     timeZone: timeZone, sampleLocal: sampleLocalTime)
        let read = try collectionSamples(type, predicate, edges: edges, time: time)
        let n = edges.count - 1
        // Clipped local-time segments per interval and value.
        var segments = [[Int: [(Double, Double)]]](repeating: [:], count: n)
        let inBedLayer = type.identifier == "HKCategoryTypeIdentifierSleepAnalysis"
        let layers = inBedLayer ? Dictionary(grouping: read.samples, by: { $0.value == 0 }).map(\.value) : [read.samples]
        for samples in layers {
            for p in SourceMerge.pieces(samples) {
                let s = samples[p.sample]
                let a = p.start + s.offset, b = p.end + s.offset
                guard b > a else { continue }  // an instant covers no time
                // The first interval that ends after the piece starts: the last edge at or before it.
                var low = 0, high = edges.count
                while low < high {
                    let mid = (low + high) / 2
                    if edges[mid] <= a { low = mid + 1 } else { high = mid }
                }
                var k = max(0, low - 1)
                while k < n, edges[k] < b {
                    let lo = max(a, edges[k]), hi = min(b, edges[k + 1])
                    if hi > lo { segments[k][Int(s.value), default: []].append((lo, hi)) }
                    k += 1
                }
            }
        }
        return (0..<n).map { k in
            var byValue: [Int: Double] = [:]
            for (value, parts) in segments[k] { byValue[value] = Self.unionLength(parts) }
            return CategoryDurations(startDate: Date(timeIntervalSinceReferenceDate: edges[k]),
                                     endDate: Date(timeIntervalSinceReferenceDate: edges[k + 1]),
                                     isLocalTime: time.isLocal, byValue: byValue,
                                     total: Self.unionLength(segments[k].values.flatMap { $0 }))
        }
    }

    /// The length of the union of `[start, end)` segments.
    static func unionLength(_ parts: [(Double, Double)]) -> Double {
        var total = 0.0, reach = -Double.infinity
        for (a, b) in parts.sorted(by: { $0.0 < $1.0 }) {
            let from = max(a, reach)
            if b > from { total += b - from }
            reach = max(reach, b)
        }
        return total
    }
}
