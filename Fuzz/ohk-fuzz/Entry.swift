import FoundationEssentials
import Glibc

/// A line on standard error.
func complain(_ text: String) {
    let line = text + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

#if OHK_FUZZING
import CFuzzer

// Built by `make fuzz` with -sanitize=fuzzer,address: libFuzzer's driver
// calls `fuzzOne` for every input; OHK_FUZZ_TARGET names the target.
nonisolated(unsafe) private var target = FuzzTarget.predicate

/// libFuzzer's entry for one input (its library refers to the name even
/// when the driver is handed the callback).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    target.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}

@main struct FuzzMain {
    static func main() {
        guard let name = getenv("OHK_FUZZ_TARGET").map({ String(cString: $0) }), let t = FuzzTarget(rawValue: name) else {
            complain("set OHK_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: " "))")
            exit(2)
        }
        target = t
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOne(data, size) })
    }
}
#else
/// Without the fuzzer: `ohk-fuzz TARGET FILE|DIR...` runs each file (or
/// each file of each directory) through the target once, so the seed
/// corpus and any crash a fuzzer found replay in the ordinary test run.
@main struct Replay {
    static func main() {
        let args = CommandLine.arguments
        guard args.count >= 3, let target = FuzzTarget(rawValue: args[1]) else {
            complain("usage: ohk-fuzz TARGET FILE|DIR...   (targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: " ")))")
            exit(2)
        }
        var count = 0
        for path in args[2...] {
            for file in files(path) {
                guard let bytes = read(file) else {
                    complain("ohk-fuzz: cannot read \(file)")
                    exit(1)
                }
                bytes.withUnsafeBytes { target.run($0) }
                count += 1
            }
        }
        print("ohk-fuzz \(target.rawValue): \(count) inputs replayed, no crash")
    }

    static func files(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [path] }
        defer { closedir(dir) }
        var out: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { out.append(path + "/" + name) }
        }
        return out.sorted()
    }

    static func read(_ file: String) -> [UInt8]? {
        guard let f = fopen(file, "rb") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n <= 0 { break }
            out += chunk[0..<n]
        }
        return out
    }
}
#endif
