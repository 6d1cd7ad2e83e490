#if MCPServer
import MCP
import OpenHealthKitJSON

/// The tools `ohk mcp` offers, their input schemas, and which answer
/// each gives. Every schema is an object (MCP clients refuse others).
enum HealthTools {
    private static func schema(_ properties: [String: Value], required: [String] = []) -> Value {
        ["type": "object", "properties": .object(properties), "required": .array(required.map { .string($0) })]
    }

    private static let type: Value = ["type": "string",
                                      "description": "a HealthKit type: StepCount, HeartRate, SleepAnalysis, Workout, or its identifier"]
    private static let from: Value = ["type": "string", "description": "first day or date-time, ISO 8601 (2024-03-01); default: the first sample"]
    private static let to: Value = ["type": "string", "description": "last day (included) or date-time (excluded), ISO 8601; default: the last sample"]
    private static let zone: Value = ["type": "string", "description": "a tz database zone (Europe/Paris) the intervals follow; default UTC"]

    static let all: [Tool] = [
        Tool(name: "store_summary",
             description: "What the store holds: each type with its number of samples, first and last dates, sources and unit.",
             inputSchema: schema([:]), annotations: .init(readOnlyHint: true)),
        Tool(name: "statistics",
             description: "A type's figures per interval (hour, day, week, month, year or N of them), sources merged by "
                + "priority as the Health app merges them: a sum for cumulative types (steps, energy), an average for "
                + "discrete ones (heart rate); a category type's hours per value (sleep by night); workouts per interval. "
                + "At most 500 rows; a cut answer says how to ask for the rest.",
             inputSchema: schema(["type": type, "interval": ["type": "string", "description": "hour, day, week, month, year, or 2day…; default day"],
                                  "from": from, "to": to, "time_zone": zone,
                                  "statistics": ["type": "array", "items": ["type": "string", "enum": ["sum", "average", "min", "max", "mostRecent", "duration"]],
                                                 "description": "default: sum or average, the type's own"],
                                  "by_source": ["type": "boolean", "description": "each source's own figures too"],
                                  "unit": ["type": "string", "description": "the figures' unit (count/min, kg, km); default the type's display unit"]],
                                 required: ["type"]),
             annotations: .init(readOnlyHint: true)),
        Tool(name: "latest",
             description: "The latest samples of a type (by start), with value, unit, dates and source.",
             inputSchema: schema(["type": type, "count": ["type": "integer", "description": "how many, 1 to 500; default 1"],
                                  "unit": ["type": "string", "description": "the values' unit; default the type's display unit"]],
                                 required: ["type"]),
             annotations: .init(readOnlyHint: true)),
        Tool(name: "workouts",
             description: "Workouts, the latest first, each with its activity, dates, duration in minutes, distance in km and "
                + "energy in kcal; copies an app wrote twice are counted once.",
             inputSchema: schema(["from": from, "to": to, "limit": ["type": "integer", "description": "1 to 500; default 50"]]),
             annotations: .init(readOnlyHint: true)),
        Tool(name: "sleep",
             description: "Hours asleep, awake and in bed per night (noon to noon, filed under the day the night ends), "
                + "sources merged by priority.",
             inputSchema: schema(["from": from, "to": to, "time_zone": zone]), annotations: .init(readOnlyHint: true)),
        Tool(name: "changes_since",
             description: "What was added or deleted after an anchor (none: from the start): counts per type, the first "
                + "500 changes, and the anchor to ask from next time.",
             inputSchema: schema(["anchor": ["type": "string", "description": "an anchor an earlier answer gave; omit for everything"],
                                  "types": ["type": "array", "items": ["type": "string"], "description": "default: every type"]]),
             annotations: .init(readOnlyHint: true)),
    ]

    static func call(_ name: String, _ a: ToolArguments, _ answers: HealthAnswers) throws -> String {
        do {
            return try answer(name, a, answers)
        } catch let e as StatsTimeError {  // a date, range or zone the statistics refuse
            throw HealthAnswers.Refusal(e.message)
        }
    }

    private static func answer(_ name: String, _ a: ToolArguments, _ answers: HealthAnswers) throws -> String {
        switch name {
        case "store_summary":
            return try answers.summary()
        case "statistics":
            return try answers.statistics(type: a.required("type"), interval: a.string("interval"), from: a.string("from"),
                                          to: a.string("to"), timeZone: a.string("time_zone"), figures: a.strings("statistics"),
                                          bySource: a.bool("by_source"), unit: a.string("unit"))
        case "latest":
            return try answers.latest(type: a.required("type"), count: a.int("count", default: 1), unit: a.string("unit"))
        case "workouts":
            return try answers.workouts(from: a.string("from"), to: a.string("to"), limit: a.int("limit", default: 50))
        case "sleep":
            return try answers.statistics(type: "HKCategoryTypeIdentifierSleepAnalysis", interval: "day", from: a.string("from"),
                                          to: a.string("to"), timeZone: a.string("time_zone"), figures: [], bySource: false,
                                          unit: nil)
        default:  // changes_since
            return try answers.changes(since: a.string("anchor"), types: a.strings("types"))
        }
    }
}
#endif
