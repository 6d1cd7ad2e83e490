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
/// dBHL where it was tested, and (iOS 18.1's form) each ear's test with
/// its masking and clamping range.
public final class HKAudiogramSensitivityPoint: NSObject, @unchecked Sendable {
    public let frequency: HKQuantity
    public let leftEarSensitivity: HKQuantity?
    public let rightEarSensitivity: HKQuantity?
    /// One test per ear tested, left first (air conduction: what exports hold).
    public let tests: [HKAudiogramSensitivityTest]

    init(_ p: Audiogram.Point) {
        frequency = HKQuantity(unit: .hertz(), doubleValue: p.frequency)
        leftEarSensitivity = p.left.map { HKQuantity(unit: .decibelHearingLevel(), doubleValue: $0.sensitivity) }
        rightEarSensitivity = p.right.map { HKQuantity(unit: .decibelHearingLevel(), doubleValue: $0.sensitivity) }
        tests = [(p.left, HKAudiogramSensitivityTestSide.left), (p.right, .right)].compactMap { ear, side in
            ear.map { HKAudiogramSensitivityTest($0, side: side) }
        }
        super.init()
    }
}

/// How a sensitivity test's sound reached the ear (HealthKit's
/// `HKAudiogramConductionType`, its raw values).
public enum HKAudiogramConductionType: Int, Sendable {
    case air = 0
}

/// The ear a sensitivity test tested (`HKAudiogramSensitivityTestSide`).
public enum HKAudiogramSensitivityTestSide: Int, Sendable {
    case left = 0
    case right = 1
}

/// The range a test's hearing level may have been clamped to
/// (`HKAudiogramSensitivityPointClampingRange`): either bound in dBHL,
/// nil where open.
public final class HKAudiogramSensitivityPointClampingRange: NSObject, @unchecked Sendable {
    public let lowerBound: HKQuantity?
    public let upperBound: HKQuantity?

    init(_ r: Audiogram.ClampingRange) {
        lowerBound = r.lowerBound.map { HKQuantity(unit: .decibelHearingLevel(), doubleValue: $0) }
        upperBound = r.upperBound.map { HKQuantity(unit: .decibelHearingLevel(), doubleValue: $0) }
        super.init()
    }
}

/// One ear's test at a frequency (`HKAudiogramSensitivityTest`).
/// `masked` is false where the source did not say.
public final class HKAudiogramSensitivityTest: NSObject, @unchecked Sendable {
    public let sensitivity: HKQuantity
    public let type: HKAudiogramConductionType
    public let masked: Bool
    public let side: HKAudiogramSensitivityTestSide
    public let clampingRange: HKAudiogramSensitivityPointClampingRange?

    init(_ ear: Audiogram.Ear, side: HKAudiogramSensitivityTestSide) {
        sensitivity = HKQuantity(unit: .decibelHearingLevel(), doubleValue: ear.sensitivity)
        type = .air
        masked = ear.masked ?? false
        self.side = side
        clampingRange = ear.clampingRange.map(HKAudiogramSensitivityPointClampingRange.init)
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
