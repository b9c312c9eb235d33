// `e2beval report`: a metrics directory or promptfoo's -o JSON in, a Markdown / HTML / JSON / JUnit report out.
// The reading and rendering are the library's (report.hpp); this file only maps options and messages.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/eval/metrics.hpp"
#include "e2beval/report/report.hpp"

namespace e2beval::cli {

namespace {

std::filesystem::path input_option(const ParsedArgs& args) {
    const auto directory = args.value("--results-dir");
    if (directory && !args.positional.empty())
        throw usage_error("give the input once: either INPUT or --results-dir, not both");
    if (!args.positional.empty()) return args.positional[0];
    return directory ? std::filesystem::path(*directory) : default_results_dir();
}

ReportFormat format_option(const ParsedArgs& args) {
    const auto name = args.value("--format").value_or("md");
    const auto format = report_format_from_string(name);
    if (!format) throw usage_error("--format must be md, html, json or junit, got '" + name + "'");
    return *format;
}

// A metrics directory collects every run written into it; the latest one is shown unless asked otherwise.
RunSelection run_option(const ParsedArgs& args) {
    const auto run = args.value("--run");
    if (run && args.flag("--all-runs")) throw usage_error("give --run ID or --all-runs, not both");
    if (run && run->empty()) throw usage_error("--run needs a run id (the report lists the runs of its input)");
    if (run) return RunSelection::one(*run);
    return args.flag("--all-runs") ? RunSelection::all() : RunSelection::latest();
}

std::string output_option(const ParsedArgs& args, ReportFormat format) {
    const auto long_form = args.value("--output"), short_form = args.value("-o");
    if (long_form && short_form) throw usage_error("give the output once: -o or --output, not both");
    if (long_form) return *long_form;
    if (short_form) return *short_form;
    return "promptfoo_report." + std::string(file_extension(format));
}

}  // namespace

int report_command(const ParsedArgs& args) {
    const auto format = format_option(args);
    const auto input = input_option(args);
    const auto output = output_option(args, format);
    const auto data = load_report_input(input, run_option(args));
    for (const auto& skipped : data.skipped) std::cerr << "e2beval: skipped " << skipped << "\n";
    // An empty report would look like "nothing failed"; say instead that there was nothing to report.
    if (data.rows.empty())
        throw input_error("no results in " + input.string() + (data.skipped.empty() ? "" : " (every file was skipped, see above)") +
                          "; run an evaluation that writes metrics (the promptfoo assertion or `e2beval eval`) or give "
                          "promptfoo's `-o out.json`");
    const auto text = render_report(data, format);
    if (output == "-") {
        std::cout << text;
        return 0;
    }
    {
        std::ofstream out(output, std::ios::binary);
        out << text;
        out.flush();
        if (!out) throw io_error("cannot write the report to " + output + "; check that its directory exists and is writable");
    }
    const auto summary = summarize(data);
    if (format == ReportFormat::markdown) std::cout << text << "\n";
    std::cout << "report: " << output << " (" << file_extension(format) << ", " << data.rows.size() << " rows from "
              << to_string(data.kind) << " " << data.source << ": " << summary.passed << " passed, " << summary.failed
              << " failed, " << summary.errors << " errors)\n";
    if (const auto runs = describe_runs(data); !runs.empty()) std::cout << runs << "\n";
    return 0;
}

}  // namespace e2beval::cli
