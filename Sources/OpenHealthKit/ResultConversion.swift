import Foundation
import OpenHealthKitCore

/// The core's query results as HealthKit objects. Types, source
/// revisions and devices are made once per batch and shared by its
/// samples, as HealthKit shares them.
enum ResultConversion {
    static func samples(_ batch: SampleBatch) -> [HKSample] {
        let types = batch.types.map(HKObjectType.make)
        let units = types.map { ($0 as? HKQuantityType)?.canonicalUnit }
        var revisions: [UInt32: HKSourceRevision] = [:]
        var devices: [UInt32: HKDevice] = [:]
        var out: [HKSample] = []
        out.reserveCapacity(batch.count)
        batch.forEach { f in
            let revision: HKSourceRevision
            if let r = revisions[f.sourceID] {
                revision = r
            } else {
                revision = HKSourceRevision(f.source ?? Source(bundleIdentifier: "?", name: "?"))
                revisions[f.sourceID] = revision
            }
            var device: HKDevice?
            if f.deviceID != 0 {
                if let d = devices[f.deviceID] {
                    device = d
                } else {
                    device = f.device.map(HKDevice.init)
                    devices[f.deviceID] = device
                }
            }
            let metadata = f.hasMetadata ? MetadataBridge.healthKit(f.metadata) : nil
            let start = f.startDate, end = f.endDate
            if let value = f.quantity, let unit = units[f.typeIndex] {
                out.append(HKQuantitySample(type: types[f.typeIndex] as! HKQuantityType, canonicalUnit: unit,
                                            value: value, start: start, end: end, uuid: f.uuid,
                                            sourceRevision: revision, device: device, metadata: metadata))
            } else {
                out.append(HKCategorySample(type: types[f.typeIndex] as! HKCategoryType, value: f.categoryValue ?? 0,
                                            start: start, end: end, uuid: f.uuid,
                                            sourceRevision: revision, device: device, metadata: metadata))
            }
        }
        return out
    }

    static func deleted(_ objects: [DeletedObject]) -> [HKDeletedObject] {
        objects.map(HKDeletedObject.init)
    }
}
