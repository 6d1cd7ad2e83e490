import Foundation
import OpenHealthKitCore

/// The electrocardiogram type (`HKObjectType.electrocardiogramType()`).
public final class HKElectrocardiogramType: HKSampleType, @unchecked Sendable {
    override func checkKind(_ type: SampleType) throws(HKError) -> SampleType {
        guard type.kind == .electrocardiogram else { throw .invalid("\(identifier) is not the electrocardiogram type") }
        return type
    }
}

extension HKObjectType {
    /// HealthKit's one electrocardiogram type.
    public class func electrocardiogramType() -> HKElectrocardiogramType {
        HKElectrocardiogramType(identifier: TypeCatalogue.electrocardiogramIdentifier, known: TypeCatalogue.electrocardiogramType)
    }
}

/// An electrocardiogram (rule 41), read from the store: its
/// classification, symptoms status and average heart rate; its voltages
/// come through `HKElectrocardiogramQuery`. Recordings come from imports
/// (an export's `electrocardiograms/*.csv`) and from the core's and C's
/// saves.
public final class HKElectrocardiogram: HKSample, @unchecked Sendable {

    /// One voltage and when it was measured.
    public struct VoltageMeasurement: Sendable {
        /// Seconds since the sample's start.
        public let timeSinceSampleStart: TimeInterval
        let microvolts: Double
        let lead: Lead

        /// The voltage on `lead` (in volts, as HealthKit gives it, made
        /// from microvolts); nil for a lead not recorded.
        public func quantity(for lead: Lead) -> HKQuantity? {
            lead == self.lead ? HKQuantity(unit: .voltUnit(with: .micro), doubleValue: microvolts) : nil
        }
    }

    public let classification: Classification
    public let symptomsStatus: SymptomsStatus
    /// In count/min; nil when the recording has none.
    public let averageHeartRate: HKQuantity?
    /// In hertz; nil for a recording without voltages.
    public let samplingFrequency: HKQuantity?
    public var numberOfVoltageMeasurements: Int { ecg.voltages.count }
    let ecg: Electrocardiogram

    init(_ e: Electrocardiogram, type: HKSampleType, start: Date, end: Date, uuid: UUID, sourceRevision: HKSourceRevision,
         device: HKDevice?, metadata: ObjectMetadata, creationDate: Date?, utcOffset: Int?) {
        ecg = e
        classification = Classification(rawValue: Int(e.classification.rawValue)) ?? .unrecognized
        symptomsStatus = SymptomsStatus(rawValue: Int(e.symptomsStatus.rawValue)) ?? .notSet
        averageHeartRate = e.averageHeartRate.map { HKQuantity(unit: HKUnit.count().unitDivided(by: .minute()), doubleValue: $0) }
        samplingFrequency = e.samplingFrequency.map { HKQuantity(unit: .hertz(), doubleValue: $0) }
        super.init(type: type, start: start, end: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata, creationDate: creationDate, utcOffset: utcOffset)
    }

    /// The k-th measurement.
    func measurement(_ k: Int) -> VoltageMeasurement {
        VoltageMeasurement(timeSinceSampleStart: ecg.timeSinceSampleStart(k), microvolts: ecg.voltages[k],
                           lead: Lead(rawValue: Int(ecg.lead.rawValue)) ?? .appleWatchSimilarToLeadI)
    }
}

/// HKElectrocardiogramQuery: a recording's voltages in time order, one
/// handler call each, then `.done`. The handler runs on a background
/// queue.
public final class HKElectrocardiogramQuery: HKQuery, @unchecked Sendable {
    /// What each handler call brings.
    public enum Result: Sendable {
        case measurement(HKElectrocardiogram.VoltageMeasurement)
        case done
        case error(any Error)
    }

    public typealias DataHandler = @Sendable (HKElectrocardiogramQuery, Result) -> Void

    private let recording: HKElectrocardiogram
    private let handler: DataHandler

    /// The voltages of `electrocardiogram`, one `dataHandler` call each.
    public init(_ electrocardiogram: HKElectrocardiogram, dataHandler: @escaping DataHandler) {
        recording = electrocardiogram
        handler = dataHandler
        super.init(descriptors: [HKQueryDescriptor(sampleType: electrocardiogram.sampleType, predicate: nil)])
    }

    override func coreQuery(_ descriptors: [QueryDescriptor], on store: HKHealthStore) throws(HKError) -> LiveQuery? {
        let recording = self.recording, handler = self.handler
        Self.onBackground {
            // Stopped (HKHealthStore.stop), the query calls nothing more.
            for k in 0..<recording.numberOfVoltageMeasurements {
                guard !self.isStopped else { return }
                handler(self, .measurement(recording.measurement(k)))
            }
            if !self.isStopped { handler(self, .done) }
        }
        return nil
    }

    override func refuse(_ error: HKError) {
        let handler = self.handler
        Self.onBackground { handler(self, .error(error)) }
    }
}

/// HKElectrocardiogramQueryDescriptor: a recording's voltages for Swift
/// concurrency, as an asynchronous sequence.
public struct HKElectrocardiogramQueryDescriptor: Sendable {
    public let electrocardiogram: HKElectrocardiogram

    /// The voltages of `electrocardiogram`.
    public init(_ electrocardiogram: HKElectrocardiogram) { self.electrocardiogram = electrocardiogram }

    /// Every measurement, in time order; a store that cannot be used
    /// ends the sequence with its error.
    public func results(for healthStore: HKHealthStore) -> AsyncThrowingStream<HKElectrocardiogram.VoltageMeasurement, any Error> {
        let recording = electrocardiogram
        return AsyncThrowingStream { continuation in
            do {
                _ = try healthStore.core()
            } catch {
                return continuation.finish(throwing: error)
            }
            for k in 0..<recording.numberOfVoltageMeasurements { continuation.yield(recording.measurement(k)) }
            continuation.finish()
        }
    }
}

extension HKQuery {
    /// Electrocardiograms of this classification (rule 41).
    public class func predicateForElectrocardiograms(classification: HKElectrocardiogram.Classification) -> NSPredicate {
        guard let raw = UInt8(exactly: classification.rawValue) else {
            return SamplesPredicate(refusing: "\(classification) is not a classification")
        }
        return SamplesPredicate(.electrocardiogram(.classification, [raw]))
    }

    /// Electrocardiograms of this symptoms status (rule 41).
    public class func predicateForElectrocardiograms(symptomsStatus: HKElectrocardiogram.SymptomsStatus) -> NSPredicate {
        guard let raw = UInt8(exactly: symptomsStatus.rawValue) else {
            return SamplesPredicate(refusing: "\(symptomsStatus) is not a symptoms status")
        }
        return SamplesPredicate(.electrocardiogram(.symptomsStatus, [raw]))
    }
}
