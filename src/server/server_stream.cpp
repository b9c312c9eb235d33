// ServerStream's reads and writes: the one place the TCP and TLS streams' operations are instantiated
// (core/erased_io.hpp says why).
#include "server/server_stream.hpp"

namespace e2beval::server {

void ServerStream::start_read_some(MutableBufferList into, IoHandler handler) {
    if (tls_) tls_->async_read_some(into, std::move(handler));
    else plain_->async_read_some(into, std::move(handler));
}

void ServerStream::start_write_some(ConstBufferList from, IoHandler handler) {
    if (tls_) tls_->async_write_some(from, std::move(handler));
    else plain_->async_write_some(from, std::move(handler));
}

}  // namespace e2beval::server
