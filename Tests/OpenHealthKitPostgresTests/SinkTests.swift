import FoundationEssentials
import Glibc
import OpenHealthKitCore
import OpenHealthKitPostgres
import Testing
import TestSupport

/// The PostgreSQL sink against a real server (rule 61).
@Suite struct SinkTests {
    @Test func rule61_eachChangeIsDeliveredOnceWithItsCheckpoint() throws {
        let (cluster, db) = try newDatabase()
        let store = try makeStore()
        var maker = ChangeMaker(seed: 61)
        for _ in 0..<30 { try maker.commit(store) }
        let walk = try Sample.workout(Workout(activityType: 52, duration: 1800, totalEnergyBurned: 120), start: t0,
                                      end: t0.addingTimeInterval(1800), source: appA)
        _ = try store.save([walk])
        var options = SinkOptions()
        options.person = "p-1"
        options.batchSize = 7
        let sink = try PostgresSink(store: store, url: db, options: options)
        #expect(sink.fence == 1)
        try sink.deliverAvailable()
        #expect(try mirrorProblems(store, cluster, db, person: "p-1") == [])
        #expect(sink.progress.batches > 5)
        // More changes, delivered by the same sink, then by a new one that
        // reads the checkpoint back and finds nothing to do.
        for _ in 0..<10 { try maker.commit(store) }
        try sink.deliverAvailable()
        #expect(try mirrorProblems(store, cluster, db, person: "p-1") == [])
        let again = try PostgresSink(store: store, url: db, options: options)
        #expect(again.fence == 2)
        #expect(try again.deliverBatch() == false)
        #expect(try mirrorProblems(store, cluster, db, person: "p-1") == [])

        // Each column as the store has it.
        let one = maker.live.last!
        let row = try cluster.psql(db, """
            SELECT type, value, unit, start_time = '\(TextFormsForTests.time(one.startDate))'::timestamptz,
                   source_bundle, source_name, source_version, device->>'name', utc_offset
            FROM ohk_samples WHERE uuid = '\(one.uuid.uuidString)'
            """)
        if case .quantity(let v) = one.value {
            #expect(row == "\(one.type.identifier)|\(TextFormsForTests.number(v))|count|t|com.example.a|A|1.0|Apple Watch|3600\n")
        }
        let synced = try cluster.psql(db, "SELECT count(*) FROM ohk_samples WHERE sync_identifier IS NOT NULL "
                                      + "AND sync_version > 0 AND metadata ? 'HKMetadataKeySyncIdentifier'")
        #expect(Int(synced.split(separator: "\n")[0])! > 0)
        let workout = try cluster.psql(db, "SELECT value, unit, payload->'workout'->>'activityType', "
                                       + "payload->'workout'->>'totalEnergyBurnedKcal' FROM ohk_samples WHERE uuid = '\(walk.uuid.uuidString)'")
        #expect(workout == "1800|s|Walking|120\n")
        let category = try cluster.psql(db, "SELECT count(*) FILTER (WHERE category_value IS NULL OR value IS NOT NULL) "
                                        + "FROM ohk_samples WHERE type = '\(sleep.identifier)'")
        #expect(category == "0\n")
    }

    @Test func rule61_aSecondSinkFencesTheFirst() throws {
        let (cluster, db) = try newDatabase()
        let store = try makeStore()
        var maker = ChangeMaker(seed: 2)
        for _ in 0..<5 { try maker.commit(store) }
        var options = SinkOptions()
        options.person = "p-2"
        let first = try PostgresSink(store: store, url: db, options: options)
        try first.deliverAvailable()
        for _ in 0..<5 { try maker.commit(store) }
        let second = try PostgresSink(store: store, url: db, options: options)
        #expect(second.fence == first.fence + 1)
        let error = #expect(throws: SinkError.self) { try first.deliverBatch() }
        #expect(error?.kind == .fenced)
        #expect(error?.message.contains("fenced off by another") == true)
        try second.deliverAvailable()
        #expect(try mirrorProblems(store, cluster, db, person: "p-2") == [])
        // Another sink name is another checkpoint, and is not fenced.
        options.name = "archive"
        let other = try PostgresSink(store: store, url: db, options: options)
        try other.deliverAvailable()
        #expect(try mirrorProblems(store, cluster, db, person: "p-2", sink: "archive") == [])
    }

