// libFuzzer harness for CodeExtractor: any bytes as a model's answer, with and without a function name,
// for each language. Crashes, sanitizer reports and invariant breaks are bugs; exceptions are not.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "e2beval/core/error.hpp"
#include "e2beval/analysis/extract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    // The first byte picks the options so one corpus covers every path.
    const std::uint8_t selector = data[0];
    const std::string_view output(reinterpret_cast<const char*>(data + 1), size - 1);
    e2beval::ExtractOptions options;
    options.language = static_cast<e2beval::Language>(selector % 3);
    if (selector & 0x04) options.function_name = "solve";
    if (selector & 0x08) options.function_name = "f";
    options.keep_main = (selector & 0x10) != 0;
    options.keep_examples = (selector & 0x20) != 0;
    const e2beval::CodeExtractor extractor(options);
    try {
        const auto blocks = e2beval::CodeExtractor::fenced_blocks(output);
        if (auto extraction = extractor.try_extract(output)) {
            for (const auto index : extraction->blocks_used)
                if (index >= blocks.size()) __builtin_trap();  // blocks_used must index fenced_blocks()
        }
        (void)extractor.extract(output);
    } catch (const e2beval::extraction_error&) {
    } catch (const e2beval::input_error&) {
    }
    return 0;
}
