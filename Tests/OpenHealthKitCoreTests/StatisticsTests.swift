import FoundationEssentials
import Glibc
import Testing
@testable import OpenHealthKitCore

/// Statistics and statistics collections (rules 25–29).
@Suite struct StatisticsTests {
    // 2024-03-01T00:00:00Z, a midnight in UTC.
    private let midnight = Date(timeIntervalSinceReferenceDate: 730_944_000)
    private let watch = Source(bundleIdentifier: "com.apple.health.watch", name: "Ann's Apple Watch")
    private let phone = Source(bundleIdentifier: "com.apple.health.phone", name: "Ann's iPhone")
    private let srcA = Source(bundleIdentifier: "com.example.a", name: "Steps A")
    private let srcB = Source(bundleIdentifier: "com.example.b", name: "Steps B")
    private let distance = try! SampleType.named("HKQuantityTypeIdentifierDistanceWalkingRunning")
    private let noise = try! SampleType.named("HKQuantityTypeIdentifierEnvironmentalAudioExposure")

    private func at(_ hours: Double) -> Date { midnight.addingTimeInterval(hours * 3600) }

    private func walk(_ value: Double, _ from: Double, _ to: Double, _ source: Source, offset: Int? = nil) throws -> Sample {
        try Sample.quantity(steps, value: value, unit: HealthUnit("count"), start: at(from), end: at(to),
                            source: source, utcOffset: offset)
    }

    private func quantity(_ type: SampleType, _ value: Double, _ unit: String, _ from: Double, _ to: Double,
                          _ source: Source? = nil) throws -> Sample {
        try Sample.quantity(type, value: value, unit: HealthUnit(unit), start: at(from), end: at(to), source: source ?? srcA)
    }

