#!/usr/bin/env bash
# A user's package, as a new user makes one: it depends on this repository
# by path, uses only the OpenHealthKit library, and has the same HealthKit
# code in a Swift 5 and a Swift 6 language-mode target. Fails when the
# build prints a warning, or when resolving fetched a package (the library
# needs none: swift-argument-parser is the ohk tool's, behind a trait).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

mkdir -p "$dir/Sources/App5" "$dir/Sources/App6"
cat > "$dir/Package.swift" <<EOF
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "UserApp",
    dependencies: [.package(path: "$repo")],
    targets: [
        .executableTarget(name: "App5", dependencies: [.product(name: "OpenHealthKit", package: "$(basename "$repo")")],
                          swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(name: "App6", dependencies: [.product(name: "OpenHealthKit", package: "$(basename "$repo")")],
                          swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
EOF
cat > "$dir/Sources/App6/main.swift" <<'EOF'
import Foundation
import OpenHealthKit

let store = HKHealthStore()
let heartRate = HKQuantityType(.heartRate)
let fast = HKQuery.predicateForQuantitySamples(with: .greaterThanOrEqualTo,
                                               quantity: HKQuantity(unit: .count().unitDivided(by: .minute()), doubleValue: 100))
let latest = HKSampleQuery(sampleType: heartRate, predicate: fast, limit: 100,
                           sortDescriptors: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)]) { _, samples, _ in
    let bpm = (samples ?? []).compactMap { ($0 as? HKQuantitySample)?.quantity.doubleValue(for: .count().unitDivided(by: .minute())) }
    print(bpm.count)
}
store.execute(latest)
let sources = HKSourceQuery(sampleType: heartRate, samplePredicate: nil) { _, sources, _ in print((sources ?? []).map { $0.name }) }
store.execute(sources)
let observer = HKObserverQuery(sampleType: heartRate, predicate: nil) { _, completion, _ in
    let anchored = HKAnchoredObjectQuery(type: heartRate, predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) { _, added, _, _, _ in
        print((added ?? []).map { $0.uuid })
        completion()
    }
    store.execute(anchored)
}
store.execute(observer)
let daily = HKStatisticsCollectionQuery(quantityType: HKQuantityType(.stepCount), quantitySamplePredicate: nil,
                                        options: .cumulativeSum, anchorDate: Date(), intervalComponents: DateComponents(day: 1))
daily.initialResultsHandler = { _, collection, _ in print((collection?.statistics() ?? []).map { $0.sumQuantity() }) }
store.execute(daily)
let units = try await store.preferredUnits(for: [heartRate])
let newest = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: heartRate)],
                                               sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)], limit: 1).result(for: store)
print(units, newest)
EOF
cp "$dir/Sources/App6/main.swift" "$dir/Sources/App5/main.swift"

cd "$dir"
log=$(swift build 2>&1) || { echo "$log"; echo "check_user_package: the user's package does not build"; exit 1; }
if grep -q "warning:" <<<"$log"; then
    grep "warning:" <<<"$log" | sort -u
    echo "check_user_package: a user's build prints warnings"
    exit 1
fi
if [ -d .build/checkouts ] && [ -n "$(ls -A .build/checkouts)" ]; then
    echo "check_user_package: resolving fetched $(ls .build/checkouts | tr '\n' ' '): the library needs no package"
    exit 1
fi
echo "check_user_package: a user's package builds in Swift 5 and 6 modes without a warning, fetching nothing"
