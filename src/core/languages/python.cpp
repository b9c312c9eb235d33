// Python: interpreted; the local backend finds the interpreter (discover_python) and the warm pool serves it.
#include "core/languages/descriptors.hpp"

namespace e2beval::languages {

namespace python_parts {  // named: src/core/languages/ is one unity-build unit
constexpr std::string_view kAliases[] = {"py", "python3", "py3"};
constexpr std::string_view kExtensions[] = {".py"};
}  // namespace python_parts

constinit const LanguageDescriptor kPython{
    .language = Language::python,
    .name = "python",
    .display_name = "Python",
    .aliases = python_parts::kAliases,
    .extensions = python_parts::kExtensions,
    .source_file = "main.py",
    .runtime = {"python3", "E2BEVAL_PYTHON", "--version", "python3", "apt-get install python3"},
};

}  // namespace e2beval::languages
