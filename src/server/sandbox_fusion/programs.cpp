// HumanEval and MultiPL-E programs for /submit.
#include "server/sandbox_fusion/programs.hpp"

#include <cctype>

#include "e2beval/analysis/extract.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/eval/assembly.hpp"
#include "e2beval/eval/multipl_e.hpp"
#include "server/sandbox_fusion/extraction.hpp"
#include "server/sandbox_fusion/text.hpp"

namespace e2beval::server::sandbox_fusion {

namespace json = boost::json;

// SandboxFusion's 16 lines (sandbox/utils/helpers.py IMPORT_HELPER["python"]), in its order, with numpy's two
// imports guarded: upstream's runtime always has numpy, a sandbox's Python may not, and a HumanEval program that
// does not use numpy must not fail for the want of it (one that uses it fails at its own `np.` line instead).
const std::string_view kPythonImportHelper =
    "import math\n"
    "import re\n"
    "import sys\n"
    "import copy\n"
    "import datetime\n"
    "import itertools\n"
    "import collections\n"
    "import heapq\n"
    "import statistics\n"
    "import functools\n"
    "import hashlib\n"
    "try:\n"
    "    import numpy\n"
    "    import numpy as np\n"
    "except ImportError:\n"
    "    pass\n"
    "import string\n"
    "from typing import *\n"
    "from collections import *\n";

namespace {

// HumanEval's stop token `re:\n(?!\s|\n)(?=.|\n)` (SandboxFusion adds it to original HumanEval rows): the text up to
// the first newline that a non-whitespace character follows, i.e. before the first top-level statement.
std::string cut_at_top_level_line(std::string_view text) {
    for (std::size_t i = 0; i + 1 < text.size(); ++i)
        if (text[i] == '\n' && !is_space(text[i + 1])) return std::string(text.substr(0, i));
    return std::string(text);
}

// A MultiPL-E Python row's stop tokens, each cut at its first occurrence ("\n\n" excepted, as upstream). A regular
// expression token (`re:`) is not applied: e2beval runs no row-supplied regular expression on an answer.
std::string cut_at_stop_tokens(std::string text, const json::object& row) {
    const auto* tokens = row.if_contains("stop_tokens");
    if (!tokens || !tokens->is_array()) return text;
    for (const auto& token : tokens->get_array()) {
        if (!token.is_string()) continue;
        const std::string_view stop = token.get_string();
        if (stop.empty() || stop == "\n\n" || stop.starts_with("re:")) continue;
        if (const auto at = text.find(stop); at != std::string::npos) text.resize(at);
    }
    return text;
}

// The function a Python HumanEval row's tests call: `entry_point`, else the last `def NAME(` of the prompt.
std::string python_entry_point(const json::object& row) {
    if (auto entry = string_field(row, "entry_point"); !entry.empty()) return entry;
    const auto prompt = string_field(row, "prompt");
    const auto at = prompt.rfind("def ");
    if (at == std::string::npos) return "";
    std::string name;
    for (auto i = at + 4; i < prompt.size() && (std::isalnum(static_cast<unsigned char>(prompt[i])) || prompt[i] == '_'); ++i)
        name.push_back(prompt[i]);
    return name;
}

ProgramPlan plan_python(const SubmitRequest& request, const json::object& row) {
    ProgramPlan plan;
    // An original HumanEval row has `test` (and SandboxFusion then adds the top-level stop token); a MultiPL-E Python
    // row has `tests` and its own stop tokens, and its tests call the function themselves.
    const bool original = !row.contains("tests");
    const std::string prompt = string_field(row, "prompt");
    const std::string tests = original ? string_field(row, "test") : string_field(row, "tests");
    const std::string entry = python_entry_point(row);
    const auto continuation = [&](std::string_view answer) {
        return original ? cut_at_top_level_line(answer) : cut_at_stop_tokens(std::string(answer), row);
    };
    std::string body;
    if (request.config.flag("is_freeform")) {
        auto extracted = extract_code(request.completion, "python");
        plan.extracted_type = extracted.type;
        if (!entry.empty() && code_defines_function(extracted.code, Language::python, entry)) {
            plan.extracted_code = std::move(extracted.code);
            body = plan.extracted_code + "\n" + tests;
            plan.extra["assembly"] = "free-form: the answer's code (it defines " + entry + "), then the tests";
        } else {
            // A body without its `def` line: the prompt's head goes first, as for a continuation.
            plan.extracted_code = continuation(extracted.code);
            body = prompt + "\n" + plan.extracted_code + "\n" + tests;
            plan.extra["assembly"] = "free-form: the answer's code does not define " + (entry.empty() ? std::string("the function") : entry) +
                                     ": read as a continuation of the prompt";
        }
    } else {
        plan.extracted_code = continuation(request.completion);
        body = prompt + "\n" + plan.extracted_code + "\n" + tests;
        plan.extra["assembly"] = original ? "continuation: the prompt, the answer up to its first top-level line, the tests"
                                          : "continuation: the prompt, the answer up to its first stop token, the tests";
    }
    plan.run.code = std::string(kPythonImportHelper) + body;
    // SandboxFusion appends the call only for humaneval_python, shadow_humaneval_python and evoeval; e2beval for
    // every original HumanEval row, whose `test` only defines check(): without the call nothing would be tested.
    if (original) plan.run.code += "\ncheck(" + entry + ")";
    plan.run.language = "python";
    return plan;
}

// SandboxFusion's /run_code language for an assembled program.
std::string_view run_language(Language language) {
    switch (language) {
        case Language::cpp: return "cpp";
        case Language::go: return "go_test";
        case Language::java: return "java";
        case Language::javascript: return "nodejs";
        case Language::typescript: return "typescript";
        case Language::rust: return "rust";
        case Language::bash: return "bash";
        default: return "";
    }
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

// Every whole-word `from` in `text` replaced by `to`.
std::string replace_word(std::string_view text, std::string_view from, std::string_view to) {
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        const auto at = text.find(from, i);
        if (at == std::string_view::npos) break;
        const bool starts = at == 0 || !is_word_char(text[at - 1]);
        const bool ends = at + from.size() >= text.size() || !is_word_char(text[at + from.size()]);
        out.append(text.substr(i, at - i));
        out.append(starts && ends ? to : from);
        i = at + from.size();
    }
    out.append(text.substr(i));
    return out;
}

bool has_word(std::string_view text, std::string_view word) { return replace_word(text, word, "") != text; }

ProgramPlan plan_multipl_e(const SubmitRequest& request, const json::object& row) {
    MultiplETask task;
    try {
        task = multipl_e_task_from_json(row);
    } catch (const input_error& problem) {
        throw SubmitRefused(400, std::string("the row cannot be judged: ") + problem.what());
    }
    const bool freeform = request.config.flag("is_freeform");
    const auto program = assemble_multipl_e(task, request.completion, freeform ? AnswerKind::freeform : AnswerKind::continuation);
    ProgramPlan plan;
    plan.run.language = std::string(run_language(program.language));
    plan.run.code = program.source;
    // SandboxFusion's java runs the class Main from Main.java (as upstream renames MultiPL-E's `class Problem`).
    if (program.language == Language::java && !program.main_class.empty() && program.main_class != "Main" &&
        !has_word(plan.run.code, "Main"))
        plan.run.code = replace_word(plan.run.code, program.main_class, "Main");
    plan.extracted_code = program.extracted;
    if (freeform) {
        // How e2beval's assembly found the code, in SandboxFusion's words: a closed fence, only an unclosed one, or
        // none (the whole answer).
        const auto blocks = CodeExtractor::fenced_blocks(request.completion);
        bool closed = false;
        for (const auto& block : blocks) closed = closed || block.terminated;
        plan.extracted_type = blocks.empty() ? (program.extracted.find_first_not_of(" \t\r\n") == std::string::npos ? "empty" : "heuristic")
                                             : (closed ? "fenced" : "incomplete_fenced");
    }
    plan.extra["assembly"] = std::string(to_string(program.kind)) + ": " + program.explanation;
    return plan;
}

}  // namespace

ProgramPlan plan_program(std::string_view dataset, const SubmitRequest& request, const json::object& row) {
    const auto* language = row.if_contains("language");
    const bool python = !row.contains("tests") || (language && language->is_string() && is_python_row_language(language->get_string()));
    if (python && !row.contains("tests")) {
        for (const auto key : {"prompt", "test"})
            if (!row.contains(key) || !row.at(key).is_string())
                throw SubmitRefused(400, "the row cannot be judged: it has no string field `" + std::string(key) +
                                             "` (a HumanEval row has task_id, prompt, canonical_solution, test, entry_point)");
    }
    auto plan = python ? plan_python(request, row) : plan_multipl_e(request, row);
    const double compile_timeout = request.config.compile_timeout.value_or(0);
    const double run_timeout = request.config.run_timeout.value_or(0);
    // Upstream's `config.x or 20` (bigcodebench's run 60): an unset or zero timeout takes the default.
    plan.run.compile_timeout = compile_timeout > 0 ? compile_timeout : 20;
    plan.run.run_timeout = run_timeout > 0 ? run_timeout : (dataset == "bigcodebench" ? 60 : 20);
    return plan;
}

}  // namespace e2beval::server::sandbox_fusion
