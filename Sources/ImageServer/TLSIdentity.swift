#if os(Linux)
import CSelfSignedCertificate
#elseif canImport(Darwin)
import Crypto
import SwiftASN1
import X509
#else
#error("The test server makes its certificate with OpenSSL on Linux and swift-certificates on Apple platforms; this platform has neither.")
#endif
import Foundation
import NIOSSL

/// The HTTPS listener's key and self-signed certificate, made when the server first starts with
/// HTTPS: a P-256 key, valid from an hour ago for 30 days, for `127.0.0.1`, `::1` and `localhost`,
/// server authentication only. It has no Key Usage extension: a client trusting the certificate
/// itself checks it as its own issuer, and BoringSSL and OpenSSL refuse an issuer whose Key Usage
/// lacks `keyCertSign`, which a server certificate should not claim.
///
/// On Linux the system's OpenSSL (libcrypto) makes them, so the package compiles no second copy
/// of BoringSSL (swift-crypto's) beside swift-nio-ssl's; on Apple platforms swift-certificates and
/// swift-crypto do.
struct TLSIdentity: Sendable {
    let certificatePEM: String
    let certificateDER: Data
    let sslContext: NIOSSLContext

    /// Protocols offered by ALPN, preferred first.
    static let applicationProtocols = ["h2", "http/1.1"]

    static let commonName = "Shashin ImageServer"
    static let organization = "Shashin tests"

    /// A context serving `certificate` (whose PEM text is `certificatePEM`) with `privateKeyPEM`,
    /// offering `applicationProtocols`.
    private init(certificate: NIOSSLCertificate, certificatePEM: String, privateKeyPEM: String) throws {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(certificate)],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem))
        )
        configuration.applicationProtocols = Self.applicationProtocols
        self.certificatePEM = certificatePEM
        self.certificateDER = Data(try certificate.toDERBytes())
        self.sslContext = try NIOSSLContext(configuration: configuration)
    }

    #if os(Linux)
    /// Why OpenSSL could not make the identity.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func make() throws -> TLSIdentity {
        var certificate: UnsafeMutablePointer<CChar>?
        var key: UnsafeMutablePointer<CChar>?
        var message = [CChar](repeating: 0, count: 256)
        let made = shashin_make_self_signed_certificate(commonName, organization, -3600, 30 * 86400,
                                                        &certificate, &key, &message, UInt(message.count))
        defer { free(certificate); free(key) }
        guard made == 1, let certificate, let key else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
            throw Failure(description: "OpenSSL could not make the test server's certificate: \(reason)")
        }
        let certificatePEM = String(cString: certificate)
        return try TLSIdentity(certificate: NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem),
                               certificatePEM: certificatePEM, privateKeyPEM: String(cString: key))
    }
    #elseif canImport(Darwin)
    static func make() throws -> TLSIdentity {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName(commonName)
            OrganizationName(organization)
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
        return try TLSIdentity(certificate: NIOSSLCertificate(bytes: document.derBytes, format: .der),
                               certificatePEM: document.pemString, privateKeyPEM: key.pemRepresentation)
    }
    #endif
}
