import Glibc
import FoundationEssentials

/// The figures of one statistics interval, in the type's canonical unit;
/// each is nil when its option was not asked for or no sample fed it
/// (HKStatistics' quantities).
public struct StatisticsValues: Hashable, Sendable {
    public var sum: Double?
    public var average: Double?
    public var minimum: Double?
    public var maximum: Double?
    /// The latest sample's value, and that sample's own interval.
    public var mostRecent: Double?
    public var mostRecentStart: Date?
    public var mostRecentEnd: Date?
    /// Seconds covered by the samples (their union).
    public var duration: Double?
    /// How many samples fed the interval once sources were merged (a
    /// sample that spans intervals counts in each); nil without data. Not
    /// HealthKit's: readings per hour are a figure data people ask for.
    public var count: Int?

    public init() {}

    /// True when no figure is set: an interval without data.
    public var isEmpty: Bool { self == StatisticsValues() }

    /// Arithmetic for `discreteArithmetic`; weighted by time for the other
    /// discrete styles, or arithmetic when every sample is an instant
    /// (rule 29). Sums of sound levels are of their energies.
    static func average(_ style: AggregationStyle, weighted: Double, weight: Double, arithmetic: Double,
                        count: Int) -> Double {
        let useTime = style != .discreteArithmetic && weight > 0
        let mean = useTime ? weighted / weight : arithmetic / Double(count)
        return style == .discreteEquivalentContinuousLevel ? 10 * log10(mean) : mean
    }
}

/// HKStatistics: the figures of a type over one interval, its sources
/// merged by priority (rule 26), and, with `separateBySource`, each
/// source's own.
public struct Statistics: Hashable, Sendable {
    public let type: SampleType
    /// The interval (a collection's), or the earliest start and the latest
    /// end of the matching samples (a single statistics query): instants,
    /// unless `isLocalTime`.
    public let startDate: Date
    public let endDate: Date
    /// True for a collection with `.sampleLocalTime`: the dates are a
    /// wall-clock time written as UTC (`2020-11-01T00:00:00Z` is the local
    /// midnight of each sample's own offset), not instants (rule 28).
    public let isLocalTime: Bool
    /// The figures, sources merged.
    public let values: StatisticsValues
    /// Each source's own figures by bundle identifier, unmerged; empty
    /// without `separateBySource`.
    public let bySource: [String: StatisticsValues]
    /// The sources with a matching sample in the interval (also those
    /// whose data a higher-priority source covered); empty without
    /// `separateBySource`, as HealthKit's `sources` is nil then.
    public let sources: [Source]

    /// Figures of `type` over an interval; each source's own and the
    /// sources only with `separateBySource`.
    public init(type: SampleType, startDate: Date, endDate: Date, values: StatisticsValues,
                bySource: [String: StatisticsValues] = [:], sources: [Source] = [], isLocalTime: Bool = false) {
        self.type = type
        self.isLocalTime = isLocalTime
        self.startDate = startDate
        self.endDate = endDate
        self.values = values
        self.bySource = bySource
        self.sources = sources
    }

    /// A workout's or an activity's statistics of one type (rule 31), as
    /// it was saved: its sum, average, minimum and maximum over its
    /// interval.
    public init(_ w: WorkoutStatistics) {
        var v = StatisticsValues()
        v.sum = w.sum
        v.average = w.average
        v.minimum = w.minimum
        v.maximum = w.maximum
        self.init(type: w.type, startDate: w.start, endDate: w.end, values: v)
    }

    public var sum: Double? { values.sum }
    public var average: Double? { values.average }
    public var minimum: Double? { values.minimum }
    public var maximum: Double? { values.maximum }
    public var mostRecent: Double? { values.mostRecent }
    public var duration: Double? { values.duration }
}

/// The length of a collection's intervals: a count of calendar units,
/// counted in local time (rule 28).
public struct StatisticsInterval: Hashable, Sendable {
    public enum Unit: Hashable, Sendable { case second, minute, hour, day, week, month, year }
    public let count: Int
    public let unit: Unit

    public init(_ count: Int, _ unit: Unit) {
        self.count = count
        self.unit = unit
    }

    public static let hour = StatisticsInterval(1, .hour)
    public static let day = StatisticsInterval(1, .day)
    public static let week = StatisticsInterval(1, .week)
    public static let month = StatisticsInterval(1, .month)

    /// Seconds of a fixed-length unit; nil for months and years.
    var seconds: Double? {
        switch unit {
        case .second: Double(count)
        case .minute: Double(count) * 60
        case .hour: Double(count) * 3600
        case .day: Double(count) * 86_400
        case .week: Double(count) * 604_800
        case .month, .year: nil
        }
    }

    /// The `k`-th edge after (k < 0: before) `anchor`, in local seconds
    /// since 2001-01-01: fixed units by multiplication, months and years
    /// by the civil calendar from the anchor (the day of the month kept,
    /// or the month's last day), never by repeated adding.
    func edge(_ k: Int, from anchor: Double) -> Double {
        if let s = seconds { return anchor + Double(k) * s }
        let unix = Int((anchor + 978_307_200).rounded(.down))
        let dayNumber = unix >= 0 ? unix / 86_400 : (unix - 86_399) / 86_400
        let timeOfDay = anchor + 978_307_200 - Double(dayNumber) * 86_400
        let (y, m, d) = ISODate.civilFromDays(dayNumber)
        let months = (y * 12 + (m - 1)) + k * count * (unit == .year ? 12 : 1)
        let year = months >= 0 ? months / 12 : (months - 11) / 12
        let month = months - year * 12 + 1
        let day = min(d, ISODate.daysInMonth(year, month))
        return Double(ISODate.daysFromCivil(year, month, day) * 86_400) + timeOfDay - 978_307_200
    }
}
