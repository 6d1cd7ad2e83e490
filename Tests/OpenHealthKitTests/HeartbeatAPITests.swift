// Heartbeat series through HealthKit's calls (rule 39).
import Foundation
@testable import OpenHealthKit
import OpenHealthKitCore
import Testing

@Suite struct HeartbeatAPITests {
    @Test func rule39_aHeartbeatSeriesQueryGivesEachBeatThenDone() async throws {
        let store = try freshHealthStore()
        let core = try store.coreStore()
        let beats = [0.0, 0.82, 1.65, 2.9].enumerated().map { HeartbeatSeries.Beat(timeSinceStart: $1, precededByGap: $0 == 3) }
        let saved = try OpenHealthKitCore.Sample.heartbeatSeries(HeartbeatSeries(beats: beats), start: day0, end: day0 + 60,
                                                                 source: OpenHealthKitCore.Source(bundleIdentifier: "com.example.watch", name: "Watch"))
        _ = try core.save([saved])

        let found = try await HKSampleQueryDescriptor(predicates: [.sample(type: HKSeriesType.heartbeat())], sortDescriptors: [])
            .result(for: store)
        let series = try #require(found.first as? HKHeartbeatSeriesSample)
        #expect(found.count == 1 && series.count == 4 && series.uuid == saved.uuid)
        // HKSeriesSample is its base, as on Apple's platforms (and a route's).
        #expect((found.first as? HKSeriesSample)?.count == 4)

        let done = Transcript()
        store.execute(HKHeartbeatSeriesQuery(heartbeatSeries: series) { _, time, gap, finished, error in
            done.record("beat \(time) \(gap) \(finished) \(error == nil)")
        })
        #expect(await done.wait(forLinesStartingWith: "beat", count: 4))
        #expect(done.lines == ["beat 0.0 false false true", "beat 0.82 false false true", "beat 1.65 false false true",
                               "beat 2.9 true true true"])
        let all = try await HKHeartbeatSeriesQueryDescriptor(series).result(for: store)
        #expect(all.map(\.timeIntervalSinceStart) == [0, 0.82, 1.65, 2.9] && all.last?.precededByGap == true)
    }
}

@Suite struct AudiogramAPITests {
    /// An audiogram through HealthKit's classes (rule 40).
    @Test func rule40_anAudiogramSampleHasItsSensitivityPoints() async throws {
        let store = try freshHealthStore()
        let a = Audiogram(points: [.init(frequency: 500, left: .init(sensitivity: 25, masked: true),
                                         right: .init(sensitivity: 10, clampingRange: .init(lowerBound: -5, upperBound: 80))),
                                   .init(frequency: 4000, left: .init(sensitivity: 40))])
        let saved = try OpenHealthKitCore.Sample.audiogram(a, start: day0, end: day0,
                                                           source: OpenHealthKitCore.Source(bundleIdentifier: "com.example.hearing", name: "Hearing"))
        _ = try store.coreStore().save([saved])
        let found = try await HKSampleQueryDescriptor(predicates: [.sample(type: HKObjectType.audiogramSampleType())], sortDescriptors: [])
            .result(for: store)
        let sample = try #require(found.first as? HKAudiogramSample)
        #expect(sample.sensitivityPoints.map { $0.frequency.doubleValue(for: .hertzUnit(with: .kilo)) } == [0.5, 4])
        #expect(sample.sensitivityPoints[0].leftEarSensitivity?.doubleValue(for: .decibelHearingLevel()) == 25)
        #expect(sample.sensitivityPoints[1].rightEarSensitivity == nil)
        // iOS 18.1's form: a test per ear tested, with masking and clamping.
        let tests = sample.sensitivityPoints[0].tests
        #expect(tests.map(\.side) == [.left, .right] && tests.map(\.type) == [.air, .air])
        #expect(tests.map(\.masked) == [true, false] && tests[0].clampingRange == nil)
        #expect(tests[1].clampingRange?.lowerBound?.doubleValue(for: .decibelHearingLevel()) == -5)
        #expect(tests[1].clampingRange?.upperBound?.doubleValue(for: .decibelHearingLevel()) == 80)
        #expect(sample.sensitivityPoints[1].tests.map(\.side) == [.left])
    }

}
