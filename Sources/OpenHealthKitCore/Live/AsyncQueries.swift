extension Store {
    /// The one-shot form of an anchored query, for `async` code (the
    /// query itself does not suspend: it reads a snapshot and returns).
    public func result(_ descriptors: [QueryDescriptor], anchor: QueryAnchor?,
                       limit: Int = 0) async throws -> AnchoredQueryResult {
        try anchoredQuery(descriptors, anchor: anchor, limit: limit)
    }

    /// The snapshot after `anchor`, then every later change set, as an
    /// async sequence: its first element equals `result(_:anchor:limit:)`
    /// on the same store state. Ending the iteration, or cancelling the
    /// task that iterates, stops the query; an error ends the sequence.
    public func results(_ descriptors: [QueryDescriptor], anchor: QueryAnchor?, limit: Int = 0,
                        maxBatchSize: Int = 0) -> AsyncThrowingStream<AnchoredQueryResult, any Error> {
        AsyncThrowingStream { continuation in
            let forward: AnchoredObjectQuery.Handler = { _, result in
                switch result {
                case .success(let r): continuation.yield(r)
                case .failure(let e): continuation.finish(throwing: e)
                }
            }
            let query = AnchoredObjectQuery(descriptors: descriptors, anchor: anchor, limit: limit,
                                            maxBatchSize: maxBatchSize, resultsHandler: forward, updateHandler: forward)
            continuation.onTermination = { _ in query.stop() }
            do {
                try execute(query)
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }
}

extension Store {
    /// The activity summaries of the days from `start` through `end`,
    /// then, after each commit that changes some of them, those (rule
    /// 43), as an async sequence. Ending the iteration, or cancelling the
    /// task, stops the query; an error ends the sequence.
    public func activitySummaryResults(from start: ActivitySummary.Day?,
                                       through end: ActivitySummary.Day?) -> AsyncThrowingStream<[ActivitySummary], any Error> {
        AsyncThrowingStream { continuation in
            let query = ActivitySummaryQuery(from: start, through: end, updates: true) { _, result, _ in
                switch result {
                case .success(let s): continuation.yield(s)
                case .failure(let e): continuation.finish(throwing: e)
                }
            }
            continuation.onTermination = { _ in query.stop() }
            do {
                try execute(query)
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }
}
