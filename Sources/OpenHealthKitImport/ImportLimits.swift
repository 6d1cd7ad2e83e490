/// Bounds that keep a hostile file from taking unbounded memory or time:
/// an export is far inside each of them.
package struct ImportLimits: Sendable {
    package init() {}
    /// Elements nested in each other (an export nests four deep).
    var depth = 64
    /// Bytes of XML in one stretch in which no element starts or ends:
    /// expat keeps a token whole, so a 10 GB attribute would be 10 GB of
    /// memory (an export's largest element is a few kilobytes).
    var stretchBytes: Int64 = 16 << 20
    /// How many times its compressed size a zip's XML may grow (exports:
    /// 10 to 30), checked once `ratioAfter` bytes were decompressed (a
    /// bomb is refused within seconds, a small export never checked).
    var zipRatio: Int64 = 1000
    var ratioAfter: Int64 = 64 << 20
    /// Beats kept of one heart-rate-variability record's list (an
    /// export's hold a minute's, about a hundred); the rest are dropped,
    /// and the report counts them.
    var beatsPerSeries = 100_000
    /// Sensitivity points kept of one audiogram (a hearing test has a
    /// dozen); the rest are dropped, and the report counts them.
    var pointsPerAudiogram = 1_000
}
