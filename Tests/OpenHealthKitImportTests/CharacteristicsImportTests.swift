import FoundationEssentials
import OpenHealthKitCore
@testable import OpenHealthKitImport
import Testing

/// The export's `<Me>` (rule 38): the person's characteristics, set in the
/// store by an import, each reported.
@Suite struct CharacteristicsImportTests {
    private func export(_ me: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <ExportDate value="2024-06-01 09:00:00 -0700"/>
         \(me)
        </HealthData>
        """
    }

    @Test func rule38_anExportsMeSetsTheStoresCharacteristics() throws {
        let store = try newStore()
        defer { store.close() }
        let r = try importFile(fixtureB, into: store)
        #expect(try store.characteristics() == Characteristics(dateOfBirth: try .init(year: 1971, month: 7, day: 9),
                                                               biologicalSex: .male))
        #expect(r.characteristics?.biologicalSex == .male && r.notImported["Me"] == nil)

        // A later export sets what it gives and leaves what it does not.
        let dir = temporaryDirectory()
        writeText(dir + "/export.xml", export("""
        <Me HKCharacteristicTypeIdentifierDateOfBirth="" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexNotSet" \
        HKCharacteristicTypeIdentifierBloodType="HKBloodTypeONegative" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeIII" \
        HKCharacteristicTypeIdentifierWheelchairUse="HKWheelchairUseNo" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>
        """))
        let again = try importFile(dir + "/export.xml", into: store)
        #expect(again.contents.contains(ImportReport.Row(kind: "Me", count: 1, imported: 1,
                                                         note: "characteristics: blood type, skin type, wheelchair use; "
                                                             + "not kept: CardioFitnessMedicationsUse (none of the five characteristics kept)")))
        let c = try store.characteristics()
        #expect(c.dateOfBirth?.text == "1971-07-09" && c.biologicalSex == .male)
        #expect(c.bloodType == .oNegative && c.fitzpatrickSkinType == .III && c.wheelchairUse == .no)
    }

    @Test func rule38_aMeTheImportCannotReadIsSkippedWithItsReason() throws {
        let store = try newStore()
        defer { store.close() }
        let dir = temporaryDirectory()
        writeText(dir + "/export.xml", export("""
        <Me HKCharacteristicTypeIdentifierDateOfBirth="1980-02-30" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale"/>
        """))
        let r = try importFile(dir + "/export.xml", into: store)
        #expect(r.failure == nil && r.characteristics == nil)
        let row = try #require(r.contents.first { $0.kind == "Me" })
        #expect(row.imported == 0 && row.note.contains("1980-2-30"))
        #expect(try store.characteristics().isEmpty)
    }
}
