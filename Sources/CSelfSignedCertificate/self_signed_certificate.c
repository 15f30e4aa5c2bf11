#include "CSelfSignedCertificate.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <string.h>

/// The bytes written to a memory BIO, as a NUL-terminated copy the caller frees.
static char *copy_contents(BIO *bio) {
    char *bytes = NULL;
    long length = BIO_get_mem_data(bio, &bytes);
    if (length < 0 || bytes == NULL) return NULL;
    char *copy = malloc((size_t)length + 1);
    if (copy == NULL) return NULL;
    memcpy(copy, bytes, (size_t)length);
    copy[length] = '\0';
    return copy;
}

/// Adds the extension `nid` with the value written as OpenSSL's configuration text has it.
static int add_extension(X509 *certificate, int nid, const char *value) {
    X509V3_CTX context;
    X509V3_set_ctx_nodb(&context);
    X509V3_set_ctx(&context, certificate, certificate, NULL, NULL, 0);
    X509_EXTENSION *extension = X509V3_EXT_conf_nid(NULL, &context, nid, value);
    if (extension == NULL) return 0;
    int added = X509_add_ext(certificate, extension, -1);
    X509_EXTENSION_free(extension);
    return added;
}

static int add_name_entry(X509_NAME *name, const char *field, const char *value) {
    return X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, (const unsigned char *)value, -1, -1, 0);
}

/// A positive random serial number of at most 127 bits (RFC 5280 §4.1.2.2 allows 20 octets).
static int set_random_serial(X509 *certificate) {
    BIGNUM *number = BN_new();
    int done = number != NULL && BN_rand(number, 127, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ANY) == 1 &&
               BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != NULL;
    BN_free(number);
    return done;
}

int shashin_make_self_signed_certificate(const char *common_name, const char *organization,
                                         long valid_from, long valid_until,
                                         char **certificate_pem, char **private_key_pem,
                                         char *error, unsigned long error_size) {
    *certificate_pem = NULL;
    *private_key_pem = NULL;
    if (error_size > 0) error[0] = '\0';
    ERR_clear_error();

    int made = 0;
    EVP_PKEY_CTX *generator = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, NULL);
    EVP_PKEY *key = NULL;
    X509 *certificate = X509_new();
    BIO *certificate_text = BIO_new(BIO_s_mem());
    BIO *key_text = BIO_new(BIO_s_mem());
    if (generator == NULL || certificate == NULL || certificate_text == NULL || key_text == NULL) goto done;

    if (EVP_PKEY_keygen_init(generator) <= 0 ||
        EVP_PKEY_CTX_set_ec_paramgen_curve_nid(generator, NID_X9_62_prime256v1) <= 0 ||
        EVP_PKEY_keygen(generator, &key) <= 0) goto done;

    X509_NAME *name = X509_get_subject_name(certificate);
    if (X509_set_version(certificate, 2) != 1 || !set_random_serial(certificate) ||
        X509_gmtime_adj(X509_getm_notBefore(certificate), valid_from) == NULL ||
        X509_gmtime_adj(X509_getm_notAfter(certificate), valid_until) == NULL ||
        X509_set_pubkey(certificate, key) != 1 ||
        add_name_entry(name, "CN", common_name) != 1 || add_name_entry(name, "O", organization) != 1 ||
        X509_set_issuer_name(certificate, name) != 1) goto done;

    if (!add_extension(certificate, NID_basic_constraints, "critical,CA:FALSE") ||
        !add_extension(certificate, NID_ext_key_usage, "serverAuth") ||
        !add_extension(certificate, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1")) goto done;

    if (X509_sign(certificate, key, EVP_sha256()) <= 0) goto done;
    if (PEM_write_bio_X509(certificate_text, certificate) != 1 ||
        PEM_write_bio_PrivateKey(key_text, key, NULL, NULL, 0, NULL, NULL) != 1) goto done;

    *certificate_pem = copy_contents(certificate_text);
    *private_key_pem = copy_contents(key_text);
    made = *certificate_pem != NULL && *private_key_pem != NULL;

done:
    if (!made) {
        free(*certificate_pem);
        free(*private_key_pem);
        *certificate_pem = NULL;
        *private_key_pem = NULL;
        unsigned long code = ERR_peek_error();
        if (error_size > 0) {
            if (code != 0) {
                ERR_error_string_n(code, error, (size_t)error_size);
            } else {
                strncpy(error, "no OpenSSL error queued (out of memory?)", (size_t)error_size - 1);
                error[error_size - 1] = '\0';
            }
        }
    }
    ERR_clear_error();
    BIO_free(key_text);
    BIO_free(certificate_text);
    X509_free(certificate);
    EVP_PKEY_free(key);
    EVP_PKEY_CTX_free(generator);
    return made;
}
