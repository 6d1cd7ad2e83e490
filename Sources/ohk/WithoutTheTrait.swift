#if !CommandLineTool
import Glibc

/// A plain `swift build` compiles every target, this one included; the
/// tool itself needs swift-argument-parser, which only the trait brings
/// (so that packages using the libraries never fetch it).
@main
enum OHKWithoutTheTrait {
    static func main() {
        let message = "ohk was built without its trait: build it with `swift build --traits CommandLineTool --product ohk`\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        exit(64)
    }
}
#endif
