// Tests for the language descriptors (e2beval/core/language.hpp): one per language, every name and extension
// leads back to its language, and the registry lists each language once.
#include "e2beval/core/language.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_languages {

using e2beval::Language;

TEST_CASE("all_languages lists every enum value once, in the enum's order") {
    const auto languages = e2beval::all_languages();
    REQUIRE(languages.size() == 9);
    for (std::size_t i = 0; i < languages.size(); ++i) {
        CHECK(static_cast<std::size_t>(languages[i]->language) == i);
        CHECK(&e2beval::describe(languages[i]->language) == languages[i]);
    }
    CHECK(e2beval::describe(Language::typescript).language == Language::typescript);
}

TEST_CASE("every name, alias and extension round-trips to its language, and none is claimed twice") {
    std::set<std::string> names, extensions;
    for (const auto* language : e2beval::all_languages()) {
        CAPTURE(language->name);
        CHECK(e2beval::to_string(language->language) == language->name);
        CHECK(e2beval::language_from_tag(language->name) == language->language);
        CHECK(names.insert(std::string(language->name)).second);
        CHECK_FALSE(language->display_name.empty());
        CHECK_FALSE(language->source_file.empty());
        for (const auto alias : language->aliases) {
            CAPTURE(alias);
            CHECK(e2beval::language_from_tag(alias) == language->language);
            CHECK(names.insert(std::string(alias)).second);
        }
        REQUIRE_FALSE(language->extensions.empty());
        for (const auto extension : language->extensions) {
            CAPTURE(extension);
            CHECK(extension.front() == '.');
            CHECK(e2beval::language_from_extension(extension) == language->language);
            CHECK(e2beval::language_from_file_name("dir/prog" + std::string(extension)) == language->language);
            CHECK(extensions.insert(std::string(extension)).second);
        }
        // A compiled language names its compiler, its artifact and how to install it.
        if (language->compiled()) {
            CHECK_FALSE(language->compiler.binary.empty());
            CHECK_FALSE(language->compiler.install_hint.empty());
            CHECK_FALSE(language->artifact.empty());
            CHECK_FALSE(language->run_argv.empty());
            CHECK(language->compile_limits.memory_bytes >= 512 * e2beval::kMiB);
        }
    }
}

TEST_CASE("the names models write on fences") {
    CHECK(e2beval::language_from_tag("C++") == Language::cpp);
    CHECK(e2beval::language_from_tag("cxx") == Language::cpp);
    CHECK(e2beval::language_from_tag("cc") == Language::cpp);
    CHECK(e2beval::language_from_tag("golang") == Language::go);
    CHECK(e2beval::language_from_tag("rs") == Language::rust);
    CHECK(e2beval::language_from_tag("ts") == Language::typescript);
    CHECK(e2beval::language_from_tag("TypeScript") == Language::typescript);
    CHECK(e2beval::language_from_tag("mts") == Language::typescript);
    CHECK(e2beval::language_from_tag("java") == Language::java);
    CHECK(e2beval::language_from_tag("c") == Language::c);
    CHECK(e2beval::language_from_tag("node") == Language::javascript);
    CHECK(e2beval::language_from_tag("shell") == Language::bash);
    CHECK_FALSE(e2beval::language_from_tag("cobol"));
    CHECK(e2beval::language_from_file_name("Main.JAVA") == Language::java);
    CHECK(e2beval::file_extensions_text(Language::cpp) == ".cpp, .cc, .cxx, .c++");
}

TEST_CASE("Java's source file is named by the public class, else the class with main, else Main") {
    const auto main_class = e2beval::describe(Language::java).main_class;
    REQUIRE(static_cast<bool>(main_class));
    CHECK(main_class("public class Solution { public static void main(String[] a) {} }") == "Solution");
    CHECK(main_class("import java.util.*;\nclass Helper {}\nfinal public class Sol2 {}") == "Sol2");  // modifiers before public
    CHECK(main_class("class Helper {}\npublic final class Sol3 { }") == "Sol3");
    CHECK(main_class("class A {}\nclass Problem {\n  public static void main(String[] args) {}\n}") == "Problem");
    CHECK(main_class("// public class Fake {}\nclass Real { static void main(String[] a) {} }") == "Real");
    CHECK(main_class("String s = \"public class Quoted\";") == "Main");
    CHECK(main_class("") == "Main");
}

TEST_CASE("a Go test package (MultiPL-E's shape) is told from a program with main") {
    const auto& go = e2beval::describe(Language::go);
    REQUIRE(static_cast<bool>(go.is_test_program));
    CHECK(go.is_test_program("package has_close_elements_test\n\nimport (\n  \"testing\"\n)\n"));
    CHECK(go.is_test_program("// a comment\n  package\tfoo_test // trailing\n"));
    CHECK_FALSE(go.is_test_program("package main\n\nfunc main() {}\n"));
    CHECK_FALSE(go.is_test_program("package testing_helpers\n"));
    CHECK_FALSE(go.is_test_program(""));
    CHECK(go.test_source_file == "main_test.go");
    CHECK_FALSE(static_cast<bool>(e2beval::describe(Language::cpp).is_test_program));
}

}  // namespace e2beval_test_languages
