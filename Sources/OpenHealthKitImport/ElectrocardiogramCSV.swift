import FoundationEssentials
import OpenHealthKitCore

/// One `electrocardiograms/ecg_*.csv` of an export (rule 41): a header of
/// `key,value` rows in the phone's language (Name, Date of Birth, Recorded
/// Date, Classification, Symptoms, Software Version, Device, Sample Rate,
/// Lead, Unit), a blank line, then one voltage in µV per line, its decimal
/// mark the phone's (`-265,868` in German, unquoted). Read by what the
/// values look like where the language changes the keys: the recorded
/// date is the row whose value is an export timestamp, the sample rate
/// the row whose value ends in hertz.
struct ElectrocardiogramCSV {
    var recorded: (instant: Double, offset: Int)
    var classificationText: String
    var symptoms: String
    var softwareVersion: String?
    var device: String?
    var samplingFrequency: Double
    var voltages: [Double]

    enum Failure: Error { case notAnECG, badDate, badRate, badVoltage(line: Int) }

    /// The classification as the Apple Watch ECG app writes it, in the
    /// languages seen in real exports (English, German); another text is
    /// `unrecognized` and kept in the sample's metadata.
    static let classifications: [String: Electrocardiogram.Classification] = [
        "sinus rhythm": .sinusRhythm, "sinusrhythmus": .sinusRhythm,
        "atrial fibrillation": .atrialFibrillation, "vorhofflimmern": .atrialFibrillation,
        "heart rate under 50": .inconclusiveLowHeartRate, "low heart rate": .inconclusiveLowHeartRate,
        "heart rate over 120": .inconclusiveHighHeartRate, "heart rate over 150": .inconclusiveHighHeartRate,
        "high heart rate": .inconclusiveHighHeartRate,
        "poor recording": .inconclusivePoorReading,
        "inconclusive": .inconclusiveOther, "uneindeutig": .inconclusiveOther,
        "": .notSet,
    ]

    var classification: Electrocardiogram.Classification {
        Self.classifications[classificationText.lowercased()] ?? .unrecognized
    }

    static func parse(_ bytes: [UInt8]) -> Result<ElectrocardiogramCSV, Failure> {
        let text = String(decoding: bytes, as: UTF8.self)
        var rows: [(key: String, value: String)] = []
        var voltages: [Double] = []
        var lineNumber = 0
        var inSamples = false
        // "\r\n" is one Character, a newline like "\n".
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            // A voltage with a decimal comma may come quoted ("-265,868").
            let l = line.count >= 2 && line.first == "\"" && line.last == "\"" ? line.dropFirst().dropLast() : line
            if inSamples || (!l.isEmpty && Self.isNumber(l)) {
                inSamples = true
                if l.isEmpty { continue }
                guard let v = Double(l.replacing(",", with: ".")), v.isFinite else {
                    return .failure(.badVoltage(line: lineNumber))
                }
                voltages.append(v)
                continue
            }
            guard let comma = l.firstIndex(of: ",") else { continue }  // "Name" alone, blank lines
            var value = String(l[l.index(after: comma)...])
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            rows.append((String(l[..<comma]), value))
        }
        guard !rows.isEmpty else { return .failure(.notAnECG) }
        guard let date = rows.lazy.compactMap({ ExportTimestamp.parseWithOffset($0.value) }).first else { return .failure(.badDate) }
        // "512.844 hertz", "511,562\u{a0}Hertz", "512ヘルツ".
        guard let rate = rows.lazy.compactMap({ Self.rate($0.value) }).first else { return .failure(.badRate) }
        func value(_ keys: [String]) -> String? { rows.first { keys.contains($0.key) }?.value }
        return .success(ElectrocardiogramCSV(
            recorded: date, classificationText: value(["Classification", "Klassifizierung", "分類"]) ?? "",
            symptoms: value(["Symptoms", "Symptome", "症状"]) ?? "",
            softwareVersion: value(["Software Version", "Softwareversion", "ソフトウェアバージョン"]),
            device: value(["Device", "Gerät", "デバイス"]), samplingFrequency: rate, voltages: voltages))
    }

    /// A voltage line: digits with at most a sign and one decimal mark.
    private static func isNumber(_ s: Substring) -> Bool {
        var digits = 0
        for (k, c) in s.utf8.enumerated() {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "-") where k == 0, UInt8(ascii: "+") where k == 0, UInt8(ascii: "."), UInt8(ascii: ","): break
            default: return false
            }
        }
        return digits > 0
    }

    private static func rate(_ value: String) -> Double? {
        let lower = value.lowercased()
        guard let unit = ["hertz", "hz", "ヘルツ"].first(where: { lower.hasSuffix($0) }) else { return nil }
        let number = lower.dropLast(unit.count).filter { !$0.isWhitespace }.replacing(",", with: ".")
        guard let f = Double(number), f.isFinite, f > 0 else { return nil }
        return f
    }
}

extension RecordMapper {
    /// An ECG file → an electrocardiogram sample (rule 41): from its
    /// recorded date for as long as its voltages last; its source the
    /// watch's ECG app ("ECG", the file's software version), its device
    /// the watch the file names; symptoms and an unrecognized
    /// classification kept as metadata.
    mutating func electrocardiogram(_ csv: ElectrocardiogramCSV) -> Result<Sample, SkipReason> {
        let subject = TypeCatalogue.electrocardiogramIdentifier
        var metadata: [String: MetadataValue] = [:]
        if !csv.symptoms.isEmpty { metadata["Symptoms"] = .string(csv.symptoms) }
        if csv.classification == .unrecognized { metadata["Classification"] = .string(csv.classificationText) }
        let ecg = Electrocardiogram(classification: csv.classification,
                                    symptomsStatus: csv.symptoms.isEmpty ? .notSet : .present,
                                    samplingFrequency: csv.samplingFrequency, voltages: csv.voltages)
        let source = source("ECG", csv.softwareVersion)
        let device = csv.device.map { Device(name: "Apple Watch", manufacturer: "Apple", hardwareVersion: $0) }
        let start = csv.recorded.instant
        let end = start + Double(csv.voltages.count) / csv.samplingFrequency
        let uuid = contentUUID(TypeCatalogue.electrocardiogramType, source, device, start, end, nil, .electrocardiogram(ecg), metadata)
        do {
            return .success(try Sample.electrocardiogram(ecg, start: Date(timeIntervalSinceReferenceDate: start),
                                                         end: Date(timeIntervalSinceReferenceDate: end), source: source,
                                                         device: device, metadata: metadata, uuid: uuid,
                                                         utcOffset: csv.recorded.offset))
        } catch {
            return .failure(SkipReason(kind: .invalidSample, subject: subject))
        }
    }
}
