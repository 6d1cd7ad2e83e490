/// What one of this process's commits changed, handed to its live
/// queries with the wake-up (`Store.write`): an observer whose anchor is
/// where the commit began knows which types changed without reading the
/// store, so its handler runs one read transaction sooner.
struct CommitNote: Sendable {
    /// The change order's head before the commit and after it.
    let startHead: UInt64
    let head: UInt64
    /// The horizon, which the commit left where it was (a commit that
    /// moves it, a prune, hands no note: its queries read the store).
    let horizon: UInt64
    /// The types with a record at a position after `startHead`: the ones
    /// the commit appended to (saved, or deleted from, which appends the
    /// deleted object).
    let typeIDs: [UInt16]

    /// This note and the next commit's as one, when the next began where
    /// this one ended; nil otherwise (the queries read the store).
    func followed(by next: CommitNote) -> CommitNote? {
        guard next.startHead == head, next.horizon == horizon else { return nil }
        return CommitNote(startHead: startHead, head: next.head, horizon: horizon,
                          typeIDs: typeIDs + next.typeIDs.filter { !typeIDs.contains($0) })
    }
}