    @Test func rule25_optionsMustFitTheTypesAggregationStyle() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.save([try walk(10, 8, 9, srcA), try quantity(heartRate, 60, "count/min", 8, 8)])
        let wrong: [(SampleType, StatisticsOptions)] = [
            (heartRate, .cumulativeSum), (steps, .discreteAverage), (steps, .discreteMin),
            (steps, [.cumulativeSum, .discreteMax]), (steps, .separateBySource),
        ]
        for (type, options) in wrong {
            #expect(throws: OHKError.self, "\(type.identifier) \(options.names)") {
                try store.statistics(type: type, options: options)
            }
        }
        do {
            _ = try store.statistics(type: heartRate, options: .cumulativeSum)
        } catch let e as OHKError {
            #expect(e.code == .invalidArgument && e.message.contains("cumulativeSum") && e.message.contains("HeartRate"))
        }
        #expect(throws: OHKError.self) { try store.statistics(type: sleep, options: .mostRecent) }
        // mostRecent, duration and separateBySource go with either style.
        #expect(try store.statistics(type: steps, options: [.cumulativeSum, .mostRecent, .duration, .separateBySource]) != nil)
        #expect(try store.statistics(type: heartRate, options: [.discreteAverage, .discreteMin, .discreteMax, .mostRecent,
                                                                .duration, .separateBySource]) != nil)
        // A figure not asked for is nil.
        let only = try #require(try store.statistics(type: heartRate, options: .discreteMax))
        #expect(only.maximum == 1 && only.average == nil && only.minimum == nil && only.mostRecent == nil)
    }

    /// The walk both the watch and the phone recorded counts once.
    @Test func rule26_overlappingSourcesMergeTheHigherWinsAndTheLowerFillsGaps() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.save([try walk(1000, 8, 9, watch), try walk(1200, 8.5, 9.5, phone)])
        let merged = try #require(try store.statistics(type: steps, options: [.cumulativeSum, .separateBySource]))
        // The watch's 1,000, and the phone's half hour the watch did not cover: 600.
        #expect(merged.sum == 1600)
        #expect(merged.bySource["com.apple.health.watch"]?.sum == 1000 && merged.bySource["com.apple.health.phone"]?.sum == 1200)
        #expect(merged.sources.map(\.bundleIdentifier) == ["com.apple.health.phone", "com.apple.health.watch"])
        #expect(merged.startDate == at(8) && merged.endDate == at(9.5))
        // A predicate applies before merging: without the watch, the phone's all.
        let phoneOnly = try store.statistics(type: steps, predicate: .sources([phone.bundleIdentifier]), options: .cumulativeSum)
        #expect(phoneOnly?.sum == 1200)
        // Within one source every sample counts, overlapping or not.
        try store.save([try walk(50, 8, 9, watch)])
        #expect(try store.statistics(type: steps, options: .cumulativeSum)?.sum == 1650)
        // Without statistics' merge a plain sum would count the walk twice: 2,250.
    }

    @Test func rule27_priorityIsKeptPerTypeWithTheDocumentedDefault() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        // Saved in this order: A, then B, then the phone, then the watch.
        // One step a minute (watch), 2 (phone), 3 (B), 4 (A), each from 08:00.
        try store.save([try walk(240, 8, 9, srcA)])
        try store.save([try walk(135, 8, 8.75, srcB)])
        try store.save([try walk(60, 8, 8.5, phone)])
        try store.save([try walk(15, 8, 8.25, watch)])
        // Watch, phone, then the newer app B above A: 15 + 30 + 45 + 60.
        #expect(try store.statistics(type: steps, options: .cumulativeSum)?.sum == 150)
        #expect(try store.sourcePriorityInForce(for: steps)
                == [watch, phone, srcB, srcA].map(\.bundleIdentifier))
        // A first, then the default for the rest: all of A's 240.
        try store.setSourcePriority([srcA.bundleIdentifier], for: steps)
        #expect(try store.statistics(type: steps, options: .cumulativeSum)?.sum == 240)
        #expect(try store.sourcePriorityInForce(for: steps)
                == [srcA, watch, phone, srcB].map(\.bundleIdentifier))
        #expect(try store.sourcePriorityInForce(for: distance).isEmpty)  // no samples, nothing set
        // B, then the phone, then the watch, then A.
        try store.setSourcePriority([srcB.bundleIdentifier, phone.bundleIdentifier, watch.bundleIdentifier], for: steps)
        #expect(try store.statistics(type: steps, options: .cumulativeSum)?.sum == 135 + 60)
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.sourcePriority(for: steps) == [srcB.bundleIdentifier, phone.bundleIdentifier, watch.bundleIdentifier])
        #expect(try store.sourcePriority(for: distance).isEmpty)  // per type
        #expect(throws: OHKError.self) { try store.setSourcePriority(["a", "a"], for: steps) }
        #expect(throws: OHKError.self) { try store.setSourcePriority([""], for: steps) }
        try store.setSourcePriority([], for: steps)
        #expect(try store.sourcePriority(for: steps).isEmpty)
        #expect(try store.statistics(type: steps, options: .cumulativeSum)?.sum == 150)
        #expect(try store.verify().isClean)
    }

    @Test func rule28_intervalsAreInstantsOfOneZoneAndSumsAreProrated() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.save([
            try walk(120, -1, 1, srcA),           // 23:00–01:00 UTC: half to each day
            try walk(7, 24, 24, srcA),            // an instant at the next midnight: the new day
            try walk(30, 7 + 8, 8 + 8, srcA, offset: -8 * 3600),  // 15:00 UTC, whatever its own offset
            try walk(5, 23.5, 23.75, srcA, offset: 2 * 3600),     // 23:30 UTC, 01:30 the next day at UTC+2
        ])
        let days = try store.statisticsCollection(type: steps, options: .cumulativeSum, anchor: midnight, interval: .day,
                                                  from: at(-24), to: at(72))
        #expect(days.map(\.startDate) == [at(-24), at(0), at(24), at(48)])
        #expect(days.map(\.endDate) == [at(0), at(24), at(48), at(72)] && !days.contains { $0.isLocalTime })
        #expect(days.map(\.sum) == [60, 60 + 30 + 5, 7, nil])
        #expect(days[3].values.isEmpty && days.map(\.values.count) == [1, 3, 1, nil])
        // In UTC+1 the day starts at 23:00 UTC, and its dates say so.
        let shifted = try store.statisticsCollection(type: steps, options: .cumulativeSum, anchor: at(-1), interval: .day,
                                                     from: at(0), to: at(22), utcOffset: 3600)
        #expect(shifted.map(\.startDate) == [at(-1)] && shifted.map(\.endDate) == [at(23)])
        #expect(abs(try #require(shifted[0].sum) - 150) < 1e-9)
        // Hours: 23:00–01:00 is 60 and 60.
        let hours = try store.statisticsCollection(type: steps, options: .cumulativeSum, anchor: midnight, interval: .hour,
                                                   from: at(-1), to: at(1))
        #expect(hours.map(\.sum) == [60, 60])
        // An interval counts all its samples, however far past `to` it ends:
        // March's sum from a window of its first instant holds March 20.
        try store.save([try walk(9, 19 * 24 + 12, 19 * 24 + 13, srcA)])
        let march = try store.statisticsCollection(type: steps, options: .cumulativeSum, anchor: midnight, interval: .month,
                                                   from: midnight, to: midnight)
        let marchSum = try #require(march.first?.sum)
        #expect(march.count == 1 && abs(marchSum - 111) < 1e-9)  // 60 + 30 + 7 + 5 + 9
        // Months keep the anchor's day, or the month's last.
        let jan31 = Date(timeIntervalSinceReferenceDate: 728_352_000)  // 2024-01-31
        #expect(StatisticsInterval.month.edge(1, from: jan31.timeIntervalSinceReferenceDate)
                == Date(timeIntervalSinceReferenceDate: 730_857_600).timeIntervalSinceReferenceDate)  // 2024-02-29
        #expect(StatisticsInterval.month.edge(2, from: jan31.timeIntervalSinceReferenceDate)
                == Date(timeIntervalSinceReferenceDate: 733_536_000).timeIntervalSinceReferenceDate)  // 2024-03-31
        #expect(StatisticsInterval.month.edge(-2, from: jan31.timeIntervalSinceReferenceDate)
                == Date(timeIntervalSinceReferenceDate: 722_995_200).timeIntervalSinceReferenceDate)  // 2023-11-30
        // A single statistics query counts matching samples whole; no match is nil.
        let whole = try store.statistics(type: steps, predicate: .dateRange(start: at(0), end: at(0.5), options: []),
                                         options: .cumulativeSum)
        #expect(whole?.sum == 120 && whole?.startDate == at(-1) && whole?.endDate == at(1))
        #expect(try store.statistics(type: distance, options: .cumulativeSum) == nil)
        #expect(throws: OHKError.self) {
            try store.statisticsCollection(type: steps, options: .cumulativeSum, anchor: midnight, interval: .day,
                                           from: at(10), to: at(0))
        }
    }

    /// Rule 28 with `.sampleLocalTime`: each sample in its own offset, one
    /// without in the query's; the intervals are wall-clock times, written
    /// as UTC, and say so.
    @Test func rule28_sampleLocalTimeCountsEachSampleInItsOwnOffset() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.save([
            try walk(120, -1, 1, srcA),           // no offset: the query's
            try walk(7, 24, 24, srcA),
            try walk(30, 7 + 8, 8 + 8, srcA, offset: -8 * 3600),  // 07:00 local at UTC−8: its own day (day 0)
            try walk(5, 23.5, 23.75, srcA, offset: 2 * 3600),     // 01:30 local at UTC+2: the next day
        ])
        let local: StatisticsOptions = [.cumulativeSum, .sampleLocalTime]
        let days = try store.statisticsCollection(type: steps, options: local, anchor: midnight, interval: .day,
                                                  from: at(-24), to: at(72))
        #expect(days.map(\.startDate) == [at(-24), at(0), at(24), at(48)] && days.allSatisfy(\.isLocalTime))
        #expect(days.map(\.sum) == [60, 60 + 30, 7 + 5, nil])
        // Samples without an offset take the query's; the dates are the local midnight, written as UTC.
        let shifted = try store.statisticsCollection(type: steps, options: local, anchor: at(-1), interval: .day,
                                                     from: at(0), to: at(22), utcOffset: 3600)
        #expect(shifted.map(\.startDate) == [at(0)] && shifted.map(\.endDate) == [at(24)])
        #expect(abs(try #require(shifted[0].sum) - 150) < 1e-9)
        // A named zone is one zone: it does not go with each sample's own offset.
        #expect(throws: OHKError.self) {
            try store.statisticsCollection(type: steps, options: local, anchor: midnight, interval: .day, from: at(0),
                                           to: at(24), timeZone: try ZoneRules("Europe/Paris"))
        }
    }

    /// Rule 28, the data person's case (issue 48): samples in offsets of
    /// +01:00, −05:00 and +05:30 (and none), collected hourly and daily in
    /// UTC, in those offsets and in Paris; every interval's figures equal a
    /// plain recomputation from the samples' UTC instants over the
    /// interval's own dates.
    @Test func rule28_reportedIntervalsNameTheInstantsTheyCover() throws {
        let store = try makeStore()
        defer { store.close() }
        var rng = TestSupport.Rng(state: 48)
        let offsets: [Int?] = [3600, -18_000, 19_800, nil]
        var samples: [Sample] = []
        for _ in 0..<400 {
            let start = Double(rng.int(72 * 60)) / 60 - 12, length = rng.chance(0.3) ? 0 : Double(rng.int(150)) / 60
            samples.append(try walk(Double(rng.int(300) + 1), start, start + length, srcA,
                                    offset: offsets[rng.int(offsets.count)]))
        }
        try store.save(samples)
        // Three heart rates at 09:54, 09:56 and 09:58 UTC, written at +01:00: the 09:00Z hour has them.
        try store.save(try [54.0, 56, 58].map { m in
            try Sample.quantity(heartRate, value: 60 + m, unit: HealthUnit("count/min"), start: at(9 + m / 60),
                                end: at(9 + m / 60), source: srcA, utcOffset: 3600)
        })
        let hr = try store.statisticsCollection(type: heartRate, options: .discreteAverage, anchor: at(5), interval: .hour,
                                                from: at(5), to: at(10))
        #expect(hr.map(\.startDate) == [at(5), at(6), at(7), at(8), at(9)])
        #expect(hr.prefix(4).allSatisfy { $0.average == nil } && abs((hr[4].average ?? 0) * 60 - 116) < 1e-9)
        // The plain sum over [a, b): each sample prorated by its UTC time, an instant whole where it falls.
        func plain(_ a: Date, _ b: Date) -> Double {
            samples.reduce(0) { sum, s in
                guard case .quantity(let value) = s.value else { return sum }
                let lo = max(s.startDate, a), hi = min(s.endDate, b)
                if s.startDate == s.endDate { return s.startDate >= a && s.startDate < b ? sum + value : sum }
                guard lo < hi else { return sum }
                return sum + value * hi.timeIntervalSince(lo) / s.endDate.timeIntervalSince(s.startDate)
            }
        }
        for kept in [false, true] {
            store.tuning.statisticsFromSamples = kept
            for (offset, zone) in [(0, nil), (3600, nil), (-18_000, nil), (19_800, nil), (0, try ZoneRules("Europe/Paris"))] {
                for interval in [StatisticsInterval.hour, .day, StatisticsInterval(6, .hour)] {
                    let stats = try store.statisticsCollection(type: steps, options: .cumulativeSum, anchor: at(-36),
                                                               interval: interval, from: at(-24), to: at(72),
                                                               utcOffset: offset, timeZone: zone)
                    #expect(stats.first!.startDate <= at(-24) && stats.last!.endDate >= at(72))
                    for (k, s) in stats.enumerated() {
                        if k > 0 { #expect(s.startDate == stats[k - 1].endDate) }
                        let want = plain(s.startDate, s.endDate)
                        #expect(abs((s.sum ?? 0) - want) < 1e-6 * max(1, want),
                                "\(interval) at \(offset) \(zone?.identifier ?? ""): \(s.startDate) \(s.sum ?? 0) vs \(want)")
                    }
                }
            }
        }
        store.tuning.statisticsFromSamples = false
    }

    @Test func rule29_averagesMinimumMaximumMostRecentAndDuration() throws {
        let store = try makeStore()
        defer { store.close() }
        // Heart rate is time-weighted: 60 for 10 minutes and 90 for 20 average 80, not 75.
        try store.save([try quantity(heartRate, 60, "count/min", 8, 8 + 1 / 6.0),
                        try quantity(heartRate, 90, "count/min", 9, 9 + 1 / 3.0)])
        let hr = try #require(try store.statistics(type: heartRate, options: [.discreteAverage, .discreteMin, .discreteMax]))
        #expect(abs(try #require(hr.average) * 60 - 80) < 1e-9)
        #expect(hr.minimum == 1 && hr.maximum == 1.5)
        // Instants only: the plain mean.
        let instants = try makeStore()
        defer { instants.close() }
        try instants.save([60, 80, 130].enumerated().map { try quantity(heartRate, $1, "count/min", Double($0), Double($0)) })
        #expect(abs(try #require(try instants.statistics(type: heartRate, options: .discreteAverage)?.average) * 60 - 90) < 1e-9)
        // Body mass is arithmetic: 70 for a day and 72 for a minute average 71.
        try store.save([try quantity(bodyMass, 70, "kg", 0, 24), try quantity(bodyMass, 72, "kg", 30, 30 + 1 / 60.0)])
        let mass = try #require(try store.statistics(type: bodyMass, options: .discreteAverage)?.average)
        #expect(abs(try bodyMass.canonicalUnit!.convert(mass, to: HealthUnit("kg")) - 71) < 1e-9)
        // Sound levels average as energies: 60 and 80 dB for equal times give 77.0 dB.
        try store.save([try quantity(noise, 60, "dBASPL", 8, 9), try quantity(noise, 80, "dBASPL", 9, 10)])
        let leq = try #require(try store.statistics(type: noise, options: .discreteAverage)?.average)
        #expect(abs(leq - 10 * log10((1e6 + 1e8) / 2)) < 1e-9)
        // The most recent sample ends last; its own interval is reported.
        let recent = try #require(try store.statistics(type: heartRate, options: .mostRecent))
        #expect(recent.mostRecent == 1.5 && recent.values.mostRecentStart == at(9) && recent.values.mostRecentEnd == at(9 + 1 / 3.0))
        // Duration is the union: 08:00–08:30 and 08:15–08:45 cover 45 minutes.
        try store.save([try walk(1, 8, 8.5, srcA), try walk(1, 8.25, 8.75, srcA)])
        #expect(try store.statistics(type: steps, options: .duration)?.duration == 45 * 60)
    }

    /// Rule 28 in a named zone: its calendar for every sample, DST days of
    /// 23 and 25 hours in two zones, and a skipped hour.
    @Test func rule28_aNamedTimeZonesDaysHave23Or25HoursWhenClocksChange() throws {
        let store = try makeStore()
        defer { store.close() }
        func utc(_ t: Double) -> Date { Date(timeIntervalSinceReferenceDate: t) }
        // 2024-03-31T22:30Z is 00:30 on April 1 in Paris (CEST), still March 31 in UTC.
        try store.save([try Sample.quantity(steps, value: 10, unit: HealthUnit("count"), start: utc(733_617_000),
                                            end: utc(733_617_000), source: srcA)])
        let paris = try ZoneRules("Europe/Paris")
        let days = try store.statisticsCollection(type: steps, options: .cumulativeSum, anchor: utc(733_446_000), interval: .day,
                                                  from: utc(733_446_000), to: utc(733_617_000), timeZone: paris)
        // Local midnights: March 30 (+01:00), March 31 (+01:00), April 1 (+02:00).
        #expect(days.map(\.startDate) == [utc(733_446_000), utc(733_532_400), utc(733_615_200)])
        #expect(days[1].endDate.timeIntervalSince(days[1].startDate) == 23 * 3600)
        #expect(days.map(\.sum) == [nil, nil, 10])
        // New York falls back on 2024-11-03: a day of 25 hours (04:00Z to 05:00Z the next day).
        let newYork = try ZoneRules("America/New_York")
        let fall = try store.statisticsCollection(type: steps, options: .cumulativeSum, anchor: utc(752_212_800),
                                                  interval: .day, from: utc(752_299_200), to: utc(752_299_200),
                                                  timeZone: newYork)
        #expect(fall.map(\.startDate) == [utc(752_299_200)] && fall[0].endDate == utc(752_389_200))
        // Paris skips 02:00–03:00 on March 31: the hours run 00:00, 01:00, then 03:00 local.
        let hours = try store.statisticsCollection(type: steps, options: .cumulativeSum, anchor: utc(733_532_400),
                                                   interval: .hour, from: utc(733_532_400), to: utc(733_543_200),
                                                   timeZone: paris)
        #expect(hours.map(\.startDate) == [utc(733_532_400), utc(733_536_000), utc(733_539_600)])
        #expect(hours.map { $0.endDate.timeIntervalSince($0.startDate) } == [3600, 3600, 3600])
        #expect(throws: OHKError.self) { try ZoneRules("Mars/Olympus_Mons") }
        #expect(throws: OHKError.self) { try ZoneRules("../../etc/passwd") }
        #expect(try ZoneRules("UTC").offset(atUnix: 0) == 0)
    }

    /// Deletions and replacements change the figures: a deleted sample
    /// no longer counts, a newer sync version replaces the older, and the
    /// most recent value falls back to the sample before a deleted one.
    @Test func rule26_29_deletionsAndReplacementsLowerSumsAndMoveTheMostRecent() throws {
        let store = try makeStore()
        defer { store.close() }
        let early = try walk(100, 8, 9, srcA), late = try walk(50, 10, 11, srcA)
        func synced(_ value: Double, _ version: Double) throws -> Sample {
            try Sample.quantity(steps, value: value, unit: HealthUnit("count"), start: at(12), end: at(13), source: srcA,
                                metadata: [MetadataKey.syncIdentifier: .string("s"), MetadataKey.syncVersion: .number(version)])
        }
        try store.save([early, late, try synced(30, 1)])
        #expect(try store.statistics(type: steps, options: .cumulativeSum)?.sum == 180)
        try store.save([try synced(20, 2)])  // replaces the 30
        #expect(try store.statistics(type: steps, options: .cumulativeSum)?.sum == 170)
        let recent = try #require(try store.statistics(type: steps, options: .mostRecent))
        #expect(recent.mostRecent == 20 && recent.values.mostRecentEnd == at(13))
        try store.delete(uuids: [early.uuid])
        #expect(try store.statistics(type: steps, options: .cumulativeSum)?.sum == 70)
        let replaced = try store.anchoredQuery(type: steps, anchor: nil).samples.first { $0.value == .quantity(20) }!
        try store.delete(uuids: [replaced.uuid])
        let after = try #require(try store.statistics(type: steps, options: [.mostRecent, .cumulativeSum]))
        #expect(after.mostRecent == 50 && after.values.mostRecentEnd == at(11) && after.sum == 50)
    }

    /// Two sources over exactly the same time: only the higher counts.
    @Test func rule26_fullyOverlappingSourcesCountOnce() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.save([try walk(900, 8, 9, phone), try walk(1000, 8, 9, watch)])
        #expect(try store.statistics(type: steps, options: .cumulativeSum)?.sum == 1000)
        try store.setSourcePriority([phone.bundleIdentifier], for: steps)
        #expect(try store.statistics(type: steps, options: .cumulativeSum)?.sum == 900)
    }

    /// Two revisions of one app (the same bundle) are one source of one
    /// priority: their overlapping samples both count, merged or kept.
    @Test func rule26_overlappingSamplesOfEqualPriorityBothCount() throws {
        let store = try makeStore()
        defer { store.close() }
        let v1 = Source(bundleIdentifier: "com.example.a", name: "Steps A", version: "1")
        let v2 = Source(bundleIdentifier: "com.example.a", name: "Steps A", version: "2")
        try store.save([try walk(300, 8, 9, v1), try walk(200, 8.5, 9.5, v2), try walk(100, 8.5, 9.5, watch)])
        #expect(try store.statistics(type: steps, options: .cumulativeSum)?.sum == 250)
        let day = try store.statisticsCollection(type: steps, options: [.cumulativeSum, .separateBySource], anchor: midnight,
                                                 interval: .day, from: midnight, to: midnight)
        // The watch's 100 counts whole; the app's two revisions fill 8:00-8:30 with
        // 300 × ½ and none of 8:30-9:30, which the watch covers: 250 in all.
        #expect(day[0].sum == 250 && day[0].bySource[srcA.bundleIdentifier]?.sum == 500)
        try store.setSourcePriority([srcA.bundleIdentifier], for: steps)
        // The app first: both revisions count whole (500), the watch fills nothing.
        #expect(try store.statisticsCollection(type: steps, options: .cumulativeSum, anchor: midnight, interval: .day,
                                               from: midnight, to: midnight)[0].sum == 500)
    }

    /// Rule 26 against a model: random samples of three sources on a grid
    /// of minutes; in each minute the highest-priority source with a sample
    /// there counts, each of its samples with its value spread evenly.
    @Test func rule26_mergedSumsMatchAMinuteByMinuteModel() {
        var rng = SplitMix(seed: 26)
        for _ in 0..<300 {
            let samples: [StatisticsSample] = (0..<Int(rng.next() % 8 + 1)).map { i in
                let start = Double(rng.next() % 30), length = Double(rng.next() % 10 + 1)
                let source = Int(rng.next() % 3)
                return StatisticsSample(start: start * 60, end: (start + length) * 60, value: Double(rng.next() % 100),
                                        rank: source, source: source, offset: 0, order: i)
            }
            var model = 0.0
            for minute in 0..<40 {
                let t = Double(minute) * 60 + 30
                let here = samples.filter { $0.start <= t && t < $0.end }
                guard let best = here.map(\.rank).min() else { continue }
                for s in here where s.rank == best { model += s.value / ((s.end - s.start) / 60) }
            }
            var acc = StatisticsAccumulator(options: .cumulativeSum, style: .cumulative, edges: [-.infinity, .infinity])
            for p in SourceMerge.pieces(samples) { acc.add(p.start, p.end, of: samples[p.sample], index: p.sample) }
            #expect(abs((acc.values(0).sum ?? 0) - model) < 1e-6, "\(samples)")
        }
    }
}
