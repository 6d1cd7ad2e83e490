import FoundationEssentials
import Glibc
import OpenHealthKitCore
import OpenHealthKitPostgres
import Testing
import TestSupport

/// `ohk sink postgres` as a process: killed at random moments, following
/// a writer, across a server restart (rule 61).
@Suite struct SinkProcessTests {
    @Test func rule61_killedAtRandomMomentsItStillDeliversEachChangeOnce() throws {
        let (cluster, db) = try newDatabase()
        let store = try makeStore()
        var maker = ChangeMaker(seed: 100)
        var rng = Rng(state: 7)
        var killed = 0, round = 0
        // At least 100 kills; a run that finishes before its kill counts as a round only.
        while killed < 100 && round < 400 {
            round += 1
            // The writer commits while the sink runs; the sink is killed
            // at a random moment, in the middle of a batch or not.
            guard let (pid, out) = spawnWithOutput(ohkPath, ["sink", "postgres", "--store", store.directory, "--url", db,
                                                             "--person", "p-k", "--batch", "5", "--quiet"], mergeStderr: true) else {
                Issue.record("cannot start ohk")
                return
            }
            for _ in 0..<3 { try maker.commit(store) }
            usleep(UInt32(rng.int(150_000)))  // the kill's moment, not a wait for anything
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            let text = readToEnd(out)
            close(out)
            if status & 0x7f == SIGKILL {
                killed += 1
            } else {
                #expect((status >> 8) & 0xff == 0, "round \(round): \(text)")
            }
        }
        #expect(killed == 100)
        let last = run(ohkPath, ["sink", "postgres", "--store", store.directory, "--url", db, "--person", "p-k", "--quiet"])
        #expect(last.status == 0, "\(last.output)")
        #expect(try mirrorProblems(store, cluster, db, person: "p-k") == [])
        // The journal moved in order, one change at a time: its positions
        // are unique by its key, and the fences show every start.
        let fence = try cluster.psql(db, "SELECT fence FROM ohk_sink_checkpoints WHERE person = 'p-k'")
        #expect(Int(fence.split(separator: "\n")[0])! >= 50, "only \(fence) of \(round) runs reached PostgreSQL")
    }

    @Test func rule61_followDeliversAsCommitsHappenAndOutlivesAServerRestart() throws {
        // A cluster of its own: the restart must not cut the other tests' connections.
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let db = try cluster.newDatabase()
        let store = try makeStore()
        var maker = ChangeMaker(seed: 5)
        try maker.commit(store)
        guard let (pid, out) = spawnWithOutput(ohkPath, ["sink", "postgres", "--store", store.directory, "--url", db,
                                                         "--person", "p-f", "--follow", "--quiet"], mergeStderr: true) else {
            Issue.record("cannot start ohk")
            return
        }
        defer { kill(pid, SIGKILL) }
        // (Before the sink's first commit, the tables may not exist yet.)
        func caughtUp() -> Bool { (try? mirrorProblems(store, cluster, db, person: "p-f").isEmpty) ?? false }
        #expect(eventually(caughtUp))
        // Another process's commits (the test's store handle is not the sink's).
        for _ in 0..<5 { try maker.commit(store) }
        #expect(eventually(caughtUp))
        try cluster.restart()
        for _ in 0..<5 { try maker.commit(store) }
        #expect(eventually(caughtUp))
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        let text = readToEnd(out)
        close(out)
        #expect(status & 0x7f == 0 && (status >> 8) & 0xff == 0, "\(text)")
        #expect(text.contains("retrying in"))
        #expect(text.contains("sink 'default':"))
    }

    @Test func rule61_aSecondSinkProcessFencesTheFirstWhichExitsSayingSo() throws {
        let (cluster, db) = try newDatabase()
        let store = try makeStore()
        var maker = ChangeMaker(seed: 9)
        try maker.commit(store)
        let args = ["sink", "postgres", "--store", store.directory, "--url", db, "--person", "p-two", "--follow", "--quiet"]
        guard let (first, firstOut) = spawnWithOutput(ohkPath, args, mergeStderr: true) else {
            Issue.record("cannot start ohk")
            return
        }
        defer { kill(first, SIGKILL) }
        func fence() -> Int { Int((try? cluster.psql(db, "SELECT fence FROM ohk_sink_checkpoints WHERE person = 'p-two'"))?
                                  .split(separator: "\n").first ?? "") ?? 0 }
        #expect(eventually { fence() == 1 })
        guard let (second, secondOut) = spawnWithOutput(ohkPath, args, mergeStderr: true) else {
            Issue.record("cannot start ohk")
            return
        }
        defer { kill(second, SIGKILL) }
        #expect(eventually { fence() == 2 })
        // The first learns at its next commit; the second goes on delivering.
        try maker.commit(store)
        var status: Int32 = 0
        waitpid(first, &status, 0)
        let text = readToEnd(firstOut)
        close(firstOut)
        #expect((status >> 8) & 0xff == 1, "\(text)")
        #expect(text.contains("fenced off by another"), "\(text)")
        #expect(eventually { (try? mirrorProblems(store, cluster, db, person: "p-two").isEmpty) ?? false })
        kill(second, SIGTERM)
        waitpid(second, &status, 0)
        close(secondOut)
        #expect((status >> 8) & 0xff == 0)
    }
}
