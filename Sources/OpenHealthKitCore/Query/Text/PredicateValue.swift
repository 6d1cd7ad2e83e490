import FoundationEssentials

/// A typed value bound to a `$n` parameter of predicate text, so callers
/// never build predicate text by hand.
public enum PredicateValue: Hashable, Sendable {
    case string(String)
    case number(Double)
    case date(Date)
    case bool(Bool)
    case uuid(UUID)
    case quantity(Double, HealthUnit)
    /// `nil` in text: no device, no such device field.
    case null
    /// For `IN` and `BETWEEN`.
    case list([PredicateValue])
}
