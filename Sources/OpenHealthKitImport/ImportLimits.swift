/// Bounds that keep a hostile file from taking unbounded memory or time:
/// an export is far inside each of them.
struct ImportLimits: Sendable {
    /// Elements nested in each other (an export nests four deep).
    var depth = 64
    /// Bytes of XML in one stretch in which no element starts or ends:
    /// expat keeps a token whole, so a 10 GB attribute would be 10 GB of
    /// memory (an export's largest element is a few kilobytes).
    var stretchBytes: Int64 = 64 << 20
    /// How many times its compressed size a zip's XML may grow (exports:
    /// 10 to 30), checked once `ratioAfter` bytes were decompressed.
    var zipRatio: Int64 = 1000
    var ratioAfter: Int64 = 1 << 30
    /// Beats kept of one heart-rate-variability record's list (an
    /// export's hold a minute's, about a hundred); the rest are dropped.
    var beatsPerSeries = 100_000
}
