// openhealthkit.h section 160: Anchors
import COpenHealthKit
import FoundationEssentials
import Glibc
import OpenHealthKitCore

/// ohk_anchor ⇄ QueryAnchor: the anchor's bytes, zero-padded; a zero
/// first byte is "no anchor" (no anchor format starts with 0).
enum AnchorValue {
    static func make(_ a: QueryAnchor) -> ohk_anchor {
        var v = ohk_anchor()
        _ = withUnsafeMutableBytes(of: &v.data) { a.encode(into: $0) }
        return v
    }

    /// The anchor in `p`; nil for NULL or "no anchor".
    static func read(_ p: UnsafePointer<ohk_anchor>?) throws -> QueryAnchor? {
        guard let p else { return nil }
        return try withUnsafeBytes(of: p.pointee.data) { raw -> QueryAnchor? in
            if raw[0] == 0 { return nil }
            let size = raw[0] == 0x81 ? 13 : 37
            return try QueryAnchor(bytes: UnsafeRawBufferPointer(rebasing: raw[0..<size]))
        }
    }

    static func required(_ p: UnsafePointer<ohk_anchor>?, _ what: @autoclosure () -> String) throws -> QueryAnchor? {
        guard p != nil else { throw CError(.invalidArgument, "\(what()) is NULL") }
        return try read(p)
    }

    /// A real anchor in `p`: "no anchor" has no persistent form (rule 2:
    /// absence is spelled as absence), so it is refused here.
    static func persistent(_ p: UnsafePointer<ohk_anchor>?, _ what: @autoclosure () -> String) throws -> QueryAnchor {
        guard let a = try required(p, what()) else {
            throw CError(.invalidArgument, "\(what()) is \"no anchor\", which has no bytes or text: keep its absence instead (NULL)")
        }
        return a
    }
}

/// Reads an anchor from its persistent bytes (ohk_anchor_to_bytes).
/// Returns OHK_OK; OHK_ERR_ANCHOR_CORRUPT for truncated, altered or
/// unknown bytes; OHK_ERR_INVALID_ARGUMENT for NULL. Any thread.
@c public func ohk_anchor_from_bytes(_ out_anchor: UnsafeMutablePointer<ohk_anchor>?,
                                     _ bytes: UnsafePointer<UInt8>?, _ length: UInt64) -> ohk_status {
    cCall {
        let result = try out(out_anchor, "out_anchor")
        let b = try buffer(bytes, length, "bytes")
        result.pointee = AnchorValue.make(try QueryAnchor(bytes: Array(b)))
    }
}

/// Writes an anchor's persistent bytes to `buffer` (capacity bytes) and
/// their length to *out_length; OHK_ANCHOR_SIZE bytes always suffice.
/// "No anchor" (a zeroed ohk_anchor) has no bytes: OHK_ERR_INVALID_ARGUMENT
/// (keep its absence instead). Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT,
/// OHK_ERR_ANCHOR_CORRUPT, or OHK_ERR_BUFFER_TOO_SMALL (*out_length then
/// holds the size needed). Any thread.
@c public func ohk_anchor_to_bytes(_ buffer: UnsafeMutablePointer<UInt8>?, _ capacity: UInt64,
                                   _ out_length: UnsafeMutablePointer<UInt64>?,
                                   _ anchor: UnsafePointer<ohk_anchor>?) -> ohk_status {
    cCall {
        let length = try out(out_length, "out_length")
        let bytes = try AnchorValue.persistent(anchor, "anchor").bytes
        length.pointee = UInt64(bytes.count)
        guard UInt64(bytes.count) <= capacity else {
            throw CError(status: Int32(OHK_ERR_BUFFER_TOO_SMALL), "the anchor needs \(bytes.count) bytes, the buffer has \(capacity)")
        }
        try out(buffer, "buffer").update(from: bytes, count: bytes.count)
    }
}

