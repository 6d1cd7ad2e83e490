import FoundationEssentials
import Glibc
import OpenHealthKitCore
import Testing
import TestSupport

/// `ohk sync` as a process: its answers, killed at random moments, and
/// following a writer (rules 69 and 70).
@Suite struct SyncProcessTests {
    /// A store directory the test does not keep open.
    func storeDirectory() -> String { temporaryDirectory() }

    @Test func rule69_ohkSyncCopiesResumesAndSaysWhatDoesNotFit() throws {
        let a = try makeStore(), b = storeDirectory()
        defer { a.close() }
        var maker = ChangeMaker(seed: 3)
        for _ in 0..<10 { try maker.commit(a) }
        let first = run(ohkPath, ["sync", a.directory, b, "--quiet"], mergeStderr: true)
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("verified (\(try a.liveDigests().values.reduce(0) { $0 + $1.count }) live samples), stores alike"))
        let again = run(ohkPath, ["sync", a.directory, b, "--quiet"], mergeStderr: true)
        #expect(again.status == 0 && again.output.contains("sync 'default': 0 changes"), "\(again.output)")
        // What does not fit, each a message and exit 1 (64 for usage), writing nothing.
        let other = try makeStore()
        try other.save([try stepSample(1, minute: 1)])
        other.close()
        let cases: [([String], Int32, String)] = [
            (["sync", a.directory, a.directory], 1, "same directory"),
            (["sync", a.directory + "-missing", b], 1, "no store there"),
            (["sync", "http://127.0.0.1:9/v1/people/p", b], 1, "onnect"),
            (["sync", "http://127.0.0.1:9/v1/p", b], 1, "not a store of ohk serve"),
            (["sync", a.directory, b, "--types", "StepCount"], 1, "--from-scratch"),
            (["sync", a.directory, b, "--types", "NoSuchType"], 1, "unknown sample type"),
            (["sync", a.directory, b, "--batch", "0"], 64, "--batch must be positive"),
        ]
        for (args, status, text) in cases {
            let r = run(ohkPath, args, mergeStderr: true)
            #expect(r.status == status && r.output.contains(text), "\(args): \(r.status) \(r.output)")
        }
        // A store replaced at the same place.
        let moved = a.directory + "-old"
        a.close()
        #expect(rename(a.directory, moved) == 0 && rename(other.directory, a.directory) == 0)
        let replaced = run(ohkPath, ["sync", a.directory, b, "--quiet"], mergeStderr: true)
        #expect(replaced.status == 1 && replaced.output.contains("is now store") && replaced.output.contains("--from-scratch"),
                "\(replaced.output)")
        let scratch = run(ohkPath, ["sync", a.directory, b, "--from-scratch", "--quiet"], mergeStderr: true)
        #expect(scratch.status == 0 && scratch.output.contains("1 added"), "\(scratch.output)")
        let check = run(ohkPath, ["check", "--store", b])
        #expect(check.status == 0, "\(check.output)")
    }

    /// Rule 69: SIGKILL at random moments, at least 100 times inside a
    /// run, while a writer commits to the source. An anchored reader of
    /// the destination sees each change of the source once, and at the
    /// end the destination holds the source's live set, verified.
    @Test func rule69_killedAtRandomMomentsItNeitherLosesNorRepeatsAChange() throws {
        let bDir = storeDirectory()
        try killLoop(dest: bDir, extra: [], destDirectory: bDir, killFrom: 0, batch: 2)
    }

    /// The same with the destination on `ohk serve`, over HTTP.
    @Test func rule69_killedAtRandomMomentsOverHTTPItNeitherLosesNorRepeatsAChange() throws {
        let data = temporaryDirectory()
        let made = run(ohkPath, ["token", "create", "--data", data, "--person", "p", "--app", "org.example.sync",
                                 "--read", "all", "--write", "all", "--relay"])
        let token = String(made.output.split(separator: "\n").last ?? "")
        guard made.status == 0, !token.isEmpty, let (pid, out) = spawnWithOutput(
            ohkPath, ["serve", "--data", data, "--listen", "127.0.0.1:0", "--no-sync"], mergeStderr: true) else {
            Issue.record("cannot start ohk serve: \(made.output)")
            return
        }
        defer { kill(pid, SIGKILL); waitpid(pid, nil, 0); close(out) }
        // The port it chose, from its first line.
        var log = ""
        var chunk = [UInt8](repeating: 0, count: 512)
        while !log.contains("listening on http://127.0.0.1:") || !log.contains(", data") {
            let k = read(out, &chunk, chunk.count)
            guard k > 0 else { Issue.record("ohk serve ended: \(log)"); return }
            log += String(decoding: chunk[0..<k], as: UTF8.self)
        }
        let port = log.split(separator: "127.0.0.1:")[1].prefix { $0.isNumber }
        // A run spends its first half starting and asking for the checkpoints:
        // the kills are drawn in its second half, where batches commit, and
        // a batch a change makes that half longer (on a loaded machine, a
        // run of a few large batches was mostly over before its kill).
        try killLoop(dest: "http://127.0.0.1:\(port)/v1/people/p", extra: ["--token", token], destDirectory: data + "/p",
                     killFrom: 0.5, batch: 1)
    }

    /// `killFrom`: the earliest kill, as a fraction of a run's duration.
    /// `batch`: changes per transaction of each run.
    private func killLoop(dest: String, extra: [String], destDirectory: String, killFrom: Double, batch: Int) throws {
        let a = try makeStore()
        defer { a.close() }
        var maker = ChangeMaker(seed: 11)
        var rng = Rng(state: 5)
        for _ in 0..<5 { try maker.commit(a) }
        let first = run(ohkPath, ["sync", a.directory, dest, "--quiet"] + extra, mergeStderr: true)
        #expect(first.status == 0, "\(first.output)")
        let b = try Store(directory: destDirectory)
        defer { b.close() }
        // The reader: every save and deletion of b's feed, once.
        var anchor: QueryAnchor?
        var saved = Set<UUID>(), deleted = Set<UUID>(), repeats: [String] = []
        func read() throws {
            let batch = try b.changes(after: anchor)
            batch.forEach { c in
                let u = c.fields.uuid
                if c.isDeletion {
                    if !deleted.insert(u).inserted { repeats.append("deletion of \(u)") }
                } else if !saved.insert(u).inserted {
                    repeats.append("save of \(u)")
                }
            }
            anchor = batch.newAnchor
        }
        func position() throws -> UInt64 { try b.syncCheckpoints().first?.position ?? 0 }
        var killedInside = 0, round = 0
        var runMicroseconds = 50_000.0, tailMicroseconds = 20_000.0
        let args = ["sync", a.directory, dest, "--batch", "\(batch)", "--quiet"] + extra
        // Odd rounds kill on a timer, anywhere in a run, its start
        // included; even rounds wait until a batch lands and kill in the
        // rest of the copying, so the kills inside do not depend on how
        // loaded the machine is.
        while killedInside < 100 && round < 2_000 {
            round += 1
            let before = try position()
            let write = { for _ in 0..<4 { try maker.commit(a) } }
            let outcome = round % 2 == 1
                ? try killRound(args, rng: &rng, runMicroseconds: &runMicroseconds, from: killFrom, write: write)
                : try killRoundAfterProgress(args, rng: &rng, tailMicroseconds: &tailMicroseconds, write: write,
                                             progressed: { try position() > before })
            guard let r = outcome else {
                Issue.record("cannot start ohk, or it neither copied nor ended in a minute")
                return
            }
            if r.killed {
                if try position() > before { killedInside += 1 }
            } else {
                #expect(r.status == 0, "round \(round): \(r.output)")
            }
            try read()
        }
        #expect(killedInside == 100, "\(killedInside) kills inside a run in \(round) rounds")
        let last = run(ohkPath, ["sync", a.directory, dest, "--quiet"] + extra, mergeStderr: true)
        #expect(last.status == 0 && last.output.contains("stores alike"), "\(last.output)")
        try read()
        #expect(repeats.isEmpty, "\(repeats.prefix(5))")
        // What the reader saw adds up to the source's live set, and the digests agree.
        let feed = try a.changes(after: nil)
        let live = Set((0..<feed.count).compactMap { feed.sample(at: $0)?.uuid })
        #expect(saved.subtracting(deleted) == live)
        #expect(try b.liveDigests() == a.liveDigests())
        #expect(try b.verify().problems == [])
    }

    @Test func rule69_followCopiesAsTheSourceCommitsAndStopsOnSIGTERM() throws {
        let a = try makeStore(), bDir = storeDirectory()
        defer { a.close() }
        var maker = ChangeMaker(seed: 9)
        try maker.commit(a)
        guard let (pid, out) = spawnWithOutput(ohkPath, ["sync", a.directory, bDir, "--follow", "--quiet"], mergeStderr: true) else {
            Issue.record("cannot start ohk")
            return
        }
        var stopped = false
        defer { if !stopped { kill(pid, SIGKILL) } }
        let b = try Store(directory: bDir)
        defer { b.close() }
        func alike() -> Bool { ((try? b.liveDigests()) ?? [:]) == ((try? a.liveDigests()) ?? [:]) }
        #expect(eventually(alike))
        for _ in 0..<5 {
            try maker.commit(a)
            #expect(eventually(alike))
        }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        stopped = true
        let text = readToEnd(out)
        close(out)
        #expect(status & 0x7f == 0 && (status >> 8) & 0xff == 0, "\(text)")
        #expect(text.contains("following"), "\(text)")
    }
}
