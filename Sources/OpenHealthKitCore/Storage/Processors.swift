import COHKSystem
import Glibc

/// What the machine has for work split between threads.
enum Processors {
    /// Whether there is a second processor: asked once (glibc reads
    /// /sys for it on every call).
    static let several = sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1
}
