import FoundationEssentials

/// One day's activity rings (HealthKit's `HKActivitySummary`, rule 43):
/// the move, exercise and stand values and their goals. Not a sample: a
/// value of the store per day, replaced whole when saved again.
public struct ActivitySummary: Hashable, Sendable {
    /// A calendar day (Gregorian), as HealthKit's summaries are keyed by
    /// date components; its days begin and end at the user's midnight.
    public struct Day: Hashable, Comparable, Sendable, CustomStringConvertible {
        public let year: Int, month: Int, day: Int

        /// The day; throws for one the Gregorian calendar does not have.
        public init(year: Int, month: Int, day: Int) throws {
            guard (1...9999).contains(year), (1...12).contains(month),
                  (1...Self.days(inMonth: month, year: year)).contains(day) else {
                throw OHKError(.invalidArgument, "\(year)-\(month)-\(day) is not a day of the Gregorian calendar")
            }
            self.year = year
            self.month = month
            self.day = day
        }

        /// "2020-11-20", as exports write `dateComponents`.
        public init(_ text: String) throws {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].count == 4, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else {
                throw OHKError(.invalidArgument, "'\(text)' is not a day (YYYY-MM-DD)")
            }
            do { try self.init(year: y, month: m, day: d) } catch {
                throw OHKError(.invalidArgument, "'\(text)' is not a day of the Gregorian calendar")
            }
        }

        static func days(inMonth m: Int, year y: Int) -> Int {
            switch m {
            case 2: (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
            case 4, 6, 9, 11: 30
            default: 31
            }
        }

        /// The key's order is the calendar's.
        var key: UInt32 { UInt32(year * 10_000 + month * 100 + day) }

        init(key: UInt32) throws {
            try self.init(year: Int(key / 10_000), month: Int(key / 100 % 100), day: Int(key % 100))
        }

        public static func < (a: Day, b: Day) -> Bool { a.key < b.key }
        public var description: String {
            func pad(_ n: Int, _ w: Int) -> String { String(repeating: "0", count: max(0, w - String(n).count)) + String(n) }
            return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
        }
    }

    public var day: Day
    /// Kilocalories.
    public var activeEnergyBurned: Double?
    public var activeEnergyBurnedGoal: Double?
    /// Minutes (the move ring in `appleMoveTime` mode).
    public var appleMoveTime: Double?
    public var appleMoveTimeGoal: Double?
    /// Minutes.
    public var appleExerciseTime: Double?
    public var exerciseTimeGoal: Double?
    /// Hours with a stand (a count).
    public var appleStandHours: Double?
    public var standHoursGoal: Double?
    public var moveMode: MoveMode
    /// The user paused their rings that day.
    public var isPaused: Bool

    /// A day's summary; each value nil where the day has none.
    public init(day: Day, activeEnergyBurned: Double? = nil, activeEnergyBurnedGoal: Double? = nil,
                appleMoveTime: Double? = nil, appleMoveTimeGoal: Double? = nil,
                appleExerciseTime: Double? = nil, exerciseTimeGoal: Double? = nil,
                appleStandHours: Double? = nil, standHoursGoal: Double? = nil,
                moveMode: MoveMode = .activeEnergy, isPaused: Bool = false) {
        self.day = day
        self.activeEnergyBurned = activeEnergyBurned
        self.activeEnergyBurnedGoal = activeEnergyBurnedGoal
        self.appleMoveTime = appleMoveTime
        self.appleMoveTimeGoal = appleMoveTimeGoal
        self.appleExerciseTime = appleExerciseTime
        self.exerciseTimeGoal = exerciseTimeGoal
        self.appleStandHours = appleStandHours
        self.standHoursGoal = standHoursGoal
        self.moveMode = moveMode
        self.isPaused = isPaused
    }

    /// The eight values in stored order: energy and its goal, move time
    /// and its goal, exercise time and its goal, stand hours and its goal.
    public var values: [Double?] {
        [activeEnergyBurned, activeEnergyBurnedGoal, appleMoveTime, appleMoveTimeGoal, appleExerciseTime,
         exerciseTimeGoal, appleStandHours, standHoursGoal]
    }

    /// What a save refuses (rule 43): a value that is negative or not finite.
    func validate() throws {
        for v in values.compactMap({ $0 }) where !(v.isFinite && v >= 0) {
            throw OHKError(.invalidValue, "the activity summary of \(day): a value of \(v); values are finite and not negative")
        }
    }
}

/// An activity summary's stored form (the `activity` tree's value): the
/// change sequence that last wrote it, a version, the move mode, the
/// paused flag, then the eight values (NaN when absent).
enum ActivitySummaryCodec {
    static let version: UInt8 = 1

    static func encode(_ a: ActivitySummary, sequence: UInt64) -> [UInt8] {
        var w = ByteWriter(capacity: size)
        w.u64(sequence)
        w.u8(version)
        w.u8(a.moveMode.rawValue)
        w.u8(a.isPaused ? 1 : 0)
        for v in a.values { w.f64(v ?? .nan) }
        return w.bytes
    }

    static let size = 8 + 3 + 8 * 8

    /// The sequence alone (a changes scan skips the rest).
    static func sequence(_ raw: UnsafeRawBufferPointer) throws -> UInt64 {
        guard raw.count == size else { throw OHKError(.storeCorrupt, "a corrupt activity summary (\(raw.count) bytes)") }
        var r = ByteReader(raw)
        return try r.u64()
    }

    static func decode(_ raw: UnsafeRawBufferPointer, day: ActivitySummary.Day) throws -> ActivitySummary {
        guard raw.count == size else { throw OHKError(.storeCorrupt, "a corrupt activity summary of \(day) (\(raw.count) bytes)") }
        var r = ByteReader(raw)
        _ = try r.u64()
        guard try r.u8() == version, let mode = ActivitySummary.MoveMode(rawValue: try r.u8()) else {
            throw OHKError(.storeCorrupt, "a corrupt activity summary of \(day)")
        }
        let paused = try r.u8() != 0
        var v: [Double?] = []
        for _ in 0..<8 {
            let x = try r.f64()
            v.append(x.isNaN ? nil : x)
        }
        return ActivitySummary(day: day, activeEnergyBurned: v[0], activeEnergyBurnedGoal: v[1], appleMoveTime: v[2],
                               appleMoveTimeGoal: v[3], appleExerciseTime: v[4], exerciseTimeGoal: v[5],
                               appleStandHours: v[6], standHoursGoal: v[7], moveMode: mode, isPaused: paused)
    }
}
