import Foundation
import OpenHealthKitCore

/// HealthKit's error: a code from HealthKit's list and a message
/// (`localizedDescription`). Every failure of this module is one; the
/// core's error it came from is `underlyingError`.
public struct HKError: Error, CustomNSError, LocalizedError, Hashable, @unchecked Sendable {
    /// HealthKit's error codes, with HealthKit's raw values.
    public enum Code: Int, Sendable {
        case errorHealthDataUnavailable = 1
        case errorHealthDataRestricted = 2
        case errorInvalidArgument = 3
        case errorAuthorizationDenied = 4
        case errorAuthorizationNotDetermined = 5
        case errorDatabaseInaccessible = 6
        case errorUserCanceled = 7
        case errorAnotherWorkoutSessionStarted = 8
        case errorUserExitedWorkoutSession = 9
        case errorRequiredAuthorizationDenied = 10
        case errorNoData = 11
        case errorWorkoutActivityNotAllowed = 12
        case errorDataSizeExceeded = 13
        case errorBackgroundWorkoutSessionNotAllowed = 14
        case errorNotPermissibleForGuestUserMode = 15
    }

    public let code: Code
    public let userInfo: [String: Any]

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.userInfo = userInfo
    }

    /// An error with `message` as its localized description.
    public init(_ code: Code, _ message: String) {
        self.init(code, userInfo: [NSLocalizedDescriptionKey: message])
    }

    public static var errorDomain: String { HKErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { userInfo }
    public var errorDescription: String? { userInfo[NSLocalizedDescriptionKey] as? String }
    /// The core's error behind this one, when there is one.
    public var underlyingError: (any Error)? { userInfo[NSUnderlyingErrorKey] as? any Error }

    public static func == (a: HKError, b: HKError) -> Bool {
        a.code == b.code && a.errorDescription == b.errorDescription
    }
    public func hash(into h: inout Hasher) { h.combine(code) }

    public static var errorHealthDataUnavailable: Code { .errorHealthDataUnavailable }
    public static var errorInvalidArgument: Code { .errorInvalidArgument }
    public static var errorAuthorizationDenied: Code { .errorAuthorizationDenied }
    public static var errorDatabaseInaccessible: Code { .errorDatabaseInaccessible }
    public static var errorNoData: Code { .errorNoData }
}

/// `catch HKError.errorInvalidArgument { … }`, as with HealthKit.
public func ~= (code: HKError.Code, error: any Error) -> Bool {
    (error as? HKError)?.code == code
}

/// HealthKit's error domain.
public let HKErrorDomain = "com.apple.healthkit"

extension HKError {
    /// The HealthKit code for one of the core's errors: bad input of any
    /// kind is `errorInvalidArgument` (HealthKit's answer to a bad
    /// argument); a missing object is `errorNoData`; a store that cannot be
    /// opened or read is `errorDatabaseInaccessible`.
    init(core error: any Error) {
        if let e = error as? HKError { self = e; return }
        let core = error as? OHKError ?? OHKError(.storage, "\(error)")
        let code: Code
        switch core.code {
        case .notFound: code = .errorNoData
        case .storage, .closed, .storeFormatTooNew, .storeFormatTooOld, .storeCorrupt: code = .errorDatabaseInaccessible
        default: code = .errorInvalidArgument
        }
        self.init(code, userInfo: [NSLocalizedDescriptionKey: core.message, NSUnderlyingErrorKey: core])
    }

    static func invalid(_ message: String) -> HKError { HKError(.errorInvalidArgument, message) }
}

/// Runs `body`, turning any error into an `HKError`.
func hk<T>(_ body: () throws -> T) throws(HKError) -> T {
    do { return try body() } catch { throw HKError(core: error) }
}
