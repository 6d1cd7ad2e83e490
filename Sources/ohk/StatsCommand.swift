#if CommandLineTool
import ArgumentParser
import FoundationEssentials
import OpenHealthKitCore
import OpenHealthKitJSON

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Summarise the store, or one type's figures per day, hour, week, month.",
        discussion: """
        Without a type: samples and deleted objects per type, sources, the
        person's characteristics (an export's <Me>), and the current anchor,
        where `ohk changes --since` starts to see only what changes from now
        on.

        With a quantity type: HealthKit's statistics per interval, sources
        merged by priority (the walk both the phone and the watch recorded
        counts once): a sum for cumulative types, an average for discrete
        ones, or the figures asked for. Intervals are counted in one zone,
        as HealthKit counts in its calendar's: this machine's (TZ, else
        /etc/localtime), or --tz, or a fixed --utc-offset; each printed
        start names its instant (2020-11-02T10:00:00+01:00). With
        --local-time each sample counts in its own local day instead
        (imports keep each record's UTC offset), and starts are printed as
        wall-clock times without an offset.

        --from and --to take a day or a date-time. A day is the whole day
        in the query's time: --to 2020-11-30 includes the 30th. A date-time
        with Z or an offset is that instant (--to's is excluded); one
        without is read in the query's time. Intervals start at --from
        (a week from a Sunday runs Sunday to Saturday), else at the
        boundary before the first sample: midnight, Monday, the 1st.

        With a category type: the hours each value covers per interval,
        sources merged by priority; SleepAnalysis by day is by night, noon
        to noon, filed under the day the night ends.

        With Workout: workouts per interval by their start, with their
        minutes, kilometres and kilocalories, each counted once: of likely
        duplicates (same activity, start, end and totals, as an app that
        wrote them again leaves), the one created first.

        Examples:
          ohk stats
          ohk stats --json
          ohk stats StepCount --by day --from 2024-03-01 --to 2024-03-08
          ohk stats HeartRate --by hour --min --max --unit count/min --format csv
          ohk stats StepCount --by month --by-source
          ohk stats StepCount --by day --tz Europe/Paris
          ohk stats StepCount --by day --local-time --from 2020-11-01 --to 2020-11-30
          ohk stats Workout --by month
          ohk stats SleepAnalysis --from 2020-11-01 --to 2020-11-30 --tz Europe/Paris
        """
    )

    @OptionGroup var location: StoreLocation

    @Argument(help: "A quantity type (StepCount or HKQuantityTypeIdentifierStepCount) for its figures per interval, a category type (SleepAnalysis), or Workout.")
    var type: String?

    @Option(help: "The interval: hour, day, week, month or year, or N units (2day).")
    var by = "day"

    @Option(help: "The first day or date-time (ISO 8601); default: the type's first sample.")
    var from: String?

    @Option(help: "The last day, included, or the date-time where intervals stop; default: the type's last sample.")
    var to: String?

    @Option(help: "A time zone (Europe/Paris): intervals follow its calendar, 23 or 25 hours when clocks change; default: this machine's.")
    var tz: String?

    @Option(name: .customLong("utc-offset"), parsing: .unconditional,
            help: "A fixed offset to count in instead of a zone (+01:00, -08:00); with --local-time, that of samples without their own.")
    var utcOffset: String?

    @Flag(name: .customLong("local-time"), help: "Count each sample in its own UTC offset; starts are wall-clock times.")
    var localTime = false

    @Option(help: "The unit of the figures (count/min, kg, km).")
    var unit: String?

    @Flag(help: "The sum (cumulative types).") var sum = false
    @Flag(help: "The average (discrete types).") var average = false
    @Flag(help: "The minimum (discrete types).") var min = false
    @Flag(help: "The maximum (discrete types).") var max = false
    @Flag(name: .customLong("most-recent"), help: "The latest value.") var mostRecent = false
    @Flag(help: "The time the samples cover, in seconds.") var duration = false
    @Flag(name: .customLong("by-source"), help: "Each source's own figures too, unmerged.") var bySource = false

    @Option(help: "table, csv or json.")
    var format: OutputFormat = .table

    enum OutputFormat: String, ExpressibleByArgument { case table, csv, json }

    @Flag(help: "Print JSON (the summary): the same as --format json.")
    var json = false

    func run() throws {
        try reportingErrors {
            let store = try location.open()
            defer { store.close() }
            if let type {
                // The time arguments' errors are usage errors (exit 64), as before they moved.
                do { return try intervals(type, store) } catch let e as StatsTimeError { throw ValidationError(e.message) }
            }
            let s = try store.counts()
            if format == .csv {
                // One row per type, as the table has it.
                print("type,samples,deleted,first,last,sources")
                for t in s.types {
                    let span = try TypeSpan(t.type, store)
                    print([TypeCatalogue.shortName(t.type), "\(t.samples)", "\(t.deletedObjects)",
                           span.map { OutputText.time($0.first) } ?? "", span.map { OutputText.time($0.last) } ?? "",
                           span?.sources.joined(separator: ";") ?? ""].map(StatsByInterval.csvField).joined(separator: ","))
                }
                return
            }
            if json || format == .json {
                var types = JSONObject()
                for t in s.types {
                    var o = JSONObject()
                    o.add("samples", int: t.samples)
                    o.add("deletedObjects", int: t.deletedObjects)
                    if t.type == TypeCatalogue.workoutType { o.add("likelyDuplicates", int: try likelyDuplicateWorkouts(store) ?? 0) }
                    if let span = try TypeSpan(t.type, store) {
                        o.add("first", OutputText.time(span.first))
                        o.add("last", OutputText.time(span.last))
                        o.add("sources", raw: JSONObject.array(span.sources.map { JSONObject.quoted($0) }))
                    }
                    types.add(t.type.identifier, object: o)
                }
                var o = JSONObject()
                o.add("store", store.directory)
                o.add("samples", int: s.samples)
                o.add("deletedObjects", int: s.deletedObjects)
                o.add("sources", int: s.sources)
                o.add("devices", int: s.devices)
                o.add("types", object: types)
                o.add("characteristics", object: CharacteristicsText.json(try store.characteristics()))
                o.add("anchor", s.anchor.base64)
                print(o.closed)
                return
            }
            print("store \(store.directory)")
            print("  \(s.samples) samples, \(s.deletedObjects) deleted objects, \(s.types.count) types, \(s.sources) sources, \(s.devices) devices")
            let width = s.types.map { TypeCatalogue.shortName($0.type).count }.max() ?? 0
            for t in s.types {
                let name = TypeCatalogue.shortName(t.type)
                var line = "  \(name)" + String(repeating: " ", count: width - name.count) + "  \(t.samples)"
                    + (t.deletedObjects > 0 ? " (+\(t.deletedObjects) deleted)" : "")
                if t.type == TypeCatalogue.workoutType, let copies = try likelyDuplicateWorkouts(store), copies > 0 {
                    line += " (\(copies) likely duplicates)"
                }
                if let span = try TypeSpan(t.type, store) {
                    let shown = span.sources.prefix(3).joined(separator: ", ")
                    line += "  \(OutputText.time(span.first)) to \(OutputText.time(span.last))  \(shown)"
                        + (span.sources.count > 3 ? " and \(span.sources.count - 3) more" : "")
                }
                print(line)
            }
            let me = try store.characteristics()
            if !me.isEmpty { print("characteristics  \(CharacteristicsText.line(me))") }
            print("anchor \(s.anchor.base64)")
        }
    }

    private func intervals(_ name: String, _ store: Store) throws {
        let t = try sampleType(name, in: store)
        if t == TypeCatalogue.workoutType {
            return try WorkoutStats(interval: try StatsTime.interval(by), from: from, to: to, time: try statsTime(),
                                    format: json ? .json : format).run(store)
        }
        if case .category = t.kind {
            guard !(sum || average || min || max || mostRecent || bySource) else {
                throw ValidationError("\(TypeCatalogue.shortName(t)) is a category type: its statistics are the time each value covers")
            }
            return try CategoryStats(type: t, interval: try StatsTime.interval(by), from: from, to: to, time: try statsTime(),
                                     format: json ? .json : format).run(store)
        }
        guard case .quantity(_, let style) = t.kind else {
            throw ValidationError("\(TypeCatalogue.shortName(t)) is a \(t.kindName) type: statistics are of quantity types")
        }
        var options: StatisticsOptions = []
        if sum { options.insert(.cumulativeSum) }
        if average { options.insert(.discreteAverage) }
        if min { options.insert(.discreteMin) }
        if max { options.insert(.discreteMax) }
        if mostRecent { options.insert(.mostRecent) }
        if duration { options.insert(.duration) }
        if options.isEmpty { options = style == .cumulative ? .cumulativeSum : .discreteAverage }
        if bySource { options.insert(.separateBySource) }
        let u = try unit.map { try HealthUnit($0) }
        if let u, !u.isCompatible(with: t.canonicalUnit!) {
            throw ValidationError("unit '\(u)' does not measure \(TypeCatalogue.shortName(t)) (\(t.canonicalUnit!))")
        }
        try StatsByInterval(type: t, options: options, interval: try StatsTime.interval(by), from: from, to: to,
                            time: try statsTime(), unit: u, format: json ? .json : format).run(store)
    }

    /// Workouts that likely copy another (rule 57); nil without workouts.
    private func likelyDuplicateWorkouts(_ store: Store) throws -> Int? {
        let all = try store.anchoredQuery([QueryDescriptor(type: TypeCatalogue.workoutType)], anchor: nil).samples
        return all.isEmpty ? nil : WorkoutDuplicates.originals(all).compactMap { $0 }.count
    }

    /// The time intervals are counted in, from --tz, --utc-offset and --local-time.
    private func statsTime() throws -> StatsTime {
        try StatsTime.make(tz: tz, utcOffset: utcOffset, localTime: localTime) {
            StatsTime.machineZone().map(StatsTime.zone) ?? .offset(0)
        }
    }
}

#endif
