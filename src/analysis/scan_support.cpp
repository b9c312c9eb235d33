// The scanner's shared helpers that are more than a line (scan_support.hpp).
#include "analysis/scan_support.hpp"

#include "analysis/python_tokenizer.hpp"

namespace e2beval::detail {

bool is_dangerous_word(std::string_view word) {
    static constexpr std::array<std::string_view, 44> kWords{
        "os", "sys", "system", "popen", "subprocess", "eval", "exec", "execv", "execve", "execl", "__import__",
        "import", "import_module", "importlib", "socket", "builtins", "__builtins__", "getattr", "globals",
        "__subclasses__", "__globals__", "__code__", "__class__", "__mro__", "__bases__", "__base__", "spawn",
        "fork", "kill", "remove", "unlink", "rmtree", "Popen", "check_output", "check_call", "ctypes", "pickle",
        "marshal", "open", "sh", "bash", "curl", "wget", "child_process"};
    return std::find(kWords.begin(), kWords.end(), word) != kWords.end();
}

std::optional<std::string> split_dangerous_word(const std::string& joined, const std::vector<std::size_t>& piece_ends) {
    std::size_t i = 0;
    while (i < joined.size()) {
        if (!python_tokenizer_internal::is_identifier_char(joined[i])) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < joined.size() && python_tokenizer_internal::is_identifier_char(joined[j])) ++j;
        const std::string_view word(joined.data() + i, j - i);
        if (is_dangerous_word(word)) {
            const bool crosses = std::any_of(piece_ends.begin(), piece_ends.end(),
                                             [&](std::size_t end) { return end > i && end < j; });
            if (crosses) return std::string(word);
        }
        i = j;
    }
    return std::nullopt;
}

}  // namespace e2beval::detail
