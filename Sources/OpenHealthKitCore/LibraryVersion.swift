/// The library's version, "MAJOR.MINOR.PATCH": the same as the C header's
/// OHK_VERSION_STRING (a test holds them equal), for `ohk --version`.
public enum LibraryVersion {
    public static let string = "0.24.0"
}
