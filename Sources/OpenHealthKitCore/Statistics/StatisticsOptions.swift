/// What a statistics query computes: HealthKit's HKStatisticsOptions,
/// with its bit values.
public struct StatisticsOptions: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Each source's own figures too, unmerged (`Statistics.bySource`).
    public static let separateBySource = StatisticsOptions(rawValue: 1)
    public static let discreteAverage = StatisticsOptions(rawValue: 2)
    public static let discreteMin = StatisticsOptions(rawValue: 4)
    public static let discreteMax = StatisticsOptions(rawValue: 8)
    public static let cumulativeSum = StatisticsOptions(rawValue: 16)
    /// The value of the latest sample and its interval.
    public static let mostRecent = StatisticsOptions(rawValue: 32)
    /// The time the samples cover.
    public static let duration = StatisticsOptions(rawValue: 64)
    /// Not HealthKit's: a collection counts each sample in its own local
    /// time (its UTC offset), and its intervals are wall-clock times, not
    /// instants (rule 28). Without it, intervals are instants of one zone.
    public static let sampleLocalTime = StatisticsOptions(rawValue: 1 << 16)

    static let discrete: StatisticsOptions = [.discreteAverage, .discreteMin, .discreteMax]
    static let all: StatisticsOptions = [.separateBySource, .discrete, .cumulativeSum, .mostRecent, .duration,
                                         .sampleLocalTime]

    /// Refuses options that do not fit `type` (rule 25): statistics are of
    /// quantity types; a sum of a cumulative type; an average, minimum or
    /// maximum of a discrete one; the most recent value and the duration
    /// of either; of a category type, the duration alone (rule 59).
    /// HealthKit throws an exception here; the library gives an error that
    /// names the option and the type.
    public func check(for type: SampleType) throws {
        if case .category = type.kind {
            // Not HealthKit's: the time category samples cover (sleep), sources merged (rule 59).
            let allowed: StatisticsOptions = [.duration, .separateBySource, .sampleLocalTime]
            guard contains(.duration), isSubset(of: allowed) else {
                let wrong = subtracting(allowed).names
                throw OHKError(.invalidArgument, "statistics of the category type \(type.identifier) are durations: give duration"
                               + (wrong.isEmpty ? "" : ", not \(wrong.joined(separator: ", "))"))
            }
            return
        }
        guard case .quantity(_, let style) = type.kind else {
            throw OHKError(.invalidArgument, "statistics are of quantity and category types; \(type.identifier) is a \(type.kindName) type")
        }
        guard isSubset(of: Self.all) else {
            throw OHKError(.invalidArgument, "unknown statistics options \(rawValue & ~Self.all.rawValue)")
        }
        guard !subtracting([.separateBySource, .sampleLocalTime]).isEmpty else {
            throw OHKError(.invalidArgument, "no statistic asked for: give cumulativeSum, discreteAverage, discreteMin, discreteMax, mostRecent or duration")
        }
        if style == .cumulative, let wrong = intersection(Self.discrete).names.first {
            throw OHKError(.invalidArgument, "statistics option \(wrong) is not compatible with the cumulative type \(type.identifier)")
        }
        if style != .cumulative, contains(.cumulativeSum) {
            throw OHKError(.invalidArgument, "statistics option cumulativeSum is not compatible with the discrete type \(type.identifier)")
        }
    }

    /// HealthKit's names of the options set, in bit order.
    public var names: [String] {
        let named: [(StatisticsOptions, String)] = [
            (.separateBySource, "separateBySource"), (.discreteAverage, "discreteAverage"), (.discreteMin, "discreteMin"),
            (.discreteMax, "discreteMax"), (.cumulativeSum, "cumulativeSum"), (.mostRecent, "mostRecent"), (.duration, "duration"),
            (.sampleLocalTime, "sampleLocalTime"),
        ]
        return named.filter { contains($0.0) }.map(\.1)
    }
}
