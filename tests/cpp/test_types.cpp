// Tests for types.hpp: the one table of every language's names (fence tags, file extensions) and the outcome
// details every backend shares.
#include "e2beval/core/types.hpp"

#include <doctest/doctest.h>

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_types {

TEST_CASE("the language of a file comes from its extension, through one table of names") {
    using e2beval::Language;
    CHECK(e2beval::language_from_file_name("a.py") == Language::python);
    CHECK(e2beval::language_from_file_name("dir.v2/a.JS") == Language::javascript);
    CHECK(e2beval::language_from_file_name("a.mjs") == Language::javascript);
    CHECK(e2beval::language_from_file_name("a.cjs") == Language::javascript);
    CHECK(e2beval::language_from_file_name("/x/run.sh") == Language::bash);
    CHECK(e2beval::language_from_file_name("a.bash") == Language::bash);
    CHECK_FALSE(e2beval::language_from_file_name("a.txt"));
    CHECK_FALSE(e2beval::language_from_file_name("script"));
    CHECK_FALSE(e2beval::language_from_file_name("dir.py/script"));
    CHECK_FALSE(e2beval::language_from_file_name(".py"));
    CHECK(e2beval::file_extensions_text(Language::javascript) == ".js, .mjs, .cjs");
    CHECK(e2beval::language_from_tag("JS") == Language::javascript);
    CHECK(e2beval::to_string(Language::bash) == "bash");
}

TEST_CASE("the output limit's detail names both ways to raise it") {
    CHECK(e2beval::output_limit_detail(1000, "stderr") ==
          "killed after writing more than 1000 bytes to stderr (the output limit per stream; raise it with --output-limit "
          "BYTES, or limits.output_bytes in Python, a promptfoo config or a --profile file)");
}

}  // namespace e2beval_test_types
