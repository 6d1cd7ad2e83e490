import COpenHealthKit
import Glibc
import OpenHealthKitCore

/// A statistics result as an Arrow table: one row per interval with the
/// sources merged (`source` null), and, for a result computed with
/// OHK_STATISTICS_SEPARATE_BY_SOURCE, one more per interval and source
/// after it. Figures that were not asked for or had no sample are nulls,
/// not NaN; `count` is 0 for an interval without data.
enum StatisticsTable {
    static func table(_ block: StatisticsResultC.Block, unit: HealthUnit?) throws -> (ArrowColumn, ArrowMemory) {
        let memory = ArrowMemory()
        let r = block.result
        let canonical = block.type.canonicalUnit
        var convert: ((Double) throws -> Double)?
        if let unit {
            guard let canonical else {
                throw CError(.incompatibleUnit, "\(block.type.identifier) is a category type: its figures are durations and counts, not values in '\(unit)'")
            }
            guard canonical.isCompatible(with: unit) else {
                throw CError(.incompatibleUnit, "cannot convert \(block.type.identifier)'s '\(canonical)' to '\(unit)': different dimensions")
            }
            if let map = try ReadConversion(from: canonical, to: unit) { convert = { map($0) } }
        }
        // Rows: (interval, source index or -1).
        var rows: [(Int, Int)] = []
        for i in 0..<Int(r.interval_count) {
            rows.append((i, -1))
            let iv = r.intervals[i]
            for k in 0..<Int(iv.source_count) { rows.append((i, Int(iv.first_source) + k)) }
        }
        let n = rows.count
        func values(_ row: (Int, Int)) -> ohk_statistics_values {
            row.1 < 0 ? r.intervals[row.0].values : r.sources[row.1].values
        }
        func times(_ name: String, _ read: (Int) -> Double) -> ArrowColumn {
            let p = memory.zeroed(Int64.self, n)
            for j in 0..<n {
                let t = read(j)
                p[j] = t.isFinite ? Int64((t * 1e6).rounded()) : 0  // a NaN time is a null (nullingNaN)
            }
            return ArrowColumn(name, format: block.localTime ? "tsu:" : "tsu:UTC", length: n,
                               buffers: [nil, UnsafeRawPointer(p)])
        }
        func figures(_ name: String, converted: Bool, _ read: (ohk_statistics_values) -> Double) throws -> ArrowColumn {
            let p = memory.zeroed(Double.self, n)
            var valid = ValidityBitmap(memory, rows: n)
            for j in 0..<n {
                let v = read(values(rows[j]))
                valid.set(j, valid: !v.isNaN)
                if !v.isNaN { p[j] = converted ? try convert?(v) ?? v : v }
            }
            let shown = converted && canonical != nil ? [("unit", unit?.description ?? canonical!.description)] : []
            return ArrowColumn(name, format: "g", length: n, nullCount: valid.nullCount,
                               buffers: [UnsafeRawPointer(valid.bits), UnsafeRawPointer(p)], metadata: shown, nullable: true)
        }
        let sourceIndex = memory.zeroed(Int32.self, n)
        var sourceValid = ValidityBitmap(memory, rows: n)
        var names: [String?] = [], bundles: [String?] = []
        for k in 0..<Int(r.source_count) {
            names.append(r.sources[k].name.map { String(cString: $0) })
            bundles.append(r.sources[k].bundle_identifier.map { String(cString: $0) })
        }
        for (j, row) in rows.enumerated() {
            sourceValid.set(j, valid: row.1 >= 0)
            sourceIndex[j] = Int32(max(row.1, 0))
        }
        let count = memory.zeroed(UInt64.self, n)
        for j in 0..<n { count[j] = values(rows[j]).count }
        let columns: [ArrowColumn] = [
            times("start_date") { r.intervals[rows[$0].0].start },
            times("end_date") { r.intervals[rows[$0].0].end },
            .dictionary("source", indices: UnsafeRawPointer(sourceIndex), length: n, validity: sourceValid, values: names, memory),
            .dictionary("source_bundle", indices: UnsafeRawPointer(sourceIndex), length: n, validity: sourceValid,
                        values: bundles, memory),
            try figures("sum", converted: true) { $0.sum },
            try figures("average", converted: true) { $0.average },
            try figures("minimum", converted: true) { $0.minimum },
            try figures("maximum", converted: true) { $0.maximum },
            try figures("most_recent", converted: true) { $0.most_recent },
            times("most_recent_start") { values(rows[$0]).most_recent_start }.nullingNaN(rows.map { values($0).most_recent_start }, memory),
            times("most_recent_end") { values(rows[$0]).most_recent_end }.nullingNaN(rows.map { values($0).most_recent_end }, memory),
            try figures("duration", converted: false) { $0.duration },
            ArrowColumn("count", format: "L", length: n, buffers: [nil, UnsafeRawPointer(count)]),
        ]
        return (.table(columns, length: n, metadata: [("type", block.type.identifier)]), memory)
    }
}

private extension ArrowColumn {
    /// The same time column with a null where `source` is NaN.
    func nullingNaN(_ source: [Double], _ memory: ArrowMemory) -> ArrowColumn {
        var valid = ValidityBitmap(memory, rows: source.count)
        for (j, v) in source.enumerated() { valid.set(j, valid: !v.isNaN) }
        return ArrowColumn(name, format: format, length: length, nullCount: valid.nullCount,
                           buffers: [UnsafeRawPointer(valid.bits), buffers[1]], nullable: true)
    }
}
