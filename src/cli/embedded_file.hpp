// A text file compiled into the CLI (see cmake/embed_files.cmake): the red-team corpus and the project that
// `e2beval init` writes travel inside the binary, so they work wherever the binary is installed.
#pragma once

#include <string_view>

namespace e2beval::cli {

struct EmbeddedFile {
    std::string_view path;     // relative to the directory it was embedded from
    std::string_view content;
};

}  // namespace e2beval::cli
