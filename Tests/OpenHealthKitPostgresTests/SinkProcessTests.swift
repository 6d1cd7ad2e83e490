import FoundationEssentials
import Glibc
import OpenHealthKitCore
@testable import OpenHealthKitPostgres
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
        // The fence, through a connection kept open: a psql process for
        // each look took longer than a whole run on a fast machine, so
        // the kills aimed after the fence landed after the run's end (89
        // inside in 1,000 rounds). (0 before the first run created the tables.)
        let watcher = try PostgresConnection(url: db)
        func fence() -> Int {
            let rows = try? watcher.query("SELECT coalesce(max(fence), 0) FROM ohk_sink_checkpoints WHERE person = 'p-k'")
            return (rows?.first?.first ?? nil).flatMap { Int($0) } ?? 0
        }
        // 100 kills of a sink that had taken its fence (so had reached
        // PostgreSQL: in a batch, between two, or in the last); rounds
        // whose kill came before that, or after the run ended, do not count.
        var killedInside = 0, round = 0
        // How long a run lasts when not killed, and after it took its
        // fence: the kill's moment is drawn within it, so that kills land
        // in deliveries rather than after them.
        var runMicroseconds = 100_000.0, tailMicroseconds = 50_000.0
        // Odd rounds kill on a timer, anywhere in a run, its start
        // included; even rounds wait until the sink has taken its fence
        // and kill in the rest of the run, so the kills inside do not
        // depend on how loaded the machine is (on a slow one, a timer
        // alone landed 11 of 1,000 after the fence).
        while killedInside < 100 && round < 1_000 {
            round += 1
            let before = fence()
            // The writer commits while the sink runs.
            let args = ["sink", "postgres", "--store", store.directory, "--url", db, "--person", "p-k", "--batch", "2", "--quiet"]
            let write = { for _ in 0..<4 { try maker.commit(store) } }
            let outcome = round % 2 == 1
                ? try killRound(args, rng: &rng, runMicroseconds: &runMicroseconds, write: write)
                : try killRoundAfterProgress(args, rng: &rng, tailMicroseconds: &tailMicroseconds, write: write,
                                             progressed: { fence() > before })
            guard let r = outcome else {
                Issue.record("cannot start ohk, or it neither took its fence nor ended in a minute")
                return
            }
            if r.killed {
                if fence() > before { killedInside += 1 }
            } else {
                #expect(r.status == 0, "round \(round): \(r.output)")
            }
        }
        #expect(killedInside == 100, "\(killedInside) kills after the fence in \(round) rounds")
        let last = run(ohkPath, ["sink", "postgres", "--store", store.directory, "--url", db, "--person", "p-k", "--quiet"])
        #expect(last.status == 0, "\(last.output)")
        #expect(try mirrorProblems(store, cluster, db, person: "p-k") == [])
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
