@testable import HearthEmbeddings
import Testing

@Suite struct OpenBLASEnvironmentTests {
    static let emeraldRapids = """
        processor\t: 0
        vendor_id\t: GenuineIntel
        model\t\t: 207
        model name\t: Intel(R) Xeon(R) Processor
        flags\t\t: fpu sse sse2 ssse3 fma sse4_2 avx avx2 avx512f avx512dq avx512cd avx512bw avx512vl avx512_vnni

        processor\t: 1
        flags\t\t: fpu sse
        """

    @Test func theFirstProcessorsFlagsAreRead() {
        let flags = OpenBLASEnvironment.flags(inCPUInfo: Self.emeraldRapids)
        #expect(flags.contains("avx512f") && flags.contains("fma") && flags.contains("fpu"))
        #expect(!flags.contains("flags") && !flags.contains(":"))
        #expect(OpenBLASEnvironment.flags(inCPUInfo: "processor : 0\nBogoMIPS : 50.00\n").isEmpty)
    }

    @Test func theKernelFamilyFollowsTheInstructionSets() {
        #expect(OpenBLASEnvironment.coreType(cpuFlags: OpenBLASEnvironment.flags(inCPUInfo: Self.emeraldRapids)) == "SkylakeX")
        #expect(OpenBLASEnvironment.coreType(cpuFlags: ["avx", "avx2", "fma", "avx512f"]) == "Haswell")
        #expect(OpenBLASEnvironment.coreType(cpuFlags: ["sse2", "avx"]) == nil)
        // No x86 flags (an arm64 host): OpenBLAS detects by itself.
        #expect(OpenBLASEnvironment.coreType(cpuFlags: []) == nil)
    }
}
