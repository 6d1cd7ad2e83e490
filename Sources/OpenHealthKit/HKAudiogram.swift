import Foundation
import OpenHealthKitCore

/// The audiogram type (`HKObjectType.audiogramSampleType()`).
public final class HKAudiogramSampleType: HKSampleType, @unchecked Sendable {
    override func checkKind(_ type: SampleType) throws(HKError) -> SampleType {
        guard type.kind == .audiogram else { throw .invalid("\(identifier) is not the audiogram type") }
        return type
    }
}

extension HKObjectType {
    /// HealthKit's one audiogram type.
    public class func audiogramSampleType() -> HKAudiogramSampleType {
        HKAudiogramSampleType(identifier: TypeCatalogue.audiogramIdentifier, known: TypeCatalogue.audiogramType)
    }
}

/// One frequency of an audiogram (rule 40): each ear's hearing level in
/// dBHL where it was tested.
public final class HKAudiogramSensitivityPoint: NSObject, @unchecked Sendable {
    public let frequency: HKQuantity
    public let leftEarSensitivity: HKQuantity?
    public let rightEarSensitivity: HKQuantity?

    init(_ p: Audiogram.Point) {
        frequency = HKQuantity(unit: .hertz(), doubleValue: p.frequency)
        leftEarSensitivity = p.left.map { HKQuantity(unit: .decibelHearingLevel(), doubleValue: $0.sensitivity) }
        rightEarSensitivity = p.right.map { HKQuantity(unit: .decibelHearingLevel(), doubleValue: $0.sensitivity) }
        super.init()
    }
}

/// An audiogram (rule 40), read from the store: its sensitivity points in
/// order of frequency. Audiograms come from imports (an export's
/// `<Audiogram>`) and from the core's and C's saves.
public final class HKAudiogramSample: HKSample, @unchecked Sendable {
    public let sensitivityPoints: [HKAudiogramSensitivityPoint]

    init(_ a: Audiogram, type: HKSampleType, start: Date, end: Date, uuid: UUID, sourceRevision: HKSourceRevision,
         device: HKDevice?, metadata: ObjectMetadata, creationDate: Date?, utcOffset: Int?) {
        sensitivityPoints = a.points.map(HKAudiogramSensitivityPoint.init)
        super.init(type: type, start: start, end: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata, creationDate: creationDate, utcOffset: utcOffset)
    }
}
