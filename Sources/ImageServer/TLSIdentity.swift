import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// The HTTPS listener's key and self-signed certificate, made when the server first starts with
/// HTTPS: a P-256 key, valid from an hour ago for 30 days, for `127.0.0.1`, `::1` and `localhost`,
/// server authentication only. It has no Key Usage extension: a client trusting the certificate
/// itself checks it as its own issuer, and BoringSSL and OpenSSL refuse an issuer whose Key Usage
/// lacks `keyCertSign`, which a server certificate should not claim.
struct TLSIdentity: Sendable {
    let certificatePEM: String
    let certificateDER: Data
    let sslContext: NIOSSLContext

    /// Protocols offered by ALPN, preferred first.
    static let applicationProtocols = ["h2", "http/1.1"]

    static func make() throws -> TLSIdentity {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName("Shashin ImageServer")
            OrganizationName("Shashin tests")
        }
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now - 3600,
            notValidAfter: now + 30 * 86400,
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([
                    .dnsName("localhost"),
                    .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                    .ipAddress(ASN1OctetString(contentBytes: ArraySlice([UInt8](repeating: 0, count: 15) + [1]))),
                ])
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        let document = try certificate.serializeAsPEM()
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: document.derBytes, format: .der))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem))
        )
        configuration.applicationProtocols = applicationProtocols
        return TLSIdentity(certificatePEM: document.pemString, certificateDER: Data(document.derBytes),
                           sslContext: try NIOSSLContext(configuration: configuration))
    }
}
