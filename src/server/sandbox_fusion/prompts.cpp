// Prompts as SandboxFusion writes them.
#include "server/sandbox_fusion/prompts.hpp"

#include <utility>

#include <boost/json/parse.hpp>
#include "server/sandbox_fusion/text.hpp"

namespace e2beval::server::sandbox_fusion {

namespace json = boost::json;

namespace {

using Pair = std::pair<std::string_view, std::string_view>;

// The fence language of a free-form prompt: upstream's extract_lang_map of both classes (HumanEvalDataset's and
// MultiPLEDataset's), else the row's `language` cut at its first '.'.
constexpr Pair kPromptLanguages[] = {
    {"humaneval_python", "python"}, {"humaneval_cpp", "cpp"}, {"humaneval_typescript", "typescript"},
    {"humaneval_bash", "bash"}, {"humaneval_csharp", "csharp"}, {"humaneval_go", "go"}, {"humaneval_java", "java"},
    {"humaneval_lua", "lua"}, {"humaneval_js", "js"}, {"humaneval_php", "php"}, {"humaneval_perl", "perl"},
    {"humaneval_racket", "racket"}, {"humaneval_r", "r"}, {"humaneval_rust", "rust"}, {"humaneval_scala", "scala"},
    {"humaneval_swift", "swift"}, {"humaneval_ruby", "ruby"}, {"humaneval_d", "d"}, {"humaneval_julia", "julia"},
    {"shadow_humaneval_python", "python"}, {"evoeval", "python"},
    {"multiple_cpp", "cpp"}, {"multiple_ts", "typescript"}, {"multiple_sh", "bash"}, {"multiple_cs", "csharp"},
    {"multiple_go", "go"}, {"multiple_java", "java"}, {"multiple_lua", "lua"}, {"multiple_js", "js"},
    {"multiple_php", "php"}, {"multiple_pl", "perl"}, {"multiple_rkt", "racket"}, {"multiple_r", "r"},
    {"multiple_rs", "rust"}, {"multiple_scala", "scala"}, {"multiple_swift", "swift"}, {"multiple_rb", "ruby"},
    {"multiple_d", "d"}, {"multiple_jl", "julia"},
};

constexpr std::string_view kFreeformInstruction =
    "Please complete the above code according to the requirements in the docstring. Write the complete code and "
    "wrap it in markdown syntax. The code should not contain `Main` function.";
constexpr std::string_view kFreeformInstructionZh =
    "请按照docstring的要求补全如上代码，写出完整的代码，代码要用markdown语法包裹。代码不要包含`Main`函数";

// CommonOJDataset.language_prompts: {locale: {language: instruction}}, `default` formatted with the language.
struct StdioInstructions {
    std::string_view fallback, cpp, python, java;
};
constexpr StdioInstructions kStdioEn{
    "Please implement complete executable code with an entry point in {language}. Your program should read input "
    "from standard input and write output to standard output.",
    "Please implement complete executable code including a main function in C++. Your program should read input from "
    "standard input and write output to standard output.",
    "Please implement a complete Python script. Your program should read input from standard input and write output "
    "to standard output.",
    "Please implement a complete Java program with a public class named Main. Your class should include a public static "
    "void main(String[] args) method. Your program should read input from System.in and write output to System.out."};
constexpr StdioInstructions kStdioZh{
    "请使用 {language} 实现一个完整的可执行程序，包含程序入口。你的程序应该从标准输入读取数据，并将结果输出到标准输出。",
    "请使用 C++ 实现一个完整的可执行程序，包含 main 函数。你的程序应该从标准输入读取数据，并将结果输出到标准输出。",
    "请编写一个完整的 Python 脚本。你的程序应该从标准输入读取数据，并将结果输出到标准输出。",
    "请实现一个完整的 Java 程序，包含一个名为 Main 的公共类。你的类中应包含 public static void main(String[] args) "
    "方法。你的程序应该从 System.in 读取输入，并将结果输出到 System.out。"};

std::string stdio_instruction(const TestConfig& config) {
    const auto& table = config.locale == std::optional<std::string>("zh") ? kStdioZh : kStdioEn;
    const std::string language = config.language.value_or("None");  // Python's f-string of None
    if (language == "cpp") return std::string(table.cpp);
    if (language == "python") return std::string(table.python);
    if (language == "java") return std::string(table.java);
    std::string text(table.fallback);
    const auto at = text.find("{language}");
    text.replace(at, std::string_view("{language}").size(), language);
    return text;
}

// CommonOJ labels: a dict, or a dict as JSON text (upstream's ensure_json); anything else gives {}.
json::object stdio_labels(const json::object& row) {
    const auto* labels = row.if_contains("labels");
    if (!labels) return {};
    if (labels->is_object()) return labels->get_object();
    if (labels->is_string()) {
        boost::system::error_code ec;
        auto parsed = json::parse(labels->get_string(), ec);
        if (!ec && parsed.is_object()) return std::move(parsed.get_object());
    }
    return {};
}

}  // namespace

json::object make_prompt(DatasetClass kind, std::string_view dataset, const json::object& row, const TestConfig& config) {
    json::object prompt;
    const auto* id = row_id(row);
    prompt["id"] = id ? *id : json::value(nullptr);
    if (kind == DatasetClass::common_oj) {
        prompt["prompt"] = string_field(row, "content") + "\n\n" + stdio_instruction(config);
        prompt["labels"] = stdio_labels(row);
        return prompt;
    }
    std::string text = string_field(row, "prompt");
    if (config.flag("is_freeform")) {
        std::string language = "python";
        if (const auto* row_language = row.if_contains("language"); row_language && row_language->is_string())
            language = std::string(row_language->get_string());
        for (const auto& [name, fence] : kPromptLanguages)
            if (name == dataset) language = std::string(fence);
        language = language.substr(0, language.find('.'));
        const auto instruction = config.locale == std::optional<std::string>("zh") ? kFreeformInstructionZh : kFreeformInstruction;
        text = "```" + language + "\n" + text + "\n```\n\n" + std::string(instruction);
    }
    prompt["prompt"] = std::move(text);
    json::object labels;
    for (const auto& [key, value] : row)
        if (key != "prompt") labels[key] = value;
    prompt["labels"] = std::move(labels);
    return prompt;
}

}  // namespace e2beval::server::sandbox_fusion
