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
        var rows: [(key: String, value: String)] = []
        var voltages: [Double] = []
        voltages.reserveCapacity(bytes.count / 8)
        var inSamples = false
        var failure: Failure?
        // Bytes, not Characters: a file is 15,000 lines of numbers. Lines
        // end in "\n", "\r\n" or "\r".
        bytes.withUnsafeBufferPointer { b in
            var lineNumber = 0, i = 0
            while i < b.count && failure == nil {
                var end = i
                while end < b.count && b[end] != 10 && b[end] != 13 { end += 1 }
                lineNumber += 1
                var (from, to) = (i, end)
                i = end + (end + 1 < b.count && b[end] == 13 && b[end + 1] == 10 ? 2 : 1)
                // A voltage with a decimal comma may come quoted ("-265,868").
                if to - from >= 2 && b[from] == 34 && b[to - 1] == 34 { from += 1; to -= 1 }
                let line = UnsafeBufferPointer(rebasing: b[from..<to])
                if inSamples || (!line.isEmpty && Self.isNumber(line)) {
                    inSamples = true
                    if line.isEmpty { continue }
                    guard let v = Self.number(line) else { failure = .badVoltage(line: lineNumber); break }
                    voltages.append(v)
                    continue
                }
                // Header rows: "key,value"; "Name" alone and blank lines have no comma.
                guard let comma = line.firstIndex(of: 44) else { continue }
                let key = String(decoding: UnsafeBufferPointer(rebasing: line[..<comma]), as: UTF8.self)
                var value = String(decoding: UnsafeBufferPointer(rebasing: line[(comma + 1)...]), as: UTF8.self)
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                rows.append((key, value))
            }
        }
        if let failure { return .failure(failure) }
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

    /// A voltage line: digits with at most a sign and decimal marks.
    private static func isNumber(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        var digits = 0
        for (k, c) in s.enumerated() {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "-") where k == 0, UInt8(ascii: "+") where k == 0, UInt8(ascii: "."), UInt8(ascii: ","): break
            default: return false
            }
        }
        return digits > 0
    }

    /// A voltage, its decimal mark a point or a comma; nil unless the
    /// whole line is one finite number. (Swift's parser, not strtod: it
    /// ignores the host's locale. A line this short is a small string,
    /// made without allocating.)
    private static func number(_ s: UnsafeBufferPointer<UInt8>) -> Double? {
        guard s.count < 64 else { return nil }
        let text = String(decoding: s.lazy.map { $0 == 44 ? 46 : $0 }, as: UTF8.self)
        guard let v = Double(text), v.isFinite else { return nil }
        return v
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
