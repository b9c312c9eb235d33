// bash: interpreted by /bin/bash.
#include "core/languages/descriptors.hpp"

namespace e2beval::languages {

namespace bash_parts {  // named: src/core/languages/ is one unity-build unit
constexpr std::string_view kAliases[] = {"sh", "shell", "zsh"};
constexpr std::string_view kExtensions[] = {".sh", ".bash"};
}  // namespace bash_parts

constinit const LanguageDescriptor kBash{
    .language = Language::bash,
    .name = "bash",
    .display_name = "bash",
    .aliases = bash_parts::kAliases,
    .extensions = bash_parts::kExtensions,
    .source_file = "main.sh",
    .runtime = {"bash", "", "--version", "bash", "apt-get install bash"},
};

}  // namespace e2beval::languages
