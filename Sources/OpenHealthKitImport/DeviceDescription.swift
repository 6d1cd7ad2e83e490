import OpenHealthKitCore

/// The export's `device` attribute is HKDevice's description:
/// `<<HKDevice: 0x2820680f0>, name:Apple Watch, manufacturer:Apple Inc.,
/// model:Watch, hardware:Watch4,2, software:7.2>`. Values may hold commas
/// (`Watch4,2`), so a field starts only at `, <known key>:`. The address
/// differs between exports and is dropped.
enum DeviceDescription {
    private static let keys: [(String, Device.Field)] = [
        ("name", .name), ("manufacturer", .manufacturer), ("model", .model),
        ("hardware", .hardwareVersion), ("firmware", .firmwareVersion), ("software", .softwareVersion),
        ("localIdentifier", .localIdentifier), ("UDIDeviceIdentifier", .udiDeviceIdentifier),
    ]

    static func parse(_ text: String) -> Device {
        let prefix = "<<HKDevice: "
        guard text.hasPrefix(prefix), text.hasSuffix(">"), let head = text.firstRange(of: ">, ") else {
            return Device(name: text)  // not HKDevice's format: keep it whole
        }
        let body = text[head.upperBound..<text.index(before: text.endIndex)]
        var device = Device()
        var field: (Device.Field, Substring.Index)?
        var i = body.startIndex
        func close(at end: Substring.Index) {
            if let (f, start) = field { device[f] = String(body[start..<end]) }
        }
        while i < body.endIndex {
            let atFieldStart = i == body.startIndex || body[i...].hasPrefix(", ")
            if atFieldStart {
                let nameStart = i == body.startIndex ? i : body.index(i, offsetBy: 2)
                if let (key, f) = keys.first(where: { body[nameStart...].hasPrefix($0.0 + ":") }) {
                    close(at: i)
                    field = (f, body.index(nameStart, offsetBy: key.count + 1))
                    i = field!.1
                    continue
                }
            }
            i = body.index(after: i)
        }
        close(at: body.endIndex)
        return device
    }
}
