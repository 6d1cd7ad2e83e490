import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

@Suite struct UnitGrammar {
    @Test func everyCanonicalUnitOfTheCatalogueParsesAndRoundTrips() throws {
        for t in TypeCatalogue.all {
            guard let u = t.canonicalUnit else { continue }
            let again = try HealthUnit(u.description)
            #expect(again == u, "\(t.identifier): \(u) → \(again)")
            #expect(again.description == u.description)
        }
    }

    /// Units are equal by atoms and powers, whatever their order: the
    /// canonical text puts the numerator first (a fuzzing find).
    @Test func aUnitEqualsItsCanonicalTextWhateverTheOrderOfItsFactors() throws {
        for text in ["kcal/(kg/hr)", "1/(s/m)", "m/(kg/(s*g))"] {
            let u = try HealthUnit(text)
            let back = try HealthUnit(u.description)
            #expect(back == u && back.hashValue == u.hashValue, "\(text) -> \(u)")
        }
        #expect(try HealthUnit("kcal*hr/kg") == HealthUnit("hr*kcal/kg"))
        #expect(try HealthUnit("kcal*hr/kg") != HealthUnit("kcal/(hr*kg)"))
    }

    @Test func kilogramIsPounds() throws {
        let lb = try HealthUnit("kg").convert(1, to: HealthUnit("lb"))
        #expect(abs(lb - 2.20462262) < 1e-8)
    }

    @Test func incompatibleDimensionsRefuseToConvert() throws {
        let perMin = try HealthUnit("count/min"), kg = try HealthUnit("kg")
        #expect(!perMin.isCompatible(with: kg))
        #expect(errorCode { _ = try perMin.convert(1, to: kg) } == .incompatibleUnit)
    }

    @Test func compoundPrefixedAndMolarUnits() throws {
        // Blood glucose: mmol<180.15588000005408>/L and mg/dL are one dimension.
        let mmol = try HealthUnit("mmol<180.15588000005408>/L")
        let mgdl = try HealthUnit("mg/dL")
        #expect(abs(try mmol.convert(1, to: mgdl) - 18.015588000005408) < 1e-9)
        // The export's `mL/min·kg` is mL/(min·kg), the same as ml/(kg*min).
        #expect(try HealthUnit("mL/min·kg").isCompatible(with: HealthUnit("ml/(kg*min)")))
        #expect(abs(try HealthUnit("mL/min·kg").convert(1, to: HealthUnit("ml/(kg*min)")) - 1) < 1e-12)
        #expect(abs(try HealthUnit("kcal").convert(1, to: HealthUnit("kJ")) - 4.184) < 1e-12)
        #expect(abs(try HealthUnit("mi").convert(1, to: HealthUnit("km")) - 1.609344) < 1e-12)
        #expect(abs(try HealthUnit("count/min").convert(60, to: HealthUnit("count/s")) - 1) < 1e-12)
        #expect(abs(try HealthUnit("m^2").convert(1, to: HealthUnit("cm^2")) - 10_000) < 1e-9)
        #expect(abs(try HealthUnit("degC").convert(100, to: HealthUnit("degF")) - 212) < 1e-9)
        #expect(abs(try HealthUnit("%").convert(0.5, to: HealthUnit("count")) - 0.005) < 1e-15)
        #expect(try HealthUnit("kg*m/s^2").description == "kg*m/s^2")
        #expect(try HealthUnit("kcal/(kg*hr)").description == "kcal/(kg*hr)")
    }

    /// `bpm`, the unit people write for heart rate, is count/min.
    @Test func bpmIsCountPerMinute() throws {
        let bpm = try HealthUnit("bpm")
        let perMinute = try HealthUnit("count/min"), perSecond = try HealthUnit("count/s")
        #expect(bpm.isCompatible(with: perMinute) && bpm.isCompatible(with: perSecond))
        #expect(try bpm.convert(72, to: HealthUnit("count/min")) == 72)
        #expect(abs(try bpm.convert(60, to: HealthUnit("count/s")) - 1) < 1e-15)
        #expect((try HealthUnit(bpm.description)) == bpm)
    }

    @Test func oneUnitSpelledTwoWaysConvertsExactly() throws {
        // Same dimension, scale and offset: the value comes back unchanged,
        // not through a multiply and a divide.
        #expect(try HealthUnit("mL/min·kg").convert(1.1, to: HealthUnit("ml/(kg*min)")) == 1.1)
        #expect(try HealthUnit("count").convert(7.3, to: HealthUnit("count")) == 7.3)
    }

