extension Store {
    /// Lets go of the memory this process has mapped of the store's file:
    /// a long writer (an import of millions of samples) calls it now and
    /// then, so that its resident size stays flat however large the store
    /// grows. The pages stay in the kernel's page cache; reads afterwards
    /// cost a minor fault per page touched again.
    public func releaseMappedPages() throws {
        try operation { env.releaseMappedPages() }
    }
}
