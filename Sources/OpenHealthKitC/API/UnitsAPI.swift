// openhealthkit.h section 40: Units
import COpenHealthKit
import OpenHealthKitCore

/// Converts `value` from unit `from` to unit `to` (HealthKit unit strings:
/// "kg", "count/min", "mg/dL", "mmol<180.1558>/L", "degC"...).
/// Returns OHK_OK; OHK_ERR_INVALID_UNIT (a unit does not parse, with where);
/// OHK_ERR_INCOMPATIBLE_UNIT (different dimensions); OHK_ERR_INVALID_VALUE
/// (NaN or infinite); OHK_ERR_INVALID_ARGUMENT. Any thread; never blocks.
@c public func ohk_unit_convert(_ out_value: UnsafeMutablePointer<Double>?, _ value: Double,
                                _ from: UnsafePointer<CChar>?, _ to: UnsafePointer<CChar>?) -> ohk_status {
    cCall {
        let result = try out(out_value, "out_value")
        guard value.isFinite else { throw CError(.invalidValue, "value must be finite, got \(value)") }
        let a = try HealthUnit(try string(from, "from")), b = try HealthUnit(try string(to, "to"))
        result.pointee = try a.convert(value, to: b)
    }
}

/// Parses a unit and gives its canonical text ("kg·m/s^2" style input in,
/// a string that parses back to the same unit out). *out_text is owned by
/// the caller: free it with ohk_string_free. Returns OHK_OK,
/// OHK_ERR_INVALID_UNIT, OHK_ERR_INVALID_ARGUMENT. Any thread.
@c public func ohk_unit_canonical(_ out_text: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                  _ unit: UnsafePointer<CChar>?) -> ohk_status {
    cCall {
        let result = try out(out_text, "out_text")
        result.pointee = ownedCString(try HealthUnit(try string(unit, "unit")).description)
    }
}

/// Whether two units measure the same dimension (*out_compatible 1 or 0).
/// Returns OHK_OK, OHK_ERR_INVALID_UNIT, OHK_ERR_INVALID_ARGUMENT. Any thread.
@c public func ohk_unit_compatible(_ out_compatible: UnsafeMutablePointer<Bool>?,
                                   _ a: UnsafePointer<CChar>?, _ b: UnsafePointer<CChar>?) -> ohk_status {
    cCall {
        let result = try out(out_compatible, "out_compatible")
        result.pointee = try HealthUnit(try string(a, "a")).isCompatible(with: HealthUnit(try string(b, "b")))
    }
}
