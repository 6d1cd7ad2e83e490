import OpenHealthKitPostgres
import XCTest

/// Messages name the server without its password.
final class ConnectionStringTests: XCTestCase {
    func testURIPasswordIsRedacted() {
        XCTAssertEqual(ConnectionString.redacted("postgresql://me:s3cr%40t@db.example:5433/health?sslmode=require"),
                       "postgresql://me:***@db.example:5433/health?sslmode=require")
        XCTAssertEqual(ConnectionString.redacted("postgres://me@db/health?password=hunter2&application_name=x"),
                       "postgres://me@db/health?password=***&application_name=x")
        XCTAssertEqual(ConnectionString.redacted("postgresql://me@localhost/health"), "postgresql://me@localhost/health")
    }

    func testKeywordPasswordIsRedacted() {
        XCTAssertEqual(ConnectionString.redacted("host=db password=hunter2 dbname=health"), "host=db password=*** dbname=health")
        XCTAssertEqual(ConnectionString.redacted("host=db password = 'a b\\' c' dbname=x"), "host=db password = *** dbname=x")
        XCTAssertEqual(ConnectionString.redacted("host=db dbname=health"), "host=db dbname=health")
    }
}
