// libFuzzer harness for SafetyScanner: any bytes as code in each language under each preset, with the
// policy's lists in use. Crashes, sanitizer reports, hangs and findings outside the input are bugs.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "e2beval/analysis/safety.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::uint8_t selector = data[0];
    const std::string_view code(reinterpret_cast<const char*>(data + 1), size - 1);
    e2beval::Policy policy;
    policy.preset = static_cast<e2beval::PolicyPreset>((selector >> 2) % 3);
    if (selector & 0x10) {
        policy.allow_modules = {"os", "pickle"};
        policy.deny_modules = {"json"};
        policy.allow_calls = {"eval"};
        policy.deny_calls = {"print", "os.getcwd", "ls"};
    }
    // Every language, the compiled ones' C-family tokenizer and rule tables included (the top bit picks among them).
    const auto language = static_cast<e2beval::Language>((selector % 3) + 3 * ((selector >> 6) % 3));
    const auto findings = e2beval::SafetyScanner(policy).scan(code, language);
    std::size_t lines = 1;
    for (const char c : code) lines += c == '\n';
    for (const auto& finding : findings)
        if (finding.line == 0 || finding.line > lines || finding.column == 0 || finding.rule.empty()) __builtin_trap();
    return 0;
}
