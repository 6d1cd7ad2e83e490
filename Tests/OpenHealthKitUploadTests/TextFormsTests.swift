import FoundationEssentials
import Testing
import OpenHealthKitCore
import OpenHealthKitJSON
import TestSupport

/// The byte writers of pages (`TextForms.append`) write what the text
/// forms always wrote: times as `ISODate` prints whole seconds plus the
/// microseconds, UUIDs as `uuidString`, integers as `String`.
@Suite struct TextFormsTests {
    /// The form times had before the byte writer: ISODate's whole seconds,
    /// then the microseconds in groups of three.
    func reference(_ date: Date) -> String {
        let micros = (date.timeIntervalSince1970 * 1e6).rounded()
        let seconds = (micros / 1e6).rounded(.down)
        let whole = ISODate.format(Date(timeIntervalSince1970: seconds))
        let fraction = Int(micros - seconds * 1e6)
        guard fraction > 0 else { return whole }
        let digits = String(fraction + 1_000_000).dropFirst()
        return String(whole.dropLast()) + "." + (digits.hasSuffix("000") ? digits.prefix(3) : digits[...]) + "Z"
    }

    @Test func timesUUIDsAndIntegersAreWrittenAsTheirTextForms() {
        var rng = Rng(state: 7)
        var dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -0.5), Date(timeIntervalSince1970: 1_709_280_000.25),
                     Date(timeIntervalSince1970: -62_135_596_800), Date(timeIntervalSince1970: 253_402_300_799.999999)]
        for _ in 0..<20_000 {
            let whole = Double(rng.int(300_000_000_000)) - 62_135_596_800
            dates.append(Date(timeIntervalSince1970: whole + Double(rng.int(1_000_000)) / 1e6))
        }
        for d in dates {
            var out: [UInt8] = []
            TextForms.append(time: d, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == reference(d), "\(d.timeIntervalSince1970)")
        }
        for _ in 0..<1000 {
            let u = RandomUUID.make()
            var out: [UInt8] = []
            TextForms.append(uuid: u, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == u.uuidString)
        }
        for v in [Int64.min, -1, 0, 7, 1_000_000, Int64.max] + (0..<1000).map({ _ in Int64(rng.int(1 << 40)) - (1 << 39) }) {
            var out: [UInt8] = []
            TextForms.append(integer: v, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == String(v))
        }
    }
}
