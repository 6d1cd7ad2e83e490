// The person's characteristics through HealthKit's calls (rule 38).
import Foundation
@testable import OpenHealthKit
import OpenHealthKitCore
import Testing

@Suite struct CharacteristicsAPITests {
    @Test func rule38_healthKitsCharacteristicCallsReadTheStoresValues() throws {
        let store = try freshHealthStore()
        // Nothing set: the enums read notSet, the date of birth is no data.
        #expect(try store.biologicalSex().biologicalSex == .notSet)
        #expect(try store.bloodType().bloodType == .notSet)
        #expect(try store.fitzpatrickSkinType().skinType == .notSet)
        #expect(try store.wheelchairUse().wheelchairUse == .notSet)
        #expect { try store.dateOfBirthComponents() } throws: { ($0 as? HKError)?.code == .errorNoData }

        try store.coreStore().setCharacteristics(Characteristics(dateOfBirth: try .init(year: 1984, month: 11, day: 3),
                                                                 biologicalSex: .other, bloodType: .bNegative,
                                                                 fitzpatrickSkinType: .II, wheelchairUse: .no))
        let born = try store.dateOfBirthComponents()
        #expect(born.year == 1984 && born.month == 11 && born.day == 3)
        #expect(try store.biologicalSex().biologicalSex == .other)
        #expect(try store.bloodType().bloodType == .bNegative)
        #expect(try store.fitzpatrickSkinType().skinType == .II)
        #expect(try store.wheelchairUse().wheelchairUse == .no)
        #expect(HKObjectType.characteristicType(forIdentifier: .bloodType)?.identifier == "HKCharacteristicTypeIdentifierBloodType")
        #expect(HKObjectType.characteristicType(forIdentifier: HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierShoeSize")) == nil)
    }
}
