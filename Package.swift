// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "OpenHealthKit",
    products: [
        .library(name: "OpenHealthKitCore", targets: ["OpenHealthKitCore"]),
    ],
    targets: [
        // liblmdb through pkg-config (Debian: liblmdb-dev).
        .systemLibrary(
            name: "CLMDB",
            path: "Sources/CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        // The engine: FoundationEssentials at most, never full Foundation.
        .target(
            name: "OpenHealthKitCore",
            dependencies: ["CLMDB"],
            path: "Sources/OpenHealthKitCore"
        ),
        .executableTarget(
            name: "ohk-bench",
            dependencies: ["OpenHealthKitCore"],
            path: "Benchmarks/ohk-bench",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "swift-quickstart",
            dependencies: ["OpenHealthKitCore"],
            path: "Examples/swift-quickstart"
        ),
        .testTarget(
            name: "OpenHealthKitCoreTests",
            dependencies: ["OpenHealthKitCore"],
            path: "Tests/OpenHealthKitCoreTests"
        ),
    ]
)
