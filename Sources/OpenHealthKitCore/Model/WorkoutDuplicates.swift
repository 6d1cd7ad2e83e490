import FoundationEssentials

/// Likely duplicate workouts (rule 57 of docs/semantics.md): copies an app
/// wrote again, which HealthKit keeps and totals must count once.
public enum WorkoutDuplicates {
    /// What two copies share: the activity, the start and end to the
    /// second, the duration to the millisecond, the totals to a millionth.
    private struct Key: Hashable {
        let activity: UInt
        let start: Int64, end: Int64
        let duration: Int64
        let energy: Int64?, distance: Int64?
    }

    /// Halves round up, on Unix seconds, as Python's copy of the rule does.
    private static func key(_ s: Sample, _ w: Workout) -> Key {
        func nearest(_ x: Double) -> Int64 { Int64((x + 0.5).rounded(.down)) }
        return Key(activity: w.activityType, start: nearest(s.startDate.timeIntervalSince1970),
                   end: nearest(s.endDate.timeIntervalSince1970), duration: nearest(w.duration * 1e3),
                   energy: w.totalEnergyBurned.map { nearest($0 * 1e6) }, distance: w.totalDistance.map { nearest($0 * 1e6) })
    }

    /// For each of `samples` (other kinds than workouts are ignored), the
    /// index of the workout it likely copies, nil for one that counts: of
    /// each group that shares an activity, start, end, duration and
    /// totals, the one created first counts (then the first given; a
    /// workout without a creation date counts as created last). Indexes
    /// run from 0.
    public static func originals<C: RandomAccessCollection>(_ samples: C) -> [Int?] where C.Element == Sample, C.Index == Int {
        var groups: [Key: [Int]] = [:]
        for (i, s) in zip(samples.indices, samples) {
            if case .workout(let w) = s.value { groups[key(s, w), default: []].append(i) }
        }
        var out = [Int?](repeating: nil, count: samples.count)
        for members in groups.values where members.count > 1 {
            let created = { (i: Int) in samples[i].creationDate?.timeIntervalSinceReferenceDate ?? .infinity }
            let first = members.min { (created($0), $0) < (created($1), $1) }!
            for i in members where i != first { out[i] = first }
        }
        return out
    }
}
