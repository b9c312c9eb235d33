// The server side of HTTPS (`e2beval serve --tls-cert FILE --tls-key FILE`): an OpenSSL context with the
// certificate chain and its private key, TLS 1.2 or later only.
#pragma once

#include <string>

#include <boost/asio/ssl/context.hpp>

namespace e2beval::server {

// Throws input_error, naming the file and what to do, when a file is missing or unreadable, is not PEM, or
// the key does not belong to the certificate: a server that would fail every handshake must not start.
boost::asio::ssl::context make_tls_context(const std::string& certificate_file, const std::string& private_key_file);

}  // namespace e2beval::server
