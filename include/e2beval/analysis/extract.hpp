// CodeExtractor: pulls the code to run out of a model's raw answer (prose, fences, bare defs).
// Returns what was taken and how, so a verdict can explain itself; never guesses silently.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "e2beval/core/types.hpp"

namespace e2beval {

// One fenced block as written in the output (``` or ~~~, any length >= 3).
struct CodeBlock {
    std::string code;          // body, CRLF normalised to LF, common fence indentation removed
    std::string tag;           // the fence's info-string first word as written ("python", "py", "")
    std::optional<Language> language;  // from the tag; nullopt for untagged or unknown tags
    std::size_t first_line = 0;        // 1-based line of the opening fence
    bool terminated = true;            // false for a last fence the model never closed
};

struct ExtractOptions {
    std::optional<std::string> function_name;  // prefer the code that defines this function
    Language language = Language::python;      // the language the test expects
    // With a function_name (Python), the code keeps only what defines and supports that function: example
    // calls, prints, asserts, test functions and classes at top level, and `if __name__ == "__main__":`
    // sections are dropped, as their output would corrupt the tutorial's stdout comparison.
    bool keep_main = false;      // keep `if __name__ == "__main__":` sections
    bool keep_examples = false;  // keep top-level example calls, prints, asserts and tests
};

// How the code was found, from most to least certain.
enum class ExtractionMethod { fenced_block, function_definition, any_definition, whole_output };
std::string_view to_string(ExtractionMethod method) noexcept;

struct Extraction {
    std::string code;
    Language language = Language::python;
    ExtractionMethod method = ExtractionMethod::fenced_block;
    std::vector<std::size_t> blocks_used;  // 0-based indexes into fenced_blocks(output)
    std::string explanation;               // e.g. "fenced block 1 of 2 (```python at line 3)"
};

// Whether `code` defines the function `name`, on the rules the extractor chooses a block by (Python `def` or
// `async def`; JavaScript `function name(`, `const|let|var name =`, `exports.name =`; bash `name()`,
// `function name`).
bool code_defines_function(std::string_view code, Language language, std::string_view name);

// The functions `code` defines, in order of appearance, each once (Python `def`/`async def` at any depth;
// JavaScript `function NAME` and `const|let|var NAME = function|async|(`; bash `NAME()` and `function NAME`):
// what to offer a user whose --function names none of them.
std::vector<std::string> defined_function_names(std::string_view code, Language language);

class CodeExtractor {
public:
    explicit CodeExtractor(ExtractOptions options = {});

    // All fenced blocks in order of appearance.
    static std::vector<CodeBlock> fenced_blocks(std::string_view output);

    // The code to run, or nullopt when the output holds none.
    std::optional<Extraction> try_extract(std::string_view output) const;

    // Like try_extract, but throws extraction_error with a preview of the output when there is no code,
    // and input_error for invalid UTF-8 or a NUL byte.
    Extraction extract(std::string_view output) const;

private:
    std::optional<Extraction> find_code(std::string_view output) const;  // try_extract before dropping examples

    ExtractOptions options_;
};

}  // namespace e2beval
