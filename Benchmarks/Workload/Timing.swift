// Clocks and percentiles shared by the benchmarks.
import Glibc

/// Monotonic seconds.
public func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The p-th percentile (0...1) of sorted values, nearest rank.
public func percentile(_ sorted: [Double], _ p: Double) -> Double {
    let k = Int(p * Double(sorted.count) + 0.999999999)
    return sorted[max(0, k - 1)]
}
