/// FNV-1a, 64-bit. Swift's `Hasher` is seeded per process, so anything that must give the
/// same answer across runs and machines (plan seeds, tie-breaks) hashes with this instead.
public enum StableHash {
    public static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// SplitMix64's finaliser: spreads a seed's bits so nearby seeds give unrelated values.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// A value in [0, 1) fixed by `seed` and `keyHash`.
    static func unitInterval(seed: UInt64, keyHash: UInt64) -> Double {
        Double(mix(seed ^ keyHash) >> 11) / Double(UInt64(1) << 53)
    }
}
