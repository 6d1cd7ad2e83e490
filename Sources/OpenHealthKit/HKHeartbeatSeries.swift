import Foundation
import OpenHealthKitCore

/// A heartbeat series (rule 39), read from the store: its beats come
/// through `HKHeartbeatSeriesQuery`. Series come from imports (an export's
/// heart-rate-variability beat lists) and from the core's saves.
public final class HKHeartbeatSeriesSample: HKSeriesSample, @unchecked Sendable {
    let beats: [HeartbeatSeries.Beat]

    init(_ h: HeartbeatSeries, type: HKSampleType, start: Date, end: Date, uuid: UUID, sourceRevision: HKSourceRevision,
         device: HKDevice?, metadata: ObjectMetadata, creationDate: Date?, utcOffset: Int?) {
        beats = h.beats
        super.init(count: h.beats.count, type: type, start: start, end: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata, creationDate: creationDate, utcOffset: utcOffset)
    }
}

/// HKHeartbeatSeriesQuery: a series' beats in time order, one handler
/// call each (the time since the series' start, whether a gap came before
/// it), the last with `done` true. The handler runs on a background queue.
public final class HKHeartbeatSeriesQuery: HKQuery, @unchecked Sendable {
    public typealias DataHandler = @Sendable (HKHeartbeatSeriesQuery, TimeInterval, Bool, Bool, (any Error)?) -> Void

    private let series: HKHeartbeatSeriesSample
    private let handler: DataHandler

    /// The beats of `heartbeatSeries`, one `dataHandler` call each.
    public init(heartbeatSeries: HKHeartbeatSeriesSample, dataHandler: @escaping DataHandler) {
        series = heartbeatSeries
        handler = dataHandler
        super.init(descriptors: [HKQueryDescriptor(sampleType: heartbeatSeries.sampleType, predicate: nil)])
    }

    override func coreQuery(_ descriptors: [QueryDescriptor], on store: HKHealthStore) throws(HKError) -> LiveQuery? {
        let beats = series.beats, handler = self.handler
        Self.onBackground {
            // Stopped (HKHealthStore.stop), the query calls nothing more.
            for (k, b) in beats.enumerated() where !self.isStopped {
                handler(self, b.timeSinceStart, b.precededByGap, k == beats.count - 1, nil)
            }
        }
        return nil
    }

    override func refuse(_ error: HKError) {
        let handler = self.handler
        Self.onBackground { handler(self, 0, false, true, error) }
    }
}

/// HKHeartbeatSeriesQueryDescriptor: a series' beats for Swift
/// concurrency, as one array.
public struct HKHeartbeatSeriesQueryDescriptor: Sendable {
    public struct Heartbeat: Hashable, Sendable {
        public let timeIntervalSinceStart: TimeInterval
        public let precededByGap: Bool
    }

    public let sample: HKHeartbeatSeriesSample

    /// The beats of `sample`.
    public init(_ sample: HKHeartbeatSeriesSample) { self.sample = sample }

    /// Every beat, in time order.
    nonisolated(nonsending)
    public func result(for healthStore: HKHealthStore) async throws -> [Heartbeat] {
        _ = try healthStore.core()
        return sample.beats.map { Heartbeat(timeIntervalSinceStart: $0.timeSinceStart, precededByGap: $0.precededByGap) }
    }
}
