import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// `Source` and `Device` keep their fields in a shared box, copied on
/// write: a batch of an import holds 20,000 samples three times over, and
/// inline devices (129 bytes each) made up a fifth of its memory.
@Suite struct SampleLayout {
    @Test func aSampleHoldsItsSourceAndDeviceByReference() {
        #expect(MemoryLayout<Source>.size == MemoryLayout<AnyObject>.size)
        #expect(MemoryLayout<Device>.size == MemoryLayout<AnyObject>.size)
        // uuid, type, dates, value, source, device, metadata, creation date, offset.
        #expect(MemoryLayout<Sample>.stride <= 128)
    }

    @Test func aChangedCopyLeavesTheOriginalAsItWas() {
        let watch = Device(name: "Apple Watch", manufacturer: "Apple", model: "Watch6,1")
        var renamed = watch
        renamed.name = "Watch"
        renamed[.udiDeviceIdentifier] = "(01)0"
        #expect(watch.name == "Apple Watch" && watch.udiDeviceIdentifier == nil)
        #expect(renamed.name == "Watch" && renamed.model == "Watch6,1" && renamed.udiDeviceIdentifier == "(01)0")
        #expect(watch != renamed)

        let app = Source(bundleIdentifier: "com.example.a", name: "A", version: "1.0")
        var next = app
        next.version = "2.0"
        #expect(app.version == "1.0" && next.version == "2.0" && next.name == "A")
        #expect(app != next)
    }

    @Test func equalFieldsAreEqualWhetherOrNotTheyShareABox() {
        let a = Device(name: "iPhone", manufacturer: "Apple")
        let b = Device(name: "iPhone", manufacturer: "Apple")
        #expect(a == b && a.hashValue == b.hashValue)
        #expect(Set([a, b, a]).count == 1)
        #expect(a != Device(name: "iPhone"))
        let s = Source(bundleIdentifier: "x", name: "X")
        #expect(s == Source(bundleIdentifier: "x", name: "X") && s.hashValue == Source(bundleIdentifier: "x", name: "X").hashValue)
        #expect(s != Source(bundleIdentifier: "x", name: "X", version: "1"))
    }
}
