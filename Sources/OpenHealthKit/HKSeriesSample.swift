import Foundation

/// HealthKit's `HKSeriesSample`: a sample that holds a series, read with
/// its own query (a workout route's locations, a heartbeat series'
/// beats). Code that handles either through the base class works as on
/// Apple's platforms.
public class HKSeriesSample: HKSample, @unchecked Sendable {
    /// How many items the series holds.
    public let count: Int

    init(count: Int, type: HKSampleType, start: Date, end: Date, uuid: UUID, sourceRevision: HKSourceRevision,
         device: HKDevice?, metadata: ObjectMetadata, creationDate: Date?, utcOffset: Int?) {
        self.count = count
        super.init(type: type, start: start, end: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata, creationDate: creationDate, utcOffset: utcOffset)
    }
}
