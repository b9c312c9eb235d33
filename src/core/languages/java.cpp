// Java: javac into a directory of class files, then `java -cp classes <main>`. The source file is named by the
// program's public class (javac requires it), else by the class that declares main, else Main.java.
// Annotation processors are off (-proc:none): no code of the program's runs while it compiles. The JVM's
// address-space reservations are kept small (heap from the memory limit, serial GC, a bounded code cache and
// class space), so the memory limit, not a reservation, decides.
#include "core/languages/descriptors.hpp"

#include <algorithm>
#include <cctype>

namespace e2beval::languages {

namespace java_parts {  // named: src/core/languages/ is one unity-build unit

constexpr std::string_view kAliases[] = {"jdk"};
constexpr std::string_view kExtensions[] = {".java"};
constexpr std::string_view kCompile[] = {"{tool}", "-J-Xmx{heap_mib}m", "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1",
                                         "-J-XX:-UsePerfData", "-J-Xshare:auto", "-encoding", "UTF-8", "-proc:none",
                                         "-implicit:none", "-cp", "{classpath}", "-d", "classes", "{source}"};
constexpr std::string_view kRun[] = {"{runtime}", "-Xmx{heap_mib}m", "-XX:+UseSerialGC", "-XX:-UsePerfData",
                                     "-XX:ReservedCodeCacheSize=64m", "-XX:CompressedClassSpaceSize=64m",
                                     "-XX:CICompilerCount=2", "-Xlog:disable", "-Xlog:all=warning:stderr", "-ea",
                                     "-cp", "{classpath}", "{main}"};

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

// The code with comments, string and char literals blanked out (same length), so words inside them never count.
std::string code_only(std::string_view code) {
    std::string out(code);
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out.compare(i, 2, "//") == 0) {
            while (i < out.size() && out[i] != '\n') out[i++] = ' ';
        } else if (out.compare(i, 2, "/*") == 0) {
            const auto end = out.find("*/", i + 2);
            const auto stop = end == std::string::npos ? out.size() : end + 2;
            for (; i < stop; ++i)
                if (out[i] != '\n') out[i] = ' ';
            --i;
        } else if (out[i] == '"' || out[i] == '\'') {
            const char quote = out[i];
            const bool block = quote == '"' && out.compare(i, 3, "\"\"\"") == 0;
            std::size_t j = i + (block ? 3 : 1);
            while (j < out.size()) {
                if (out[j] == '\\') { j += 2; continue; }
                if (block ? out.compare(j, 3, "\"\"\"") == 0 : out[j] == quote || out[j] == '\n') break;
                ++j;
            }
            const auto stop = std::min(out.size(), j + (block ? 3 : 1));
            for (; i < stop; ++i)
                if (out[i] != '\n') out[i] = ' ';
            --i;
        }
    }
    return out;
}

// The identifier after `keyword` (a whole word) at or after `from`; `at` gets the keyword's position.
std::string name_after(const std::string& code, std::string_view keyword, std::size_t from, std::size_t& at) {
    for (auto found = code.find(keyword, from); found != std::string::npos; found = code.find(keyword, found + 1)) {
        if (found > 0 && identifier_char(code[found - 1])) continue;
        auto i = found + keyword.size();
        if (i >= code.size() || !std::isspace(static_cast<unsigned char>(code[i]))) continue;
        while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
        const auto start = i;
        while (i < code.size() && identifier_char(code[i])) ++i;
        if (i == start) continue;
        at = found;
        return code.substr(start, i - start);
    }
    at = std::string::npos;
    return {};
}

std::string java_main_class(std::string_view source) {
    const auto code = code_only(source);
    // 1. A public top-level type: javac insists that the file is named after it.
    for (std::size_t from = 0;;) {
        std::size_t at = 0;
        const auto name = name_after(code, "public", from, at);
        if (at == std::string::npos) break;
        from = at + 1;
        std::size_t i = at + 6;
        std::string word;
        // public [final|abstract|sealed|static|strictfp ...] class|interface|enum|record NAME
        for (;;) {
            while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
            const auto start = i;
            while (i < code.size() && identifier_char(code[i])) ++i;
            word = code.substr(start, i - start);
            if (word == "final" || word == "abstract" || word == "sealed" || word == "strictfp" || word == "static" ||
                word == "non")
                continue;
            break;
        }
        if (word == "class" || word == "interface" || word == "enum" || word == "record") {
            while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
            const auto start = i;
            while (i < code.size() && identifier_char(code[i])) ++i;
            if (i > start) return code.substr(start, i - start);
        }
        (void)name;
    }
    // 2. The class declared last before `static void main(`.
    const auto main_at = code.find("static void main");
    std::string last;
    for (std::size_t from = 0;;) {
        std::size_t at = 0;
        auto name = name_after(code, "class", from, at);
        if (at == std::string::npos || (main_at != std::string::npos && at > main_at)) break;
        last = std::move(name);
        from = at + 1;
        if (main_at == std::string::npos) break;  // no main: the first class
    }
    return last.empty() ? "Main" : last;
}

}  // namespace java_parts

constinit const LanguageDescriptor kJava{
    .language = Language::java,
    .name = "java",
    .display_name = "Java",
    .aliases = java_parts::kAliases,
    .extensions = java_parts::kExtensions,
    .source_file = "{main}.java",
    .compiler = {"javac", "E2BEVAL_JAVAC", "-version", "openjdk-17-jdk-headless", "apt-get install openjdk-17-jdk-headless"},
    .compile_argv = java_parts::kCompile,
    .artifact = "classes/",
    .runtime = {"java", "E2BEVAL_JAVA", "-version", "openjdk-17-jdk-headless", "apt-get install openjdk-17-jdk-headless"},
    .run_argv = java_parts::kRun,
    .compile_limits = compile_stage_limits(),
    .reserves_address_space = true,
    .main_class = java_parts::java_main_class,
};

}  // namespace e2beval::languages
