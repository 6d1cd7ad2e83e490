import FoundationEssentials
import Testing
@testable import OpenHealthKitCore

/// Format 18's statistics buckets (`BucketCodec`): varints and tagged
/// numbers that read back as the very bits written, in fewer bytes than
/// the fixed widths when the figures are whole.
@Suite struct BucketCodecTests {
    /// Every field of every source, as bits: -0, NaN and the infinities
    /// must come back as they went in, which `==` on Double cannot tell.
    private func bits(_ figures: [BucketFigures], _ style: AggregationStyle) -> [[UInt64]] {
        figures.map { f in
            var row: [UInt64] = [UInt64(f.sourceID), UInt64(f.count), UInt64(f.crossCount), f.recentOrder]
            let numbers = style == .cumulative
                ? [f.sum, f.recentEnd, f.recentStart, f.recentValue]
                : [f.weighted, f.weight, f.arithmetic, f.crossArithmetic, f.minimum, f.maximum,
                   f.recentEnd, f.recentStart, f.recentValue]
            row += numbers.map(\.bitPattern)
            return row
        }
    }

    private func roundTrip(_ figures: [BucketFigures], _ style: AggregationStyle) throws -> [BucketFigures] {
        try BucketCodec.encode(figures, style).withUnsafeBytes { try BucketCodec.decode($0, style) }
    }

    @Test func everyNumberReadsBackAsTheSameBits() throws {
        let awkward: [Double] = [0, -0.0, 1, -1, 72.5, 0.1, 1e300, -1e-300, .infinity, -.infinity, .nan,
                                 0x1p53, 0x1p53 + 2, -0x1p53, 9_007_199_254_740_991, 1.5e9, 646_272_000.25,
                                 Double(Float.greatestFiniteMagnitude), .leastNonzeroMagnitude]
        var figures: [BucketFigures] = []
        for (i, v) in awkward.enumerated() {
            var f = BucketFigures(sourceID: UInt32.max - UInt32(i))
            f.count = UInt32(i) * 1_000_003
            f.crossCount = i == 0 ? UInt32.max : UInt32(i)
            f.sum = v
            (f.weighted, f.weight, f.arithmetic, f.crossArithmetic) = (v, -v, v * 3, v / 7)
            (f.minimum, f.maximum) = (v, awkward[(i + 1) % awkward.count])
            // The start against the end: near it, far from it, not whole, or not finite.
            (f.recentEnd, f.recentStart, f.recentValue) = (v, awkward[(i + 5) % awkward.count], v)
            f.recentOrder = i == 1 ? UInt64.max : UInt64(i) << 40
            figures.append(f)
        }
        var near = BucketFigures(sourceID: 1)
        (near.recentEnd, near.recentStart) = (646_272_060, 646_272_000)
        figures.append(near)
        for style in [AggregationStyle.cumulative, .discreteArithmetic] {
            #expect(bits(try roundTrip(figures, style), style) == bits(figures, style), "\(style)")
        }
    }

    /// A step bucket as the reference workload writes it: five sources, a
    /// sample a minute, whole values and seconds.
    @Test func wholeFiguresTakeAboutAThirdOfTheFixedWidths() throws {
        let hour = 646_272_000.0
        var steps: [BucketFigures] = [], heart: [BucketFigures] = []
        for s in 0..<5 {
            var f = BucketFigures(sourceID: UInt32(s + 1))
            var h = BucketFigures(sourceID: UInt32(s + 1))
            for m in stride(from: s, to: 60, by: 5) {
                let start = hour + Double(m) * 60, order = UInt64(400_000 + m)
                if m % 5 == 4 {
                    h.add(value: Double(40 + m), level: Double(40 + m), share: 1, time: 60, first: true,
                          start: start, end: start + 60, order: order)
                } else {
                    f.add(value: Double(m * 7), level: Double(m * 7), share: 1, time: 60, first: true,
                          start: start, end: start + 60, order: order)
                }
            }
            steps.append(f)
            heart.append(h)
        }
        let stepBytes = BucketCodec.encode(steps, .cumulative).count
        let heartBytes = BucketCodec.encode(heart, .discreteArithmetic).count
        // A third and a bit: the most recent end, in seconds since 2001, takes five bytes.
        #expect(stepBytes * 100 <= 5 * 52 * 35, "\(stepBytes) bytes")
        #expect(heartBytes * 100 <= 5 * 92 * 35, "\(heartBytes) bytes")
        #expect(bits(try roundTrip(steps, .cumulative), .cumulative) == bits(steps, .cumulative))
        #expect(bits(try roundTrip(heart, .discreteArithmetic), .discreteArithmetic) == bits(heart, .discreteArithmetic))
    }

    /// Bytes that are not a whole bucket (cut short, or with more after
    /// it) are an error, never figures read from half a source.
    @Test func aCutOrLengthenedBucketIsAnError() throws {
        var figures: [BucketFigures] = []
        for s in 0..<3 {
            var f = BucketFigures(sourceID: UInt32(s))
            f.add(value: 72.5, level: 72.5, share: 0.5, time: 30.25, first: s != 1, start: 1e9, end: 1e9 + 30.25, order: 9)
            figures.append(f)
        }
        for style in [AggregationStyle.cumulative, .discreteArithmetic] {
            let whole = BucketCodec.encode(figures, style)
            for cut in 0..<whole.count {
                #expect(throws: OHKError.self, "\(style), \(cut) of \(whole.count) bytes") {
                    try Array(whole[0..<cut]).withUnsafeBytes { try BucketCodec.decode($0, style) }
                }
            }
            #expect(throws: OHKError.self) { try (whole + [0]).withUnsafeBytes { try BucketCodec.decode($0, style) } }
        }
    }
}
