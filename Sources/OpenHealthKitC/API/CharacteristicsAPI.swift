// openhealthkit.h section 150: The person's characteristics
import COpenHealthKit
import FoundationEssentials
import OpenHealthKitCore

// The person's characteristics through C (rule 38): one struct each way.

/// The store's characteristics into *out_characteristics: each 0 (not
/// set) until an import or ohk_store_set_characteristics sets it.
/// Returns OHK_OK; OHK_ERR_INVALID_ARGUMENT (NULL); OHK_ERR_CLOSED;
/// OHK_ERR_STORAGE. Any thread.
@c public func ohk_store_characteristics(_ out_characteristics: UnsafeMutablePointer<ohk_characteristics>?,
                                         _ store: UnsafeMutablePointer<ohk_store>?) -> ohk_status {
    cCall {
        let out = try out(out_characteristics, "out_characteristics")
        let c = try StoreHandle.get(store).characteristics()
        out.pointee = ohk_characteristics(birth_year: Int32(c.dateOfBirth?.year ?? 0), birth_month: Int32(c.dateOfBirth?.month ?? 0),
                                          birth_day: Int32(c.dateOfBirth?.day ?? 0), biological_sex: Int32(c.biologicalSex.rawValue),
                                          blood_type: Int32(c.bloodType.rawValue),
                                          fitzpatrick_skin_type: Int32(c.fitzpatrickSkinType.rawValue),
                                          wheelchair_use: Int32(c.wheelchairUse.rawValue))
    }
}

/// Replaces the store's characteristics with *characteristics, in one
/// transaction: a date of birth of three zeros and enums of 0 are "not
/// set". Returns OHK_OK; OHK_ERR_INVALID_VALUE (a date that is not a day
/// of the years 1 to 9999, an enum value HealthKit does not have);
/// OHK_ERR_INVALID_ARGUMENT (NULL); OHK_ERR_CLOSED; OHK_ERR_STORAGE. Any
/// thread; blocks for the write transaction.
@c public func ohk_store_set_characteristics(_ store: UnsafeMutablePointer<ohk_store>?,
                                             _ characteristics: UnsafePointer<ohk_characteristics>?) -> ohk_status {
    cCall {
        let s = try StoreHandle.get(store)
        guard let c = characteristics?.pointee else { throw CError(.invalidArgument, "characteristics is NULL") }
        func value<E: RawRepresentable<Int>>(_ raw: Int32, _ what: String) throws -> E {
            guard let e = E(rawValue: Int(raw)) else { throw CError(.invalidValue, "\(what) \(raw) is not one of HealthKit's values") }
            return e
        }
        let born = (c.birth_year, c.birth_month, c.birth_day)
        let date = born == (0, 0, 0) ? nil
            : try Characteristics.DateOfBirth(year: Int(born.0), month: Int(born.1), day: Int(born.2))
        try s.setCharacteristics(Characteristics(
            dateOfBirth: date, biologicalSex: try value(c.biological_sex, "biological_sex"),
            bloodType: try value(c.blood_type, "blood_type"),
            fitzpatrickSkinType: try value(c.fitzpatrick_skin_type, "fitzpatrick_skin_type"),
            wheelchairUse: try value(c.wheelchair_use, "wheelchair_use")))
    }
}
