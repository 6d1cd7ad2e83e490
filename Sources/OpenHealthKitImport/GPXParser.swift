import CExpat
import FoundationEssentials
import OpenHealthKitCore

/// A workout route's GPX file (`workout-routes/*.gpx` of an export): its
/// track points, each `<trkpt lat lon>` with `<ele>`, `<time>` and
/// `<extensions>` holding `speed`, `course`, `hAcc` and `vAcc` (as the
/// Health app writes them). A negative course, speed or accuracy is
/// CLLocation's "invalid", kept as unknown. Expat, as for the export.
final class GPXParser {
    private let parser: XML_Parser
    private(set) var locations: [RouteLocation] = []
    private var point: RouteLocation?
    private var timeText: String?
    private var text: [UInt8] = []
    /// Why the file is not a route, when it is not.
    private(set) var problem: String?

    init() {
        parser = XML_ParserCreate("UTF-8")
        XML_SetUserData(parser, Unmanaged.passUnretained(self).toOpaque())
        XML_SetElementHandler(parser, { user, name, attributes in
            Unmanaged<GPXParser>.fromOpaque(user!).takeUnretainedValue().start(String(cString: name!), attributes!)
        }, { user, name in
            Unmanaged<GPXParser>.fromOpaque(user!).takeUnretainedValue().end(String(cString: name!))
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

    private func start(_ name: String, _ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>) {
        text.removeAll(keepingCapacity: true)
        guard name == "trkpt" else { return }
        var lat: Double?, lon: Double?
        var i = 0
        while let k = attributes[i], let v = attributes[i + 1] {
            switch String(cString: k) {
            case "lat": lat = Double(String(cString: v))
            case "lon": lon = Double(String(cString: v))
            default: break
            }
            i += 2
        }
        if let lat, let lon {
            point = RouteLocation(timestamp: .distantPast, latitude: lat, longitude: lon)
            timeText = nil
        }
    }

    private func end(_ name: String) {
        guard point != nil else { return }
        // Text between tags, without the white space around it.
        let isSpace = { (c: UInt8) in c == 32 || c == 9 || c == 10 || c == 13 }
        let trimmed = text.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        let value = String(decoding: Array(trimmed), as: UTF8.self)
        text.removeAll(keepingCapacity: true)
        let number = Double(value)
        switch name {
        case "ele": point!.altitude = number
        case "time": timeText = value
        case "speed": point!.speed = number.flatMap { $0 >= 0 ? $0 : nil }
        case "course": point!.course = number.flatMap { $0 >= 0 ? $0 : nil }
        case "hAcc": point!.horizontalAccuracy = number.flatMap { $0 >= 0 ? $0 : nil }
        case "vAcc": point!.verticalAccuracy = number.flatMap { $0 >= 0 ? $0 : nil }
        case "trkpt":
            // A point without a time cannot be placed in the route.
            if let t = timeText.flatMap({ ISODate.parse(Substring($0)) }) {
                point!.timestamp = t
                locations.append(point!)
            }
            point = nil
        default: break
        }
    }
}
