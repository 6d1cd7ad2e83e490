import CExpat
import FoundationEssentials
import Glibc
import OpenHealthKitCore

/// A workout route's GPX file (`workout-routes/*.gpx` of an export): its
/// track points, each `<trkpt lat lon>` with `<ele>`, `<time>` and
/// `<extensions>` holding `speed`, `course`, `hAcc` and `vAcc` (as the
/// Health app writes them). A negative course, speed or accuracy is
/// CLLocation's "invalid", kept as unknown. Expat, as for the export;
/// its callbacks' state unchecked for exclusivity, as `ExportParser`'s.
final class GPXParser {
    private let parser: XML_Parser
    @exclusivity(unchecked) private(set) var locations: [RouteLocation] = []
    @exclusivity(unchecked) private var point: RouteLocation?
    @exclusivity(unchecked) private var timeText: String?
    @exclusivity(unchecked) private var text: [UInt8] = []
    /// Why the file is not a route, when it is not.
    private(set) var problem: String?

    init() {
        parser = XML_ParserCreate("UTF-8")
        XML_SetUserData(parser, Unmanaged.passUnretained(self).toOpaque())
        // Names stay C strings: a route has tens of thousands of elements.
        XML_SetElementHandler(parser, { user, name, attributes in
            Unmanaged<GPXParser>.fromOpaque(user!).takeUnretainedValue().start(name!, attributes!)
        }, { user, name in
            Unmanaged<GPXParser>.fromOpaque(user!).takeUnretainedValue().end(name!)
        })
        XML_SetCharacterDataHandler(parser) { user, s, n in
            let me = Unmanaged<GPXParser>.fromOpaque(user!).takeUnretainedValue()
            guard let s, n > 0, me.point != nil else { return }
            s.withMemoryRebound(to: UInt8.self, capacity: Int(n)) { me.text.append(contentsOf: UnsafeBufferPointer(start: $0, count: Int(n))) }
        }
        // GPX declares no entities either; refuse them, as for the export.
        XML_SetEntityDeclHandler(parser) { user, _, _, _, _, _, _, _, _ in
            let me = Unmanaged<GPXParser>.fromOpaque(user!).takeUnretainedValue()
            me.problem = "it declares an entity"
            XML_StopParser(me.parser, 0)
        }
    }

    deinit { XML_ParserFree(parser) }

    /// The route's locations, or why there are none.
    static func locations(_ bytes: [UInt8]) -> Result<[RouteLocation], SkipReason> {
        let p = GPXParser()
        let status = bytes.withUnsafeBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { XML_Parse(p.parser, $0.baseAddress, Int32($0.count), 1) }
        }
        if let problem = p.problem { return .failure(SkipReason(kind: .badValue, subject: "route file: \(problem)")) }
        guard status != XML_STATUS_ERROR else {
            return .failure(SkipReason(kind: .badValue, subject: "route file: malformed GPX"))
        }
        guard !p.locations.isEmpty else { return .failure(SkipReason(kind: .badValue, subject: "route file: no track point with a time")) }
        return .success(p.locations)
    }

    private func start(_ name: UnsafePointer<CChar>, _ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) {
        text.removeAll(keepingCapacity: true)
        guard strcmp(name, "trkpt") == 0 else { return }
        var lat: Double?, lon: Double?
        var i = 0
        while let k = attributes[i], let v = attributes[i + 1] {
            if strcmp(k, "lat") == 0 { lat = Self.number(v) } else if strcmp(k, "lon") == 0 { lon = Self.number(v) }
            i += 2
        }
        if let lat, let lon {
            point = RouteLocation(timestamp: .distantPast, latitude: lat, longitude: lon)
            timeText = nil
        }
    }

    private func end(_ name: UnsafePointer<CChar>) {
        guard point != nil else { return }
        defer { text.removeAll(keepingCapacity: true) }
        if strcmp(name, "trkpt") == 0 {
            // A point without a time cannot be placed in the route.
            if let t = timeText.flatMap({ ISODate.parse(Substring($0)) }) {
                point!.timestamp = t
                locations.append(point!)
            }
            point = nil
            return
        }
        // Text between tags, without the white space around it.
        let isSpace = { (c: UInt8) in c == 32 || c == 9 || c == 10 || c == 13 }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else {
            if strcmp(name, "time") == 0 { timeText = "" }
            return
        }
        if strcmp(name, "time") == 0 {
            timeText = String(decoding: text[first...last], as: UTF8.self)
            return
        }
        let nonNegative = { (x: Double?) in x.flatMap { $0 >= 0 ? $0 : nil } }
        let number = Double(String(decoding: text[first...last], as: UTF8.self))
        if strcmp(name, "ele") == 0 {
            point!.altitude = number
        } else if strcmp(name, "speed") == 0 {
            point!.speed = nonNegative(number)
        } else if strcmp(name, "course") == 0 {
            point!.course = nonNegative(number)
        } else if strcmp(name, "hAcc") == 0 {
            point!.horizontalAccuracy = nonNegative(number)
        } else if strcmp(name, "vAcc") == 0 {
            point!.verticalAccuracy = nonNegative(number)
        }
    }

    /// The number a C string spells, as `Double(String)` reads it (a
    /// short number is a small String: no allocation).
    static func number(_ c: UnsafePointer<CChar>) -> Double? { Double(String(cString: c)) }
}
