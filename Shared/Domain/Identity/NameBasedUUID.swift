import Foundation

/// Name-based UUIDs (RFC 9562, version 5): the same namespace and name always give the same UUID,
/// so an id can be derived again anywhere without reading it from storage.
public enum NameBasedUUID {
    public static func make(namespace: UUID, name: String) -> UUID {
        let namespaceBytes = withUnsafeBytes(of: namespace.uuid) { Array($0) }
        var hash = SHA1.digest(namespaceBytes + Array(name.utf8))
        hash[6] = (hash[6] & 0x0F) | 0x50  // version 5
        hash[8] = (hash[8] & 0x3F) | 0x80  // RFC 9562 variant
        return UUID(uuid: (
            hash[0], hash[1], hash[2], hash[3], hash[4], hash[5], hash[6], hash[7],
            hash[8], hash[9], hash[10], hash[11], hash[12], hash[13], hash[14], hash[15]))
    }
}
