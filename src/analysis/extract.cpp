// CodeExtractor: finds the code to run in a model's answer — fenced blocks first, then definitions in prose.
// Every result says how it was found (method, blocks used, explanation) so that a verdict can explain itself.
#include "e2beval/analysis/extract.hpp"

#include <algorithm>
#include <utility>

#include "analysis/extract_parts.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/core/text.hpp"

namespace e2beval {

std::string_view to_string(ExtractionMethod method) noexcept {
    switch (method) {
        case ExtractionMethod::fenced_block: return "fenced_block";
        case ExtractionMethod::function_definition: return "function_definition";
        case ExtractionMethod::any_definition: return "any_definition";
        case ExtractionMethod::whole_output: return "whole_output";
    }
    return "unknown";
}

namespace {

std::string line_range(std::size_t first, std::size_t last) {
    return first == last ? "line " + std::to_string(first)
                         : "lines " + std::to_string(first) + "-" + std::to_string(last);
}

std::string with_final_newline(std::string_view code) {
    std::string result(detail::extraction::trim(code));
    if (!result.empty()) result += '\n';
    return result;
}

}  // namespace


CodeExtractor::CodeExtractor(ExtractOptions options) : options_(std::move(options)) {}

std::vector<CodeBlock> CodeExtractor::fenced_blocks(std::string_view output) {
    using namespace detail::extraction;
    const std::string normalised = normalise_newlines(output);
    std::vector<CodeBlock> blocks;
    for (auto& found : find_fenced_blocks(split_lines(normalised))) blocks.push_back(std::move(found.block));
    return blocks;
}

// When a function_name is given but no code defines it, the best code found is still returned (the method
// and explanation say so): the Runner then reports the tutorial's "No Python function named X found", which
// is more useful to the user than "no code found" when code is plainly there.
std::optional<Extraction> CodeExtractor::try_extract(std::string_view output) const {
    using namespace detail::extraction;
    auto extraction = find_code(output);
    if (!extraction || extraction->language != Language::python || !options_.function_name) return extraction;
    extraction->code = drop_examples(extraction->code, options_, extraction->explanation);
    return extraction;
}

std::optional<Extraction> CodeExtractor::find_code(std::string_view output) const {
    using namespace detail::extraction;
    const std::string normalised = normalise_newlines(output);
    if (is_blank(normalised)) return std::nullopt;
    const auto lines = split_lines(normalised);
    const auto blocks = find_fenced_blocks(lines);
    const Language wanted = options_.language;
    const auto& function_name = options_.function_name;

    const auto has_code = [&](std::size_t i) { return !is_blank(blocks[i].block.code); };
    // A TypeScript block answers a JavaScript task too, run as JavaScript (types are the usual difference).
    const auto compatible = [&](std::size_t i) {
        return blocks[i].block.language == wanted || blocks[i].block.tag.empty() ||
               (wanted == Language::javascript && blocks[i].block.language == Language::typescript);
    };
    const auto unknown_tag = [&](std::size_t i) {
        return !blocks[i].block.tag.empty() && !blocks[i].block.language.has_value();
    };
    const auto defines_wanted = [&](std::size_t i) {
        return function_name && defines_function(blocks[i].block.code, wanted, *function_name);
    };
    const auto first_block = [&](auto&& predicate) -> std::optional<std::size_t> {
        for (std::size_t i = 0; i < blocks.size(); ++i)
            if (has_code(i) && predicate(i)) return i;
        return std::nullopt;
    };

    const auto from_block = [&](std::size_t chosen, const std::string& suffix) {
        const FoundBlock& found = blocks[chosen];
        Extraction extraction;
        extraction.code = found.block.code;
        extraction.language = found.block.language.value_or(wanted);
        if (wanted == Language::javascript && extraction.language == Language::typescript) extraction.language = wanted;
        extraction.method = ExtractionMethod::fenced_block;
        extraction.blocks_used = {chosen};
        extraction.explanation = "fenced block " + std::to_string(chosen + 1) + " of " +
                                 std::to_string(blocks.size()) + " (" + found.fence_text + " at line " +
                                 std::to_string(found.block.first_line) +
                                 (found.block.terminated ? "" : ", never closed") +
                                 (found.repl_session ? ", a >>> session: prompts and output stripped" : "") + ")" + suffix;
        return extraction;
    };

    // 1. The block that defines the function, with what it needs from the other blocks.
    if (function_name) {
        auto chosen = first_block([&](std::size_t i) { return compatible(i) && defines_wanted(i); });
        if (!chosen) chosen = first_block([&](std::size_t i) { return unknown_tag(i) && defines_wanted(i); });
        if (chosen) {
            Extraction extraction = from_block(*chosen, "; defines " + *function_name);
            if (wanted == Language::python) {
                std::vector<CodeSource> others;
                for (std::size_t i = 0; i < blocks.size(); ++i)
                    if (i != *chosen && has_code(i) && compatible(i)) others.push_back({i, blocks[i].block.code});
                auto assembled = assemble_with_helpers(extraction.code, others, "block");
                extraction.code = std::move(assembled.code);
                extraction.blocks_used.insert(extraction.blocks_used.end(), assembled.sources_used.begin(),
                                              assembled.sources_used.end());
                extraction.explanation += assembled.note;
            }
            return extraction;
        }
    }
    const std::string not_defined = function_name ? "; no block defines " + *function_name : "";

    // 2. The first block in the wanted language or without a tag, as the tutorial does.
    if (const auto chosen = first_block(compatible)) return from_block(*chosen, not_defined);

    // 3. No usable fence: bare code, or definitions written into the prose.
    if (wanted != Language::python) {
        if (blocks.empty()) {
            Extraction extraction;
            extraction.code = with_final_newline(normalised);
            extraction.language = wanted;
            extraction.method = ExtractionMethod::whole_output;
            extraction.explanation = "no fenced block; used the whole output as " + std::string(to_string(wanted));
            return extraction;
        }
    } else if (blocks.empty() && looks_like_python_program(normalised, lines)) {
        Extraction extraction;
        extraction.code = with_final_newline(normalised);
        extraction.method = ExtractionMethod::whole_output;
        extraction.explanation = "no fenced block; the whole output is Python code";
        if (function_name && !python_definition_line(extraction.code, *function_name))
            extraction.explanation += "; it does not define " + *function_name;
        return extraction;
    } else {
        const auto runs = find_code_runs(normalised, lines);
        if (function_name) {
            for (std::size_t r = 0; r < runs.size(); ++r) {
                const auto definition_line = python_definition_line(runs[r].code, *function_name);
                if (!definition_line) continue;
                Extraction extraction;
                extraction.method = ExtractionMethod::function_definition;
                std::vector<CodeSource> others;
                for (std::size_t o = 0; o < runs.size(); ++o)
                    if (o != r) others.push_back({o, runs[o].code});
                auto assembled = assemble_with_helpers(runs[r].code, others, "run");
                extraction.code = std::move(assembled.code);
                extraction.explanation = "unfenced code at " + line_range(runs[r].first_line, runs[r].last_line) +
                                         " (def " + *function_name + " at line " +
                                         std::to_string(runs[r].first_line + *definition_line - 1) + ")";
                // Name helper runs by their lines, which mean more to a reader than run numbers.
                for (std::size_t used : assembled.sources_used)
                    extraction.explanation += "; plus " + line_range(runs[used].first_line, runs[used].last_line);
                return extraction;
            }
        }
        const auto first_definition =
            std::find_if(runs.begin(), runs.end(), [](const CodeRun& run) { return run.has_definition; });
        if (first_definition != runs.end()) {
            // Like the tutorial's "any def to the end", but without the prose in between.
            Extraction extraction;
            extraction.method = ExtractionMethod::any_definition;
            std::string ranges;
            for (const auto& run : runs) {
                if (!extraction.code.empty()) extraction.code += '\n';
                extraction.code += run.code;
                ranges += (ranges.empty() ? "" : ", ") + line_range(run.first_line, run.last_line);
            }
            extraction.explanation = "unfenced code at " + ranges;
            if (function_name) extraction.explanation += "; none of it defines " + *function_name;
            return extraction;
        }
    }

    // 4. Only blocks in another language or with an unknown tag: better than nothing, and the explanation says so.
    if (const auto chosen = first_block(unknown_tag))
        return from_block(*chosen, "; the tag is not " + std::string(to_string(wanted)) + not_defined);
    if (const auto chosen = first_block([](std::size_t) { return true; }))
        return from_block(*chosen, "; the tag is not " + std::string(to_string(wanted)) + not_defined);
    return std::nullopt;
}

Extraction CodeExtractor::extract(std::string_view output) const {
    using namespace detail::extraction;
    require_clean_text(output, "model output");
    if (is_blank(output))
        throw extraction_error(
            "the model output is empty; there is no code to run (check the provider's response and the prompt)");
    if (auto extraction = try_extract(output)) return std::move(*extraction);

    const std::string fence = "```" + std::string(to_string(options_.language));
    std::string expected = "a " + fence + " fenced block";
    if (options_.language == Language::python)
        expected += options_.function_name ? " or a \"def " + *options_.function_name + "(\" definition"
                                           : " or a Python \"def\"";
    throw extraction_error("no code found in the model output (expected " + expected + "); output starts: \"" +
                           preview(output, 60) + "\"");
}

}  // namespace e2beval