/// Reads an anchor from its text form (ohk_anchor_to_text: base64 of its
/// bytes). The empty string is a truncated anchor, OHK_ERR_ANCHOR_CORRUPT,
/// like empty bytes: "no anchor" is NULL where a query takes an anchor.
/// Returns OHK_OK, OHK_ERR_ANCHOR_CORRUPT, OHK_ERR_INVALID_ARGUMENT. Any
/// thread.
@c public func ohk_anchor_from_text(_ out_anchor: UnsafeMutablePointer<ohk_anchor>?,
                                    _ text: UnsafePointer<CChar>?) -> ohk_status {
    cCall {
        let result = try out(out_anchor, "out_anchor")
        let t = try string(text, "text")
        result.pointee = AnchorValue.make(try QueryAnchor(base64: t))
    }
}

/// Writes an anchor's text form, NUL-terminated, to `buffer` (capacity
/// bytes; OHK_ANCHOR_TEXT_SIZE always suffices). "No anchor" has no text:
/// OHK_ERR_INVALID_ARGUMENT. Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT,
/// OHK_ERR_ANCHOR_CORRUPT,
/// OHK_ERR_BUFFER_TOO_SMALL. Any thread.
@c public func ohk_anchor_to_text(_ buffer: UnsafeMutablePointer<CChar>?, _ capacity: UInt64,
                                  _ anchor: UnsafePointer<ohk_anchor>?) -> ohk_status {
    cCall {
        let b = try out(buffer, "buffer")
        let text = try AnchorValue.persistent(anchor, "anchor").base64
        let utf8 = Array(text.utf8CString)
        guard UInt64(utf8.count) <= capacity else {
            throw CError(status: Int32(OHK_ERR_BUFFER_TOO_SMALL), "the anchor's text needs \(utf8.count) bytes, the buffer has \(capacity)")
        }
        b.update(from: utf8, count: utf8.count)
    }
}

/// HealthKit's legacy integer anchor (HKQueryAnchor(fromValue:)): position
/// `value` in any store; 0 is the same as no anchor. Negative values are
/// OHK_ERR_INVALID_ARGUMENT. Any thread.
@c public func ohk_anchor_from_value(_ out_anchor: UnsafeMutablePointer<ohk_anchor>?, _ value: Int64) -> ohk_status {
    cCall {
        let result = try out(out_anchor, "out_anchor")
        guard value >= 0 else { throw CError(.invalidArgument, "an anchor value must be ≥ 0, got \(value)") }
        result.pointee = value == 0 ? ohk_anchor() : AnchorValue.make(QueryAnchor(fromValue: Int(value)))
    }
}

/// Compares two anchors of one store: *out_order is OHK_ORDER_BEFORE when a
/// is earlier than b, OHK_ORDER_SAME, or OHK_ORDER_AFTER. "No anchor" is
/// before everything. Returns OHK_OK, OHK_ERR_INVALID_ARGUMENT,
/// OHK_ERR_ANCHOR_CORRUPT, OHK_ERR_ANCHOR_WRONG_STORE (anchors of two
/// stores do not compare). Any thread.
@c public func ohk_anchor_compare(_ out_order: UnsafeMutablePointer<ohk_order>?,
                                  _ a: UnsafePointer<ohk_anchor>?, _ b: UnsafePointer<ohk_anchor>?) -> ohk_status {
    cCall {
        let result = try out(out_order, "out_order")
        let x = try AnchorValue.required(a, "a"), y = try AnchorValue.required(b, "b")
        switch (x, y) {
        case (nil, nil): result.pointee = Int32(OHK_ORDER_SAME)
        case (nil, _): result.pointee = Int32(OHK_ORDER_BEFORE)
        case (_, nil): result.pointee = Int32(OHK_ORDER_AFTER)
        case let (x?, y?):
            switch try x.compare(to: y) {
            case .before: result.pointee = Int32(OHK_ORDER_BEFORE)
            case .same: result.pointee = Int32(OHK_ORDER_SAME)
            case .after: result.pointee = Int32(OHK_ORDER_AFTER)
            }
        }
    }
}
