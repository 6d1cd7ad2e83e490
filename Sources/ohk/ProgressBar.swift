#if CommandLineTool
import Glibc

/// A one-line progress bar on stderr, redrawn at most ten times a second,
/// and only when stderr is a terminal (logs and pipes stay clean).
final class ProgressBar: @unchecked Sendable {
    private let enabled: Bool
    private let started = ContinuousClock.now
    private var lastDraw = ContinuousClock.now - .seconds(1)
    /// What the rate counts, and how many of `done` make one of it.
    private let rateUnit: String, rateScale: Double

    init(enabled: Bool, rateUnit: String = "MB/s", rateScale: Double = 1e6) {
        self.enabled = enabled && isatty(2) != 0
        (self.rateUnit, self.rateScale) = (rateUnit, rateScale)
    }

    func update(done: Int64, total: Int64, detail: String) {
        guard enabled, ContinuousClock.now - lastDraw >= .milliseconds(100) else { return }
        lastDraw = ContinuousClock.now
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let seconds = max(0.001, elapsedSeconds)
        let rate = Double(done) / seconds / rateScale
        writeStderr("\r[\(bar)] \(Int(fraction * 100))%  \(format(rate)) \(rateUnit)  \(detail)\u{1b}[K")
    }

    func finish() {
        guard enabled else { return }
        writeStderr("\r\u{1b}[K")
    }

    var elapsedSeconds: Double {
        let d = ContinuousClock.now - started
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}

/// One decimal, without Foundation's formatters.
func format(_ v: Double) -> String {
    let tenths = Int((v * 10).rounded())
    return "\(tenths / 10).\(abs(tenths % 10))"
}
#endif
