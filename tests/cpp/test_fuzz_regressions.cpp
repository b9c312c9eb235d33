// Replays every input in fuzz/regressions/ through both fuzz targets' code paths, in the normal test build:
// inputs that once crashed CodeExtractor or SafetyScanner (under ASan/UBSan in fuzz/run.sh) must stay harmless.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "e2beval/core/error.hpp"
#include "e2beval/analysis/extract.hpp"
#include "e2beval/analysis/safety.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_fuzz_regressions {

namespace fs = std::filesystem;

TEST_CASE("fuzz regressions: every saved input, every language, preset and option") {
    const fs::path directory = fs::path(E2BEVAL_SOURCE_DIR) / "fuzz" / "regressions";
    REQUIRE(fs::is_directory(directory));
    std::size_t replayed = 0;
    for (const auto& file : fs::directory_iterator(directory)) {
        std::ifstream in(file.path(), std::ios::binary);
        std::stringstream buffer;
        buffer << in.rdbuf();
        const std::string input = buffer.str();
        // Like the harnesses, the whole input and the input after its selector byte.
        for (const std::string_view text : {std::string_view(input), std::string_view(input).substr(input.empty() ? 0 : 1)}) {
            std::size_t lines = 1;
            for (const char c : text) lines += c == '\n';
            for (int language = 0; language < 3; ++language) {
                for (int preset = 0; preset < 3; ++preset) {
                    e2beval::Policy policy;
                    policy.preset = static_cast<e2beval::PolicyPreset>(preset);
                    const auto findings = e2beval::SafetyScanner(policy).scan(text, static_cast<e2beval::Language>(language));
                    for (const auto& finding : findings) CHECK(finding.line <= lines);
                }
                for (const bool with_name : {false, true}) {
                    e2beval::ExtractOptions options;
                    options.language = static_cast<e2beval::Language>(language);
                    if (with_name) options.function_name = "f";
                    const auto blocks = e2beval::CodeExtractor::fenced_blocks(text);
                    if (const auto extraction = e2beval::CodeExtractor(options).try_extract(text))
                        for (const auto index : extraction->blocks_used) CHECK(index < blocks.size());
                    try {
                        (void)e2beval::CodeExtractor(options).extract(text);
                    } catch (const e2beval::extraction_error&) {
                    } catch (const e2beval::input_error&) {
                    }
                }
            }
        }
        ++replayed;
    }
    CHECK(replayed >= 1);
}

}  // namespace e2beval_test_fuzz_regressions
