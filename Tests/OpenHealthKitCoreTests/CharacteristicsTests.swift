import FoundationEssentials
@testable import OpenHealthKitCore
import Testing

/// The person's characteristics (rule 38): values of the store, not
/// samples.
@Suite struct CharacteristicsTests {
    @Test func rule38_characteristicsAreValuesOfTheStoreThatOutliveIt() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        #expect(try store.characteristics() == Characteristics())  // nothing set: every one notSet
        let anchor = try store.currentAnchor()
        let me = Characteristics(dateOfBirth: try .init(year: 2000, month: 2, day: 29), biologicalSex: .female,
                                 bloodType: .abNegative, fitzpatrickSkinType: .VI, wheelchairUse: .yes)
        try store.setCharacteristics(me)
        // Not a change of samples: the anchor does not move.
        #expect(try store.currentAnchor() == anchor)
        store.close()
        store = try makeStore(directory: dir)
        defer { store.close() }
        #expect(try store.characteristics() == me)
        try store.setCharacteristics(Characteristics())
        #expect(try store.characteristics().isEmpty)
    }

    @Test func rule38_valuesKeepHealthKitsNumbersAndNames() throws {
        #expect(Characteristics.BiologicalSex.other.rawValue == 3 && Characteristics.BloodType.oNegative.rawValue == 8)
        #expect(Characteristics.FitzpatrickSkinType.VI.rawValue == 6 && Characteristics.WheelchairUse.yes.rawValue == 2)
        for names in [Characteristics.biologicalSexNames.count, Characteristics.bloodTypeNames.count,
                      Characteristics.skinTypeNames.count, Characteristics.wheelchairUseNames.count] {
            #expect(names >= 3)
        }
        #expect(Characteristics.biologicalSexNames.count == Characteristics.BiologicalSex.allCases.count)
        #expect(Characteristics.bloodTypeNames.count == Characteristics.BloodType.allCases.count)
        let c = try Characteristics(exportAttributes: [("HKCharacteristicTypeIdentifierBloodType", "HKBloodTypeABPositive"),
                                                       ("HKCharacteristicTypeIdentifierDateOfBirth", "0999-01-31"),
                                                       ("HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse", "None")])
        #expect(c.bloodType == .abPositive && c.dateOfBirth?.text == "0999-01-31" && c.biologicalSex == .notSet)
        // What is not a date or not one of HealthKit's values is refused.
        for bad in [("HKCharacteristicTypeIdentifierDateOfBirth", "2001-02-29"), ("HKCharacteristicTypeIdentifierDateOfBirth", "May 4"),
                    ("HKCharacteristicTypeIdentifierBiologicalSex", "female")] {
            #expect(throws: OHKError.self) { try Characteristics(exportAttributes: [bad]) }
        }
        #expect(throws: OHKError.self) { try Characteristics.DateOfBirth(year: 0, month: 1, day: 1) }
    }
}
