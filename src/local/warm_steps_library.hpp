// The warm pool zygote's compiled steps (src/local/warm_steps.cpp), built as a shared library and
// embedded at build time (cmake/embed_binary.cmake): the supervisor sends these bytes to each zygote.
#pragma once

#include <string_view>

namespace e2beval::local {

std::string_view warm_steps_library() noexcept;

}  // namespace e2beval::local
