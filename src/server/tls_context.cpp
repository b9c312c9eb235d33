// Loading the certificate and key once, at start-up, with errors a user can act on.
#include "server/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <fstream>

#include "e2beval/core/error.hpp"

namespace e2beval::server {

namespace ssl = boost::asio::ssl;

namespace {

void require_readable(const std::string& file, const std::string& option) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw input_error(option + " '" + file + "' cannot be read (does it exist, and may this user read it?)");
}

// OpenSSL's reason for a failure ("no start line", ...), for the message: Asio's error code holds it.
std::string openssl_reason(const boost::system::error_code& ec) {
    ERR_clear_error();
    return ec.message();
}

}  // namespace

ssl::context make_tls_context(const std::string& certificate_file, const std::string& private_key_file) {
    require_readable(certificate_file, "--tls-cert");
    require_readable(private_key_file, "--tls-key");
    ssl::context context(ssl::context::tls_server);
    // TLS 1.2 is the floor (1.0 and 1.1 are deprecated by RFC 8996); compression off (CRIME).
    SSL_CTX_set_min_proto_version(context.native_handle(), TLS1_2_VERSION);
    context.set_options(ssl::context::default_workarounds | ssl::context::no_compression);
    // An encrypted key must fail here, not stop the server at a passphrase prompt nobody may be there to answer.
    context.set_password_callback([](std::size_t, ssl::context::password_purpose) { return std::string(); });
    boost::system::error_code ec;
    context.use_certificate_chain_file(certificate_file, ec);
    if (ec)
        throw input_error("--tls-cert '" + certificate_file + "' is not a PEM certificate chain (" + openssl_reason(ec) +
                          "); give the server's certificate, then any intermediates, in PEM");
    context.use_private_key_file(private_key_file, ssl::context::pem, ec);
    // OpenSSL compares the key with the certificate as it loads it.
    // Asio takes the failure off OpenSSL's error queue into `ec`.
    if (ec && ERR_GET_REASON(static_cast<unsigned long>(ec.value())) == X509_R_KEY_VALUES_MISMATCH) {
        ERR_clear_error();
        throw input_error("--tls-key '" + private_key_file + "' is not the private key of --tls-cert '" + certificate_file +
                          "': give the key the certificate was made for");
    }
    if (ec)
        throw input_error("--tls-key '" + private_key_file + "' is not a PEM private key (" + openssl_reason(ec) +
                          "); give the unencrypted key of the --tls-cert certificate in PEM");
    if (SSL_CTX_check_private_key(context.native_handle()) != 1) {
        ERR_clear_error();
        throw input_error("--tls-key '" + private_key_file + "' is not the private key of --tls-cert '" + certificate_file +
                          "': give the key the certificate was made for");
    }
    return context;
}

}  // namespace e2beval::server
