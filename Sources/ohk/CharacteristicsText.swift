#if CommandLineTool
import OpenHealthKitCore
import OpenHealthKitJSON

/// The person's characteristics (rule 38) as `ohk stats` prints them:
/// HealthKit's value names without their prefix (`Female`, `ONegative`),
/// the date of birth as YYYY-MM-DD; what is not set is left out of the
/// line and out of the JSON object.
enum CharacteristicsText {
    private static func name<E: Hashable>(_ names: [E: String], _ v: E, prefix: String) -> String {
        String(names[v]!.dropFirst(prefix.count))
    }

    private static func fields(_ c: Characteristics) -> [(String, String?)] {
        typealias C = Characteristics
        return [
            ("dateOfBirth", c.dateOfBirth?.text),
            ("biologicalSex", c.biologicalSex == .notSet ? nil : name(C.biologicalSexNames, c.biologicalSex, prefix: "HKBiologicalSex")),
            ("bloodType", c.bloodType == .notSet ? nil : name(C.bloodTypeNames, c.bloodType, prefix: "HKBloodType")),
            ("fitzpatrickSkinType", c.fitzpatrickSkinType == .notSet ? nil
                : name(C.skinTypeNames, c.fitzpatrickSkinType, prefix: "HKFitzpatrickSkinType")),
            ("wheelchairUse", c.wheelchairUse == .notSet ? nil : name(C.wheelchairUseNames, c.wheelchairUse, prefix: "HKWheelchairUse")),
        ]
    }

    /// "dateOfBirth 1971-07-09, biologicalSex Male".
    static func line(_ c: Characteristics) -> String {
        fields(c).compactMap { k, v in v.map { "\(k) \($0)" } }.joined(separator: ", ")
    }

    static func json(_ c: Characteristics) -> JSONObject {
        var o = JSONObject()
        for (k, v) in fields(c) { o.add(k, v) }
        return o
    }
}
#endif
