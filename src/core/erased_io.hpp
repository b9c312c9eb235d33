// What a stream needs to hand its reads and writes to functions compiled once: the completion handler
// type-erased, and the buffers copied into a fixed list. Beast's composed operations (http::async_read,
// async_write, ...) over such a stream instantiate the TCP and TLS streams' operations only once, with IoHandler,
// instead of once per handler type in every source that uses them: most of what compiling them costs.
#pragma once

#include <array>
#include <cstddef>
#include <utility>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/system/error_code.hpp>

namespace e2beval {

// The first 16 non-empty buffers of a buffer sequence, by value (a buffer sequence for Asio). A read or write
// "some" may move fewer bytes than the sequence holds, so buffers past the 16th are left for the next call.
template <class Buffer>
struct BufferList {
    std::array<Buffer, 16> buffers{};
    std::size_t count = 0;

    template <class Sequence>
    static BufferList of(const Sequence& sequence) {
        BufferList list;
        for (auto it = boost::asio::buffer_sequence_begin(sequence);
             it != boost::asio::buffer_sequence_end(sequence) && list.count < list.buffers.size(); ++it) {
            const Buffer buffer(*it);
            if (buffer.size() != 0) list.buffers[list.count++] = buffer;
        }
        return list;
    }
    const Buffer* begin() const noexcept { return buffers.data(); }
    const Buffer* end() const noexcept { return buffers.data() + count; }
};

using MutableBufferList = BufferList<boost::asio::mutable_buffer>;
using ConstBufferList = BufferList<boost::asio::const_buffer>;

// A read's or write's handler, type-erased, bound to its own executor as an any_io_executor (Boost 1.81's
// any_completion_executor lacks the blocking.never that Beast's operations require of it). Its allocator and
// cancellation slot are the original handler's.
using IoHandler = boost::asio::executor_binder<
    boost::asio::any_completion_handler<void(boost::system::error_code, std::size_t)>, boost::asio::any_io_executor>;

// `fallback`: the stream's executor, for a handler with none of its own.
template <class Handler>
IoHandler erase_io_handler(Handler handler, const boost::asio::any_io_executor& fallback) {
    boost::asio::any_io_executor executor = boost::asio::get_associated_executor(handler, fallback);
    return boost::asio::bind_executor(
        std::move(executor),
        boost::asio::any_completion_handler<void(boost::system::error_code, std::size_t)>(std::move(handler)));
}

}  // namespace e2beval
