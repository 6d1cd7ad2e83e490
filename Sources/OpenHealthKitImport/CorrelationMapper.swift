import FoundationEssentials
import OpenHealthKitCore

/// `<Correlation>` → a correlation sample (rule 33) whose members are the
/// samples of its nested `<Record>`s: the same content gives the same
/// UUID, so they are the export's top-level records, stored once.
extension RecordMapper {
    /// Refused here, as a save would refuse it (rule 33), so that one bad
    /// correlation skips itself rather than the batch it is saved in.
    mutating func correlation(_ r: ExportRecord, members: [Sample]) -> Result<Sample, SkipReason> {
        guard let type = TypeCatalogue.lookup(r.type), case .correlation = type.kind else {
            return .failure(SkipReason(kind: .unknownType, subject: r.type))
        }
        guard !r.sourceName.isEmpty else { return .failure(SkipReason(kind: .missingField, subject: "sourceName")) }
        guard let (start, offset) = r.start,
              let end = r.end else {
            return .failure(SkipReason(kind: .badDate, subject: type.identifier))
        }
        let source = source(r.sourceName, r.sourceVersion)
        let device = r.device.map { self.device($0) }
        let created = r.created
        let metadata = Self.metadata(r.metadata)
        let value = Correlation(members: members.map(\.uuid))
        let memberTypes = Dictionary(members.map { ($0.uuid, $0.type) }, uniquingKeysWith: { a, _ in a })
        guard (try? value.validate(RandomUUID.make(), type: type, memberTypes: memberTypes)) != nil else {
            return .failure(SkipReason(kind: .invalidSample, subject: "members of \(type.identifier)"))
        }
        let uuid = contentUUID(type, source, device, start, end, created, .correlation(value), metadata)
        do {
            return .success(try Sample.correlation(type, members: value.members, start: Date(timeIntervalSinceReferenceDate: start),
                                                   end: Date(timeIntervalSinceReferenceDate: end), source: source,
                                                   device: device, metadata: metadata, uuid: uuid,
                                                   creationDate: created.map(Date.init(timeIntervalSinceReferenceDate:)),
                                                   utcOffset: offset))
        } catch let e as OHKError {
            return .failure(SkipReason(kind: e.code == .invalidDateRange ? .badDate : .invalidSample, subject: type.identifier))
        } catch {
            return .failure(SkipReason(kind: .invalidSample, subject: type.identifier))
        }
    }
}
