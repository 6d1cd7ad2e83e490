import Foundation
import OpenHealthKitCore

/// The program that wrote samples: HealthKit's app or device, named by a
/// bundle identifier.
public final class HKSource: NSObject, @unchecked Sendable {
    public let name: String
    public let bundleIdentifier: String

    init(name: String, bundleIdentifier: String) {
        self.name = name
        self.bundleIdentifier = bundleIdentifier
        super.init()
    }

    /// The source of a core source (any revision of it).
    convenience init(core: Source) {
        self.init(name: core.name, bundleIdentifier: core.bundleIdentifier)
    }

    /// This program: samples it creates carry this source. The bundle
    /// identifier is `$OHK_SOURCE` when set, else the program's name (Linux
    /// programs have no bundle).
    public class func `default`() -> HKSource { defaultSource }

    private static let defaultSource: HKSource = {
        let name = ProcessInfo.processInfo.processName
        let id = ProcessInfo.processInfo.environment["OHK_SOURCE"].flatMap { $0.isEmpty ? nil : $0 } ?? name
        return HKSource(name: name, bundleIdentifier: id)
    }()

    public override var description: String { "\(name) (\(bundleIdentifier))" }
    public override var hash: Int { bundleIdentifier.hashValue }
    public override func isEqual(_ object: Any?) -> Bool {
        (object as? HKSource)?.bundleIdentifier == bundleIdentifier
    }
}

/// A source at one version.
public final class HKSourceRevision: NSObject, @unchecked Sendable {
    public let source: HKSource
    public let version: String?
    public let productType: String?
    public let operatingSystemVersion: OperatingSystemVersion

    public init(source: HKSource, version: String?, productType: String?,
                operatingSystemVersion: OperatingSystemVersion) {
        self.source = source
        self.version = version
        self.productType = productType
        self.operatingSystemVersion = operatingSystemVersion
        super.init()
    }

    public convenience init(source: HKSource, version: String?) {
        self.init(source: source, version: version, productType: nil,
                  operatingSystemVersion: OperatingSystemVersion(majorVersion: 0, minorVersion: 0, patchVersion: 0))
    }

    convenience init(_ core: Source) {
        self.init(source: HKSource(name: core.name, bundleIdentifier: core.bundleIdentifier), version: core.version)
    }

    /// This program's revision (no version).
    static let local = HKSourceRevision(source: .default(), version: nil)

    var core: Source { Source(bundleIdentifier: source.bundleIdentifier, name: source.name, version: version) }

    public override var description: String { version.map { "\(source) \($0)" } ?? source.description }
    public override var hash: Int { source.hash ^ (version?.hashValue ?? 0) }
    public override func isEqual(_ object: Any?) -> Bool {
        guard let o = object as? HKSourceRevision else { return false }
        return o.source == source && o.version == version
    }
}

/// The hardware that measured a sample: HealthKit's eight fields.
public final class HKDevice: NSObject, @unchecked Sendable {
    public let name: String?
    public let manufacturer: String?
    public let model: String?
    public let hardwareVersion: String?
    public let firmwareVersion: String?
    public let softwareVersion: String?
    public let localIdentifier: String?
    public let udiDeviceIdentifier: String?

    public init(name: String?, manufacturer: String?, model: String?, hardwareVersion: String?,
                firmwareVersion: String?, softwareVersion: String?, localIdentifier: String?,
                udiDeviceIdentifier: String?) {
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.hardwareVersion = hardwareVersion
        self.firmwareVersion = firmwareVersion
        self.softwareVersion = softwareVersion
        self.localIdentifier = localIdentifier
        self.udiDeviceIdentifier = udiDeviceIdentifier
        super.init()
    }

    convenience init(_ d: Device) {
        self.init(name: d.name, manufacturer: d.manufacturer, model: d.model, hardwareVersion: d.hardwareVersion,
                  firmwareVersion: d.firmwareVersion, softwareVersion: d.softwareVersion,
                  localIdentifier: d.localIdentifier, udiDeviceIdentifier: d.udiDeviceIdentifier)
    }

    /// This machine: its host name and operating system.
    public class func local() -> HKDevice {
        let info = ProcessInfo.processInfo
        return HKDevice(name: info.hostName, manufacturer: nil, model: "Linux", hardwareVersion: nil,
                        firmwareVersion: nil, softwareVersion: info.operatingSystemVersionString,
                        localIdentifier: nil, udiDeviceIdentifier: nil)
    }

    var core: Device {
        Device(name: name, manufacturer: manufacturer, model: model, hardwareVersion: hardwareVersion,
               firmwareVersion: firmwareVersion, softwareVersion: softwareVersion,
               localIdentifier: localIdentifier, udiDeviceIdentifier: udiDeviceIdentifier)
    }

    public override var description: String {
        let fields = [("name", name), ("manufacturer", manufacturer), ("model", model),
                      ("hardware", hardwareVersion), ("firmware", firmwareVersion), ("software", softwareVersion),
                      ("localIdentifier", localIdentifier), ("UDIDeviceIdentifier", udiDeviceIdentifier)]
        return "<HKDevice>, " + fields.compactMap { k, v in v.map { "\(k):\($0)" } }.joined(separator: ", ")
    }
    public override var hash: Int { core.hashValue }
    public override func isEqual(_ object: Any?) -> Bool { (object as? HKDevice)?.core == core }
}

/// The keys of `HKQuery.predicateForObjects(withDeviceProperty:allowedValues:)`.
public let HKDevicePropertyKeyName = "name"
public let HKDevicePropertyKeyManufacturer = "manufacturer"
public let HKDevicePropertyKeyModel = "model"
public let HKDevicePropertyKeyHardwareVersion = "hardwareVersion"
public let HKDevicePropertyKeyFirmwareVersion = "firmwareVersion"
public let HKDevicePropertyKeySoftwareVersion = "softwareVersion"
public let HKDevicePropertyKeyLocalIdentifier = "localIdentifier"
public let HKDevicePropertyKeyUDIDeviceIdentifier = "UDIDeviceIdentifier"

extension Device.Field {
    /// The field a device property key names.
    init?(propertyKey: String) {
        switch propertyKey {
        case HKDevicePropertyKeyName: self = .name
        case HKDevicePropertyKeyManufacturer: self = .manufacturer
        case HKDevicePropertyKeyModel: self = .model
        case HKDevicePropertyKeyHardwareVersion: self = .hardwareVersion
        case HKDevicePropertyKeyFirmwareVersion: self = .firmwareVersion
        case HKDevicePropertyKeySoftwareVersion: self = .softwareVersion
        case HKDevicePropertyKeyLocalIdentifier: self = .localIdentifier
        case HKDevicePropertyKeyUDIDeviceIdentifier: self = .udiDeviceIdentifier
        default: return nil
        }
    }
}