    /// Through kelvin, 32 °F was 5.7e-14 °C and 0 °C 31.999999999999943 °F
    /// (273.15, 459.67 and 5/9 are not doubles): the fixed points of the
    /// scales convert exactly, and every value both ways within two ulps.
    @Test func temperaturesConvertExactlyAtTheirFixedPoints() throws {
        let c = try HealthUnit("degC"), f = try HealthUnit("degF"), k = try HealthUnit("K")
        for (celsius, fahrenheit) in [(0.0, 32.0), (100, 212), (-40, -40), (37, 98.6), (-17.5, 0.5)] {
            #expect(try c.convert(celsius, to: f) == fahrenheit, "\(celsius) °C")
            #expect(try f.convert(fahrenheit, to: c) == celsius, "\(fahrenheit) °F")
        }
        // 273.15 as a double is a little below 273.15 K, so a little below 32 °F.
        #expect(try f.convert(32, to: k) == 273.15 && abs(try k.convert(273.15, to: f) - 32) < 1e-13)
        #expect(try k.convert(0, to: f) == -459.67 && (try f.convert(-459.67, to: k)) == 0)
        #expect(try c.convert(0, to: k) == 273.15 && (try k.convert(273.15, to: c)) == 0)
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let x = Double.random(in: -100...400, using: &rng)
            let back = try f.convert(try c.convert(x, to: f), to: c)
            #expect(abs(back - x) <= 2 * max(x.ulp, 1e-13), "\(x)")
            #expect(abs(try c.convert(x, to: f) - (x * 1.8 + 32)) <= 1e-12 * max(1, abs(x)), "\(x)")
        }
    }

    @Test func dimensionsCompareAndHashByEveryExponent() throws {
        let perMin = try HealthUnit("count/min").dimension, perSecond = try HealthUnit("count/s").dimension
        let kg = try HealthUnit("kg").dimension, lb = try HealthUnit("lb").dimension
        let m = try HealthUnit("m").dimension, area = try HealthUnit("m^2").dimension
        #expect(perMin == perSecond && kg == lb)
        #expect(kg != m && m != area && perMin != kg)
        #expect(Set([perMin, perSecond, kg, lb, m, area]).count == 4)
    }

    @Test func malformedUnitsAreErrorsWithPosition() {
        for bad in ["", "kgg", "count/", "(kg", "kg^0", "kg^x", "mol<abc>/L", "degC/s", "foo", "kg)"] {
            #expect(errorCode { _ = try HealthUnit(bad) } == .invalidUnit, "\(bad)")
        }
        do { _ = try HealthUnit("kg/(m") } catch let e as OHKError { #expect(e.message.contains("position")) } catch {}
    }
}

@Suite struct Catalogue {
    @Test func holdsEveryHealthKitType() {
        let q = TypeCatalogue.all.filter(\.isQuantity)
        #expect(q.count == 120)
        let categories = TypeCatalogue.all.filter { if case .category = $0.kind { true } else { false } }
        #expect(categories.count == 69)
        // And the workout, route, blood pressure, food, heartbeat series,
        // audiogram and electrocardiogram types, and the nine clinical types.
        #expect(TypeCatalogue.all.count == q.count + categories.count + 7 + 9)
        #expect(steps.canonicalUnit?.description == "count")
        if case .quantity(_, let style) = steps.kind { #expect(style == .cumulative) }
        if case .category(let values) = sleep.kind { #expect(values["AsleepREM"] == 5) }
    }

    @Test func unknownIdentifierIsAnError() {
        #expect(errorCode { _ = try SampleType.named("HKQuantityTypeIdentifierNope") } == .unknownType)
        #expect(errorCode { _ = try SampleType.named("Nope") } == .unknownType)
    }

    /// Every standard type answers to its short name, in the catalogue and
    /// through a store, and prints back to it.
    @Test func shortNamesNameEveryStandardType() throws {
        let store = try makeStore()
        defer { store.close() }
        for t in TypeCatalogue.all {
            let short = TypeCatalogue.shortName(t)
            #expect(!short.hasPrefix("HK"))
            #expect(try SampleType.named(short) == t)
            #expect(try store.sampleType(short) == t)
        }
        #expect(try store.sampleType("HeartRate").identifier == "HKQuantityTypeIdentifierHeartRate")
        #expect(try SampleType.named("SleepAnalysis").identifier == "HKCategoryTypeIdentifierSleepAnalysis")
    }

    @Test func customTypesPersistAndConflictsAreRefused() throws {
        let dir = temporaryDirectory()
        var store = try makeStore(directory: dir)
        let t = try store.registerCustomType("org.example.Glucose2", kind: .quantity(canonicalUnit: HealthUnit("mg/dL"), aggregation: .discreteArithmetic))
        try store.registerCustomType("org.example.Glucose2", kind: t.kind)  // same definition: no-op
        #expect(errorCode { try store.registerCustomType("org.example.Glucose2", kind: .category(values: ["x": 1])) } == .invalidArgument)
        #expect(errorCode { try store.registerCustomType("HKQuantityTypeIdentifierStepCount", kind: t.kind) } == .invalidArgument)
        try store.save([Sample.quantity(t, value: 5.5, unit: HealthUnit("mmol<180.15588000005408>/L"), start: t0, end: t0, source: appA)])
        store.close()
        store = try makeStore(directory: dir)
        let again = try store.sampleType("org.example.Glucose2")
        let r = try store.anchoredQuery(type: again, anchor: nil)
        #expect(r.samples.count == 1)
        #expect(abs(try r.samples[0].quantity(in: HealthUnit("mg/dL")) - 99.085734) < 1e-5)
    }

    /// Each type's display unit: what people read it in (issue 32).
    @Test func displayUnitsAreTheOnesPeopleRead() throws {
        func display(_ name: String) throws -> String? { try SampleType.named(name).displayUnit?.description }
        #expect(try display("HKQuantityTypeIdentifierHeartRate") == "count/min")
        #expect(try display("HKQuantityTypeIdentifierRespiratoryRate") == "count/min")
        #expect(try display("HKQuantityTypeIdentifierDistanceWalkingRunning") == "km")
        #expect(try display("HKQuantityTypeIdentifierWalkingSpeed") == "km/hr")
        #expect(try display("HKQuantityTypeIdentifierHeight") == "cm")
        #expect(try display("HKQuantityTypeIdentifierUnderwaterDepth") == "m")
        #expect(try display("HKQuantityTypeIdentifierStepCount") == "count")
        #expect(try display("HKQuantityTypeIdentifierBodyMass") == "kg")
        #expect(try display("HKCategoryTypeIdentifierSleepAnalysis") == nil)
    }
}
