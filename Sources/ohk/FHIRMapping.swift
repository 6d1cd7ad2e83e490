#if CommandLineTool
import OpenHealthKitCore
import OpenHealthKitJSON

/// What a HealthKit type becomes in FHIR: its codings, categories and
/// unit, read from the mapping data (api/fhir: HealthKitOnFHIR's table,
/// then our overrides) when an export starts.
struct FHIRMapping {
    struct Coding {
        let system: String
        let code: String
        let display: String?

        var json: String {
            var o = JSONObject()
            o.add("system", system)
            o.add("code", code)
            o.add("display", display)
            return o.closed
        }
    }

    /// The unit a value is written in: `hkunit` is the HealthKit unit the
    /// stored value converts to; `code` its UCUM code, when it has one.
    struct UnitMap {
        let hkunit: String
        let unit: String
        let code: String?
        let system: String?
    }

    struct Entry {
        var codings: [Coding]
        var categories: [Coding]
        var unit: UnitMap?

        /// The `code` CodeableConcept.
        var concept: String { "{\"coding\":" + JSONObject.array(codings.map(\.json)) + "}" }
        var categoryList: String? {
            categories.isEmpty ? nil
                : JSONObject.array(categories.map { "{\"coding\":" + JSONObject.array([$0.json]) + "}" })
        }
    }

    static let apple = "http://developer.apple.com/documentation/healthkit"

    private(set) var quantity: [String: Entry] = [:]
    private(set) var category: [String: Entry] = [:]
    private(set) var correlation: [String: Entry] = [:]
    private(set) var workout = Entry(codings: [], categories: [], unit: nil)
    /// The electrocardiogram's own entry and its parts by name
    /// (`samplingFrequency`, `voltageMeasurements`…).
    private(set) var electrocardiogram = Entry(codings: [], categories: [], unit: nil)
    private(set) var electrocardiogramParts: [String: Entry] = [:]

    static let shared = FHIRMapping(upstream: FHIRMappingData.upstream, overrides: FHIRMappingData.overrides)

    init(upstream: String, overrides: String) {
        guard let base = JSONValue.read(Array(upstream.utf8)), let changes = JSONValue.read(Array(overrides.utf8)) else {
            fatalError("the embedded FHIR mapping is not JSON: run scripts/gen_fhir.py")
        }
        func entries(_ key: String) -> [String: Entry] {
            var out: [String: Entry] = [:]
            for (k, v) in base[key]?.object ?? [:] { out[k] = Self.entry(v) }
            for (k, v) in changes[key]?.object ?? [:] {
                var e = out[k] ?? Entry(codings: [], categories: [], unit: nil)
                if let u = v["unit"] { e.unit = Self.unit(u) }
                out[k] = e
            }
            return out
        }
        quantity = entries("HKQuantitySamples")
        category = entries("HKCategorySamples")
        correlation = entries("HKCorrelations")
        workout = base["HKWorkout"].map(Self.entry) ?? workout
        let ecg = base["HKElectrocardiogram"]
        electrocardiogram = ecg.map(Self.entry) ?? electrocardiogram
        for (k, v) in ecg?.object ?? [:] where v["codings"] != nil { electrocardiogramParts[k] = Self.entry(v) }
        for (k, v) in changes["HKElectrocardiogram"]?.object ?? [:] {
            if let u = v["unit"] { electrocardiogramParts[k]?.unit = Self.unit(u) }
        }
    }

    private static func entry(_ v: JSONValue) -> Entry {
        func codings(_ list: JSONValue?) -> [Coding] {
            (list?.array ?? []).compactMap { c in
                guard let system = c["system"]?.string, let code = c["code"]?.string else { return nil }
                return Coding(system: system, code: code, display: c["display"]?.string)
            }
        }
        return Entry(codings: codings(v["codings"]), categories: codings(v["categories"]), unit: v["unit"].flatMap(unit))
    }

    private static func unit(_ v: JSONValue) -> UnitMap? {
        guard let hkunit = v["hkunit"]?.string else { return nil }
        return UnitMap(hkunit: hkunit, unit: v["unit"]?.string ?? hkunit, code: v["code"]?.string,
                       system: v["system"]?.string)
    }

    /// A type the table does not name: Apple's coding of its identifier.
    static func fallback(_ type: SampleType) -> Entry {
        Entry(codings: [Coding(system: apple, code: type.identifier, display: nil)], categories: [], unit: nil)
    }
}
#endif
