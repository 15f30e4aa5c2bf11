#ifndef C_SELF_SIGNED_CERTIFICATE_H
#define C_SELF_SIGNED_CERTIFICATE_H

/// Makes a P-256 key and a certificate it signs itself, for the ImageServer's HTTPS listener on
/// Linux (OpenSSL's libcrypto): version 3, a random 127-bit serial number, subject and issuer
/// `CN=<common_name>, O=<organization>`, valid from `valid_from` to `valid_until` (seconds
/// from now), `CA:FALSE` (critical), extended key usage `serverAuth`, and the subject
/// alternative names `localhost`, 127.0.0.1 and ::1. No Key Usage extension: a client that trusts
/// the certificate itself checks it as its own issuer, and BoringSSL and OpenSSL refuse an
/// issuer whose Key Usage lacks `keyCertSign`, which a server certificate should not claim.
///
/// Returns 1 and sets `*certificate_pem` (the certificate) and `*private_key_pem` (the key, PKCS #8)
/// to NUL-terminated PEM text the caller frees with `free`; returns 0 and sets both to NULL on
/// failure, with OpenSSL's first error's text in `error` (at most `error_size` bytes, NUL-terminated).
int shashin_make_self_signed_certificate(const char *common_name, const char *organization,
                                         long valid_from, long valid_until,
                                         char **certificate_pem, char **private_key_pem,
                                         char *error, unsigned long error_size);

#endif
