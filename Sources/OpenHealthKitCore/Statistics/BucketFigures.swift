import Glibc

/// One source's figures over one bucket of maintained statistics (an hour
/// or a day of local time; docs/architecture.md, "Maintained statistics").
/// Everything a collection interval needs can be combined from the
/// buckets that tile it: sums add, extremes take the extreme, and a sample
/// that spans buckets is counted once per interval through `count` (the
/// samples that start in the bucket) and `crossCount` (those that cross
/// its start, which count only in an interval's first bucket).
struct BucketFigures: Equatable {
    var sourceID: UInt32
    var count: UInt32 = 0
    var crossCount: UInt32 = 0
    /// Σ value × the share of the sample's time inside the bucket.
    var sum = 0.0
    /// Σ v × time and Σ time, v the value (its energy for sound levels).
    var weighted = 0.0, weight = 0.0
    /// Σ v of the samples in `count`, and of those in `crossCount`.
    var arithmetic = 0.0, crossArithmetic = 0.0
    var minimum = Double.infinity, maximum = -Double.infinity
    /// The sample that ends last (then starts last, then was saved last).
    var recentEnd = -Double.infinity, recentStart = -Double.infinity, recentValue = 0.0
    var recentOrder: UInt64 = 0

    init(sourceID: UInt32) { self.sourceID = sourceID }

    var isEmpty: Bool { count == 0 && crossCount == 0 }

    /// Adds the part of a sample inside the bucket: `share` of its value
    /// and `time` seconds of it; `first` when the sample starts here.
    mutating func add(value: Double, level: Double, share: Double, time: Double, first: Bool,
                      start: Double, end: Double, order: UInt64) {
        sum += value * share
        weighted += level * time
        weight += time
        if first {
            count += 1
            arithmetic += level
        } else {
            crossCount += 1
            crossArithmetic += level
        }
        minimum = min(minimum, value)
        maximum = max(maximum, value)
        if (end, start, order) > (recentEnd, recentStart, recentOrder) {
            (recentEnd, recentStart, recentValue, recentOrder) = (end, start, value, order)
        }
    }

    /// Adds figures of the same bucket (another transaction's samples), or,
    /// without `crossing`, of a later bucket of an interval: the samples
    /// that cross its start are counted in an earlier one.
    mutating func merge(_ o: BucketFigures, crossing: Bool = true) {
        count += o.count
        arithmetic += o.arithmetic
        if crossing {
            crossCount += o.crossCount
            crossArithmetic += o.crossArithmetic
        }
        sum += o.sum
        weighted += o.weighted
        weight += o.weight
        minimum = min(minimum, o.minimum)
        maximum = max(maximum, o.maximum)
        if (o.recentEnd, o.recentStart, o.recentOrder) > (recentEnd, recentStart, recentOrder) {
            (recentEnd, recentStart, recentValue, recentOrder) = (o.recentEnd, o.recentStart, o.recentValue, o.recentOrder)
        }
    }

    /// Sound levels (dB) average as energies: the equivalent continuous level.
    static func level(_ value: Double, _ style: AggregationStyle) -> Double {
        style == .discreteEquivalentContinuousLevel ? pow(10, value / 10) : value
    }
}
