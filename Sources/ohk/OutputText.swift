#if CommandLineTool
import FoundationEssentials
import Glibc
import OpenHealthKitCore
import OpenHealthKitJSON

/// How `ohk` prints times and numbers, the same in every command and
/// format (docs/ohk.md, "Output").
enum OutputText {
    /// UTC ISO 8601 to the microsecond (`TextForms.time`).
    static func time(_ date: Date) -> String { TextForms.time(date) }

    /// The shortest text that reads back to the same double (`TextForms.number`).
    static func number(_ x: Double) -> String { TextForms.number(x) }

    /// Prints `rows` under `header` in columns two spaces apart: the first
    /// `left` columns (labels) left-aligned, the others (figures) right-aligned.
    static func printTable(_ header: [String], _ rows: [[String]], left: Int) {
        let widths = header.indices.map { i in ([header] + rows).map { $0[i].count }.max() ?? 0 }
        for r in [header] + rows {
            print(r.enumerated().map { i, v in
                let pad = String(repeating: " ", count: widths[i] - v.count)
                return i < left ? v + pad : pad + v
            }.joined(separator: "  "))
        }
    }
}
#endif
