// JavaScript: interpreted by Node.js (discover_node in src/local/interpreters.cpp).
#include "core/languages/descriptors.hpp"

namespace e2beval::languages {

namespace javascript_parts {  // named: src/core/languages/ is one unity-build unit
constexpr std::string_view kAliases[] = {"js", "node", "nodejs", "mjs", "jsx", "cjs"};
constexpr std::string_view kExtensions[] = {".js", ".mjs", ".cjs"};
}  // namespace javascript_parts

constinit const LanguageDescriptor kJavaScript{
    .language = Language::javascript,
    .name = "javascript",
    .display_name = "JavaScript",
    .aliases = javascript_parts::kAliases,
    .extensions = javascript_parts::kExtensions,
    .source_file = "main.js",
    .runtime = {"node", "E2BEVAL_NODE", "--version", "nodejs", "apt-get install nodejs"},
    .reserves_address_space = true,
};

}  // namespace e2beval::languages
