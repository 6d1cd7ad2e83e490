import COpenHealthKit
import Glibc

/// Hands an `ArrowColumn` tree to a consumer as C Data Interface structs.
///
/// Every node (the root, each child, each dictionary) owns what it
/// allocated and a reference to the table's memory, so that a consumer
/// may move a child out and release it on its own, as the specification
/// allows; releasing a node releases the children it still holds. The
/// buffers are the table's own: nothing is copied on the way out.
enum ArrowExport {
    static func export(_ column: ArrowColumn, memory: ArrowMemory, array: UnsafeMutablePointer<ArrowArray>,
                       schema: UnsafeMutablePointer<ArrowSchema>) {
        fill(array, column, memory)
        fill(schema, column)
    }

    // MARK: what arrays and schemas share

    /// A node's children and dictionary as structs of their own, each
    /// filled by `fill`.
    private static func parts<T>(_ column: ArrowColumn, _ fill: (UnsafeMutablePointer<T>, ArrowColumn) -> Void)
        -> (UnsafeMutableBufferPointer<UnsafeMutablePointer<T>?>, UnsafeMutablePointer<T>?) {
        func made(_ c: ArrowColumn) -> UnsafeMutablePointer<T> {
            let p = UnsafeMutablePointer<T>.allocate(capacity: 1)
            fill(p, c)
            return p
        }
        let children = UnsafeMutableBufferPointer<UnsafeMutablePointer<T>?>.allocate(capacity: column.children.count)
        for (i, c) in column.children.enumerated() { children[i] = made(c) }
        return (children, column.dictionary.map(made))
    }

    /// Releases what a node still holds (a moved child's release is NULL:
    /// only its struct's storage is ours) and frees the structs.
    private static func releaseParts<T>(_ children: UnsafeMutableBufferPointer<UnsafeMutablePointer<T>?>,
                                        _ dictionary: UnsafeMutablePointer<T>?, release: (UnsafeMutablePointer<T>) -> Void) {
        for case let child? in children {
            release(child)
            child.deallocate()
        }
        if let d = dictionary {
            release(d)
            d.deallocate()
        }
    }

    // MARK: arrays

    private final class ArrayNode {
        let memory: ArrowMemory
        let buffers: UnsafeMutablePointer<UnsafeRawPointer?>
        let children: UnsafeMutableBufferPointer<UnsafeMutablePointer<ArrowArray>?>
        let dictionary: UnsafeMutablePointer<ArrowArray>?

        init(_ memory: ArrowMemory, _ column: ArrowColumn) {
            self.memory = memory
            buffers = .allocate(capacity: max(column.buffers.count, 1))
            for (i, b) in column.buffers.enumerated() { buffers[i] = b }
            (children, dictionary) = ArrowExport.parts(column) { ArrowExport.fill($0, $1, memory) }
        }

        deinit {
            buffers.deallocate()
            children.deallocate()
        }
    }

    private static func fill(_ a: UnsafeMutablePointer<ArrowArray>, _ column: ArrowColumn, _ memory: ArrowMemory) {
        let node = ArrayNode(memory, column)
        a.initialize(to: ArrowArray(length: Int64(column.length), null_count: Int64(column.nullCount), offset: 0,
                                    n_buffers: Int64(column.buffers.count), n_children: Int64(column.children.count),
                                    buffers: node.buffers,
                                    children: node.children.baseAddress, dictionary: node.dictionary,
                                    release: releaseArray, private_data: Unmanaged.passRetained(node).toOpaque()))
    }

    /// Releases what the node still holds, then the node.
    private static let releaseArray: @convention(c) (UnsafeMutablePointer<ArrowArray>?) -> Void = { a in
        guard let a, let raw = a.pointee.private_data else { return }
        let node = Unmanaged<ArrayNode>.fromOpaque(raw).takeRetainedValue()
        releaseParts(node.children, node.dictionary) { $0.pointee.release?($0) }
        a.pointee.release = nil
        a.pointee.private_data = nil
    }

    // MARK: schemas

    private final class SchemaNode {
        let strings: [UnsafeMutablePointer<CChar>]
        let metadata: UnsafeMutableRawPointer?
        let children: UnsafeMutableBufferPointer<UnsafeMutablePointer<ArrowSchema>?>
        let dictionary: UnsafeMutablePointer<ArrowSchema>?

        init(_ column: ArrowColumn) {
            strings = [strdup(column.format)!, strdup(column.name)!]
            metadata = column.metadata.isEmpty ? nil : SchemaNode.encode(column.metadata)
            (children, dictionary) = ArrowExport.parts(column) { ArrowExport.fill($0, $1) }
        }

        /// The specification's metadata encoding: a count, then each key
        /// and value as a length and its bytes (int32s in native order).
        static func encode(_ pairs: [(String, String)]) -> UnsafeMutableRawPointer {
            var bytes: [UInt8] = []
            func int32(_ v: Int) { withUnsafeBytes(of: Int32(v)) { bytes.append(contentsOf: $0) } }
            int32(pairs.count)
            for (k, v) in pairs {
                int32(k.utf8.count); bytes.append(contentsOf: k.utf8)
                int32(v.utf8.count); bytes.append(contentsOf: v.utf8)
            }
            let p = malloc(bytes.count)!
            bytes.withUnsafeBytes { p.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            return p
        }

        deinit {
            strings.forEach { free($0) }
            free(metadata)
            children.deallocate()
        }
    }

    private static func fill(_ s: UnsafeMutablePointer<ArrowSchema>, _ column: ArrowColumn) {
        let node = SchemaNode(column)
        s.initialize(to: ArrowSchema(format: node.strings[0], name: node.strings[1],
                                     metadata: node.metadata.map { UnsafePointer($0.assumingMemoryBound(to: CChar.self)) },
                                     flags: column.nullable ? Int64(ARROW_FLAG_NULLABLE) : 0,
                                     n_children: Int64(column.children.count), children: node.children.baseAddress,
                                     dictionary: node.dictionary, release: releaseSchema,
                                     private_data: Unmanaged.passRetained(node).toOpaque()))
    }

    private static let releaseSchema: @convention(c) (UnsafeMutablePointer<ArrowSchema>?) -> Void = { s in
        guard let s, let raw = s.pointee.private_data else { return }
        let node = Unmanaged<SchemaNode>.fromOpaque(raw).takeRetainedValue()
        releaseParts(node.children, node.dictionary) { $0.pointee.release?($0) }
        s.pointee.release = nil
        s.pointee.private_data = nil
    }
}
