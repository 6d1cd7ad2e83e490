// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "OpenHealthKit",
    products: [
        .library(name: "OpenHealthKitCore", targets: ["OpenHealthKitCore"]),
        // The C library, libopenhealthkit.so (see `make lib`).
        .library(name: "openhealthkit", type: .dynamic, targets: ["OpenHealthKitC"]),
        // Apple Health export import (export.zip or export.xml).
        .library(name: "OpenHealthKitImport", targets: ["OpenHealthKitImport"]),
        // HealthKit's Swift API (HKHealthStore, HKAnchoredObjectQuery, …) over the core.
        .library(name: "OpenHealthKit", targets: ["OpenHealthKit"]),
        .executable(name: "ohk", targets: ["ohk"]),
    ],
    // The ohk tool is built with `--traits CommandLineTool` (the Makefile
    // does); off by default, so that a package using only the libraries
    // never fetches swift-argument-parser.
    traits: [
        .trait(name: "CommandLineTool", description: "The ohk tool and its tests (needs swift-argument-parser)."),
        // `ohk serve` and `ohk token` (docs/server.md): the HTTP server
        // library stays out of the C library and of the plain ohk.
        .trait(name: "Server", description: "ohk serve and ohk token (needs Hummingbird).", enabledTraits: ["CommandLineTool"]),
        // `ohk mcp` (docs/mcp.md): the MCP server over stdio, for AI clients.
        .trait(name: "MCPServer", description: "ohk mcp, an MCP server over stdio (needs the MCP Swift SDK).",
               enabledTraits: ["CommandLineTool"]),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", exact: "0.12.1"),
    ],
    targets: [
        // liblmdb through pkg-config (Debian: liblmdb-dev).
        .systemLibrary(
            name: "CLMDB",
            path: "Sources/CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        // futex and shared-memory atomics (header-only, nothing to link).
        .systemLibrary(name: "COHKSystem", path: "Sources/COHKSystem"),
        // The engine: FoundationEssentials at most, never full Foundation.
        .target(
            name: "OpenHealthKitCore",
            dependencies: ["CLMDB", "COHKSystem"],
            path: "Sources/OpenHealthKitCore"
        ),
        // The C API's plain types (status codes, structs), written in C once.
        .systemLibrary(name: "COpenHealthKit", path: "Sources/COpenHealthKit"),
        // The C API: @c entry points over the core.
        .target(
            name: "OpenHealthKitC",
            dependencies: ["OpenHealthKitCore", "COpenHealthKit", "OpenHealthKitImport", "OpenHealthKitPostgres",
                           "OpenHealthKitRemote"],
            path: "Sources/OpenHealthKitC"
        ),
        // What the importer reads with: expat (XML), libarchive (zip),
        // libcrypto (SHA-1 for name-based UUIDs); headers only (Debian:
        // libexpat1-dev, libarchive-dev, libssl-dev). CImportLibs opens the
        // libraries when an import first needs them, so that the C library
        // depends on none of them.
        .systemLibrary(name: "CExpat", path: "Sources/CExpat"),
        .systemLibrary(name: "CArchive", path: "Sources/CArchive"),
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto"),
        .target(
            name: "CImportLibs",
            path: "Sources/CImportLibs",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // Apple Health export → samples, streamed into a store.
        .target(
            name: "OpenHealthKitImport",
            dependencies: ["OpenHealthKitCore", "CExpat", "CArchive", "CCrypto", "CImportLibs"],
            path: "Sources/OpenHealthKitImport"
        ),
        // HealthKit's names and signatures over the core; full Foundation
        // (NSObject, NSPredicate, NSSecureCoding) is allowed here only.
        .target(
            name: "OpenHealthKit",
            dependencies: ["OpenHealthKitCore"],
            path: "Sources/OpenHealthKit"
        ),
        // Samples as JSON text: ohk's output and the sink's jsonb columns.
        .target(
            name: "OpenHealthKitJSON",
            dependencies: ["OpenHealthKitCore"],
            path: "Sources/OpenHealthKitJSON"
        ),
        // The PostgreSQL sink (docs/postgres.md): libpq is opened when a
        // sink connects, so nothing here links beyond the core.
        .target(
            name: "OpenHealthKitPostgres",
            dependencies: ["OpenHealthKitCore", "OpenHealthKitJSON"],
            path: "Sources/OpenHealthKitPostgres",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // What `ohk serve` takes from a request, without HTTP: the upload
        // decoder, grants and person names (the fuzzer reaches it alone).
        .target(
            name: "OpenHealthKitUpload",
            // The importer's content UUIDs, for Health Auto Export's points.
            dependencies: ["OpenHealthKitCore", "OpenHealthKitJSON", "OpenHealthKitImport"],
            path: "Sources/OpenHealthKitUpload"
        ),
        // libcurl for `ohk sync` over HTTP, opened with dlopen on the first
        // request (headers only: Debian's libcurl4-openssl-dev).
        .target(
            name: "CHTTPClient",
            path: "Sources/CHTTPClient",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // A store of `ohk serve` as a sync's source or destination (docs/sync.md).
        .target(
            name: "OpenHealthKitRemote",
            dependencies: ["OpenHealthKitCore", "CHTTPClient"],
            path: "Sources/OpenHealthKitRemote"
        ),
        // The HTTP server of `ohk serve` (docs/server.md).
        .target(
            name: "OpenHealthKitServer",
            dependencies: ["OpenHealthKitCore", "OpenHealthKitJSON", "OpenHealthKitUpload", "OpenHealthKitImport", "COHKSystem",
                           // Under the trait, so that a package using the
                           // libraries never fetches them (its sources are
                           // empty without the trait).
                           .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                           .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Server"])),
                           .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Server"])),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle",
                                    condition: .when(traits: ["Server"]))],
            path: "Sources/OpenHealthKitServer"
        ),
        // `ohk mcp`: a store's samples as MCP tools (docs/mcp.md).
        .target(
            name: "OpenHealthKitMCP",
            dependencies: ["OpenHealthKitCore", "OpenHealthKitJSON",
                           .product(name: "MCP", package: "swift-sdk", condition: .when(traits: ["MCPServer"]))],
            path: "Sources/OpenHealthKitMCP"
        ),
        // The command-line tool.
        .executableTarget(
            name: "ohk",
            dependencies: ["OpenHealthKitCore", "OpenHealthKitImport", "OpenHealthKitJSON", "OpenHealthKitPostgres",
                           "OpenHealthKitRemote",
                           .product(name: "ArgumentParser", package: "swift-argument-parser",
                                    condition: .when(traits: ["CommandLineTool"])),
                           .target(name: "OpenHealthKitServer", condition: .when(traits: ["Server"])),
                           .target(name: "OpenHealthKitUpload", condition: .when(traits: ["Server"])),
                           .target(name: "OpenHealthKitMCP", condition: .when(traits: ["MCPServer"]))],
            path: "Sources/ohk"
        ),
        // The reference workload's data and clocks, shared by the benchmarks.
        .target(
            name: "Workload",
            dependencies: ["OpenHealthKitCore"],
            path: "Benchmarks/Workload"
        ),
        .executableTarget(
            name: "ohk-bench",
            dependencies: ["OpenHealthKitCore", "Workload"],
            path: "Benchmarks/ohk-bench",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "hk-bench",
            dependencies: ["OpenHealthKit", "OpenHealthKitCore", "Workload"],
            path: "Benchmarks/hk-bench",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "swift-quickstart",
            dependencies: ["OpenHealthKitCore"],
            path: "examples/swift-quickstart"
        ),
        // A HealthKit-style app in Swift 6 mode (make test runs it).
        .executableTarget(
            name: "swift6-app",
            dependencies: ["OpenHealthKit", "OpenHealthKitCore"],
            path: "examples/swift6-app",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // A phone's sync to `ohk serve`, written as an iOS app is
        // (docs/phone-sync.md); Tests/server/test_phone_sync.py runs it.
        .executableTarget(
            name: "phone-sync",
            dependencies: ["OpenHealthKit"],
            path: "examples/phone-sync",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // The other process of the cross-process tests.
        .executableTarget(
            name: "ohk-test-writer",
            dependencies: ["OpenHealthKitCore", "COHKSystem"],
            path: "Tests/ohk-test-writer"
        ),
        // Fuzz targets (make fuzz builds them with libFuzzer; built plainly,
        // the program replays a corpus through one of them).
        .systemLibrary(name: "CFuzzer", path: "Fuzz/CFuzzer"),
        .executableTarget(
            name: "ohk-fuzz",
            dependencies: ["OpenHealthKitCore", "OpenHealthKitImport", "OpenHealthKitUpload", "CFuzzer"],
            path: "Fuzz/ohk-fuzz"
        ),
        // The crash and stress suite (make reliability).
        .executableTarget(
            name: "ohk-reliability",
            dependencies: ["OpenHealthKitCore", "TestSupport", "CCrypto"],
            path: "Tests/ohk-reliability",
            // SHA-256 for the byte flips' fingerprints.
            linkerSettings: [.linkedLibrary("crypto")]
        ),
        // Processes and temporary directories for the test targets.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "OpenHealthKitCoreTests",
            dependencies: ["OpenHealthKitCore", "ohk-test-writer", "TestSupport"],
            path: "Tests/OpenHealthKitCoreTests"
        ),
        .testTarget(
            name: "OpenHealthKitImportTests",
            dependencies: ["OpenHealthKitImport", "OpenHealthKitCore", "ohk", "TestSupport"],
            path: "Tests/OpenHealthKitImportTests"
        ),
        // The commands that feed other stores, as processes: the PostgreSQL
        // sink against a throwaway cluster (scripts/pg_cluster.sh), and `ohk sync`.
        .testTarget(
            name: "OpenHealthKitPostgresTests",
            dependencies: ["OpenHealthKitPostgres", "OpenHealthKitCore", "ohk", "TestSupport"],
            path: "Tests/OpenHealthKitPostgresTests"
        ),
        // The upload decoder of `ohk serve` without HTTP: every kind's JSON
        // read back equal (the server's own tests are in Tests/server).
        .testTarget(
            name: "OpenHealthKitUploadTests",
            dependencies: ["OpenHealthKitUpload", "OpenHealthKitJSON", "OpenHealthKitCore", "TestSupport"],
            path: "Tests/OpenHealthKitUploadTests"
        ),
        // The seeds' Swift code, compiled against OpenHealthKit, and the
        // API's own tests (Swift 5 mode: the seeds are Swift 5 code).
        .testTarget(
            name: "OpenHealthKitTests",
            dependencies: ["OpenHealthKit", "OpenHealthKitCore", "ohk-test-writer", "TestSupport"],
            path: "Tests/OpenHealthKitTests",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
