# Precompiled headers: the Boost and standard headers that most of a target's sources include, parsed once per
# target instead of once per source (docs/building.md has the measurements). Each target gets its own (their
# flags differ: PIC, visibility), always first in every source, as if each source included them first; they
# are external headers only, so editing e2beval's own headers never rebuilds them.
# Off by default: measured, they cut a from-scratch build's CPU time (docs/building.md), but they change what
# GCC 12 inlines enough to raise new (false) -Warray-bounds warnings in a few sources (server/sandbox_access.cpp
# with the set below; eval/metrics.cpp, local/session.cpp, swe/evaluate.cpp with one that also had the standard
# headers), and the build's warnings must stay as they are.
option(E2BEVAL_PRECOMPILE_HEADERS "Precompile the Boost headers most sources include" OFF)

# Boost's headers only. A set that also put <algorithm>, <functional>, <map>, <string> ... first changed what
# GCC 12 inlines in three library sources enough to raise new (false) -Warray-bounds warnings in
# std::string's memcpy; this one leaves the warnings as they are without precompiled headers.
set(E2BEVAL_PCH_COMMON
    <boost/json.hpp>
    # What the public sandbox.hpp includes, and the coroutines most asynchronous sources use.
    <boost/asio/any_completion_handler.hpp> <boost/asio/any_io_executor.hpp> <boost/asio/awaitable.hpp>)
# The server's sources all include http_exchange.hpp: Beast's HTTP messages over a TCP or TLS stream.
set(E2BEVAL_PCH_SERVER
    <boost/asio/ip/tcp.hpp> <boost/asio/ssl/context.hpp> <boost/asio/use_awaitable.hpp>
    <boost/beast/core/tcp_stream.hpp> <boost/beast/http/message.hpp> <boost/beast/http/string_body.hpp>
    <boost/beast/ssl/ssl_stream.hpp>)

# e2beval_precompile_headers(TARGET HEADER...): HEADERs and the common headers, precompiled for TARGET.
# HEADERs come first: pybind11's must precede every standard header (Python.h's rule).
function(e2beval_precompile_headers target)
  if(E2BEVAL_PRECOMPILE_HEADERS)
    target_precompile_headers(${target} PRIVATE ${ARGN} ${E2BEVAL_PCH_COMMON})
  endif()
endfunction()

# ccache caches compiles that use a precompiled header only with these sloppinesses (its manual, "Precompiled
# headers"); CMake's `-include cmake_pch.hxx` beside the .gch is the other condition, which it meets.
if(E2BEVAL_PRECOMPILE_HEADERS AND CCACHE_PROGRAM AND CMAKE_CXX_COMPILER_LAUNCHER STREQUAL CCACHE_PROGRAM)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env CCACHE_SLOPPINESS=pch_defines,time_macros ${CCACHE_PROGRAM})
endif()
