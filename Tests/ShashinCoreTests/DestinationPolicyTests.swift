import Foundation
import Testing
@testable import ShashinCore

@Suite("Destination policy: which addresses are internal")
struct DestinationPolicyTests {
    @Test("loopback, private, link-local, metadata, CGNAT and reserved IPv4 addresses are internal",
          arguments: ["127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
                      "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "198.18.0.1"])
    func internalV4(_ text: String) {
        #expect(DestinationPolicy.isInternal(text.split(separator: ".").map { UInt8($0)! }))
    }

    @Test("public IPv4 addresses are not", arguments: ["8.8.8.8", "172.32.0.1", "100.128.0.1", "192.169.0.1", "1.1.1.1"])
    func publicV4(_ text: String) {
        #expect(!DestinationPolicy.isInternal(text.split(separator: ".").map { UInt8($0)! }))
    }

    static func v6(_ words: [UInt16]) -> [UInt8] { words.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }

    @Test("::1, ::, unique-local, link-local, multicast and IPv4-mapped internal IPv6 addresses are internal")
    func internalV6() {
        let cases: [[UInt16]] = [
            [0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 0], [0xFD00, 0xEC2, 0, 0, 0, 0, 0, 0x254],
            [0xFE80, 0, 0, 0, 0, 0, 0, 1], [0xFF02, 0, 0, 0, 0, 0, 0, 1],
            [0, 0, 0, 0, 0, 0xFFFF, 0x7F00, 0x0001], [0x64, 0xFF9B, 0, 0, 0, 0, 0xA9FE, 0xA9FE],
        ]
        for words in cases { #expect(DestinationPolicy.isInternal(Self.v6(words)), "\(words)") }
        #expect(!DestinationPolicy.isInternal(Self.v6([0x2606, 0x4700, 0, 0, 0, 0, 0, 0x1111])))
        #expect(!DestinationPolicy.isInternal(Self.v6([0, 0, 0, 0, 0, 0xFFFF, 0x0808, 0x0808])))
    }

    @Test("a name that resolves to loopback is refused, naming the address; an allowed endpoint passes")
    func resolvedName() throws {
        // localhost resolves to 127.0.0.1, ::1 or both: whichever comes first is named.
        let error = #expect(throws: ImagePipelineError.self) {
            try DestinationPolicy.publicAddressesOnly.check(URL(string: "http://localhost:8080/a.jpg")!)
        }
        guard case .destinationRefused(let host, let address)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(host == "localhost" && ["127.0.0.1", "0:0:0:0:0:0:0:1"].contains(address))
        let allowed = DestinationPolicy(refusesInternalAddresses: true, allowedEndpoints: ["localhost:8080"])
        try allowed.check(URL(string: "http://localhost:8080/a.jpg")!)
        #expect(throws: ImagePipelineError.self) { try allowed.check(URL(string: "http://localhost:8081/a.jpg")!) }
        try DestinationPolicy.unrestricted.check(URL(string: "http://127.0.0.1/")!)
    }
}