    @Test func rule61_aRowPostgresRefusesNamesItsSampleAndMovesNothing() throws {
        let (cluster, db) = try newDatabase()
        let store = try makeStore()
        let good = try stepSample(5, minute: 1)
        // jsonb refuses \u0000, which a metadata string may hold.
        let bad = try stepSample(6, minute: 2, metadata: ["note": .string("a\u{0}b")])
        _ = try store.save([good, bad])
        var options = SinkOptions()
        options.person = "p-3"
        let sink = try PostgresSink(store: store, url: db, options: options)
        let error = #expect(throws: SinkError.self) { try sink.deliverAvailable() }
        #expect(error?.kind == .server)
        #expect(error?.message.contains(bad.uuid.uuidString) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("rolled back") == true)
        #expect(error?.message.contains("column metadata") == true)
        #expect(try cluster.psql(db, "SELECT count(*) FROM ohk_samples") == "0\n")
        #expect(try cluster.psql(db, "SELECT count(*) FROM ohk_changes") == "0\n")
        #expect(try cluster.psql(db, "SELECT position FROM ohk_sink_checkpoints") == "0\n")
    }

    @Test func rule61_badServersAreClearErrorsWithoutThePassword() throws {
        let (cluster, db) = try newDatabase()
        let store = try makeStore()
        _ = try store.save([try stepSample(5, minute: 1)])
        let before = try store.currentAnchor()
        let port = cluster.url.split(separator: ":")[3].split(separator: "/")[0]
        let cases = [
            "postgresql://ohk:wrong-secret@127.0.0.1:\(port)/postgres",   // bad credentials
            "postgresql://ohk:ohk-test-password@127.0.0.1:\(port)/no_such_db",  // missing database
            "postgresql://ohk:ohk-test-password@127.0.0.1:1/postgres?connect_timeout=5",  // nothing listens
            "postgresql:/ohk:secret@127.0.0.1/postgres",  // not a URL: libpq quotes it
        ]
        for url in cases {
            let error = #expect(throws: SinkError.self) { try PostgresSink(store: store, url: url) }
            #expect(error?.kind == .connect)
            #expect(error?.message.contains("secret") == false && error?.message.contains("password@") == false)
            #expect(error?.message.contains("127.0.0.1") == !url.hasPrefix("postgresql:/o"))
        }
        #expect(try store.currentAnchor() == before)
        // The command line: exit 1, the message, the store untouched.
        let r = run(ohkPath, ["sink", "postgres", "--store", store.directory, "--url", cases[0]], mergeStderr: true)
        #expect(r.status == 1)
        #expect(r.output.contains("cannot connect to postgresql://ohk:***@127.0.0.1"))
        #expect(!r.output.contains("wrong-secret"))
        _ = db
    }

    @Test func rule61_aNameAndPersonFedByAnotherStoreAreRefused() throws {
        let (_, db) = try newDatabase()
        let a = try makeStore(), b = try makeStore()
        var options = SinkOptions()
        options.person = "shared"
        _ = try PostgresSink(store: a, url: db, options: options)
        let error = #expect(throws: SinkError.self) { try PostgresSink(store: b, url: db, options: options) }
        #expect(error?.kind == .checkpoint)
        #expect(error?.message.contains("--person") == true)
    }
}

/// ohk's text forms, as the tests compare them.
enum TextFormsForTests {
    static func time(_ d: Date) -> String { ISODate.format(d) }
    static func number(_ v: Double) -> String { v == v.rounded() ? String(Int64(v)) : "\(v)" }
}
