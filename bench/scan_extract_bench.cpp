// Throughput of SafetyScanner and CodeExtractor on typical source (HumanEval solutions and the benign corpus),
// with the tutorial's regexes measured in the same run as the baseline: std::regex here, and Python's re (what
// the tutorial really runs) through bench/tutorial_baseline.py when python3 is available. Prints MB/s and ratios.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "e2beval/analysis/extract.hpp"
#include "e2beval/analysis/safety.hpp"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::string read_command(const std::string& command) {
    std::string text;
    if (std::FILE* pipe = ::popen(command.c_str(), "r")) {
        char buffer[65536];
        for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
        ::pclose(pipe);
    }
    return text;
}

// Programs: HumanEval prompt + canonical solution (decoded by python3), else the benign corpus.
std::vector<std::string> load_programs(const fs::path& root) {
    std::vector<std::string> programs;
    const char* env = std::getenv("E2BEVAL_HUMANEVAL");
    const fs::path humaneval = env ? fs::path(env) : root.parent_path() / "shared" / "datasets" / "HumanEval.jsonl.gz";
    if (fs::exists(humaneval)) {
        const std::string text = read_command(
            "python3 -c 'import gzip,json,sys\nfor l in gzip.open(sys.argv[1],\"rt\"):\n t=json.loads(l); "
            "sys.stdout.write(t[\"prompt\"]+t[\"canonical_solution\"]+\"\\0\")' '" + humaneval.string() + "'");
        std::size_t start = 0;
        for (std::size_t end; (end = text.find('\0', start)) != std::string::npos; start = end + 1)
            programs.push_back(text.substr(start, end - start));
    }
    std::ifstream in(root / "tests" / "corpus" / "benign.txt");
    std::string line;
    std::string current;
    bool python = false;
    while (std::getline(in, line)) {
        if (line.rfind("@@@@ ", 0) == 0) {
            if (python && !current.empty()) programs.push_back(current);
            current.clear();
            python = line.find(" python") != std::string::npos;
        } else if (line.rfind("#", 0) != 0 || !current.empty()) {
            current += line + "\n";
        }
    }
    if (python && !current.empty()) programs.push_back(current);
    return programs;
}

template <typename Fn>
double megabytes_per_second(std::size_t bytes_per_round, Fn&& fn) {
    // Enough rounds for ~0.5 s of work, after one warm-up round.
    fn();
    std::size_t rounds = 0;
    const auto start = Clock::now();
    double elapsed = 0;
    do {
        fn();
        ++rounds;
        elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < 0.5);
    return static_cast<double>(bytes_per_round * rounds) / elapsed / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
    const fs::path root = argc > 1 ? fs::path(argv[1]) : fs::path(__FILE__).parent_path().parent_path();
    const auto programs = load_programs(root);
    if (programs.empty()) {
        std::cerr << "no programs found (run from the repository or pass its path)\n";
        return 1;
    }
    std::vector<std::string> answers;  // realistic model answers around each program
    std::vector<e2beval::CodeExtractor> extractors;  // each asks for the program's last function, as a test would
    std::size_t source_bytes = 0;
    std::size_t answer_bytes = 0;
    for (const auto& program : programs) {
        const std::size_t def = program.rfind("def ");
        const std::size_t paren = def == std::string::npos ? def : program.find('(', def);
        const std::string name = paren == std::string::npos ? "solve" : program.substr(def + 4, paren - def - 4);
        e2beval::ExtractOptions options;
        options.function_name = name;
        extractors.emplace_back(options);
        answers.push_back("Here is a solution to the problem.\n\n```python\n" + program +
                          "```\n\nExample usage:\n\n```python\nprint(" + name +
                          "(3))\n```\n\nIt runs in linear time.\n");
        source_bytes += program.size();
        answer_bytes += answers.back().size();
    }

    const e2beval::SafetyScanner scanner;  // standard
    std::size_t sink = 0;
    const double scan_rate = megabytes_per_second(source_bytes, [&] {
        for (const auto& program : programs) sink += scanner.scan(program, e2beval::Language::python).size();
    });
    std::vector<std::regex> unsafe;
    for (const char* pattern : {"import socket", "import requests", "import urllib", "os.system", "subprocess",
                                "eval\\(", "exec\\(", "open\\('/etc", "open\\('/proc", "__import__\\("})
        unsafe.emplace_back(pattern);
    const double regex_scan_rate = megabytes_per_second(source_bytes, [&] {
        for (const auto& program : programs)
            for (const auto& pattern : unsafe) sink += std::regex_search(program, pattern);
    });

    const double extract_rate = megabytes_per_second(answer_bytes, [&] {
        for (std::size_t i = 0; i < answers.size(); ++i) sink += extractors[i].try_extract(answers[i])->code.size();
    });
    const std::regex fenced("```(?:\\s*python)?\\s*\\r?\\n([\\s\\S]*?)```", std::regex::icase);
    const double regex_extract_rate = megabytes_per_second(answer_bytes, [&] {
        std::smatch match;
        for (const auto& answer : answers) sink += std::regex_search(answer, match, fenced);
    });

    // Python's re, as the tutorial runs it, on the same inputs.
    const fs::path temporary = fs::temp_directory_path() / "e2beval_bench_inputs";
    fs::create_directories(temporary);
    {
        std::ofstream sources(temporary / "sources.bin", std::ios::binary);
        for (const auto& program : programs) sources << program << '\0';
        std::ofstream outputs(temporary / "answers.bin", std::ios::binary);
        for (const auto& answer : answers) outputs << answer << '\0';
    }
    const std::string python = read_command("python3 '" + (root / "bench" / "tutorial_baseline.py").string() + "' '" +
                                            temporary.string() + "' 2>/dev/null");
    double python_scan_rate = 0;
    double python_extract_rate = 0;
    std::sscanf(python.c_str(), "%lf %lf", &python_scan_rate, &python_extract_rate);

    std::printf("inputs: %zu programs, %.2f MB of source; %.2f MB of model answers\n", programs.size(),
                static_cast<double>(source_bytes) / 1e6, static_cast<double>(answer_bytes) / 1e6);
    std::printf("%-44s %10s %14s %14s\n", "", "MB/s", "vs std::regex", "vs Python re");
    const auto row = [&](const char* label, double rate, double regex_rate, double python_rate) {
        std::printf("%-44s %10.1f %13.2fx %13s\n", label, rate, rate / regex_rate,
                    python_rate > 0 ? (std::to_string(rate / python_rate).substr(0, 5) + "x").c_str() : "n/a");
    };
    row("SafetyScanner (standard, tokens + rules)", scan_rate, regex_scan_rate, python_scan_rate);
    row("  tutorial's ten regexes, std::regex", regex_scan_rate, regex_scan_rate, python_scan_rate);
    if (python_scan_rate > 0) std::printf("%-44s %10.1f\n", "  tutorial's ten regexes, Python re", python_scan_rate);
    row("CodeExtractor (function_name, helpers, drops)", extract_rate, regex_extract_rate, python_extract_rate);
    row("  tutorial's fence regex, std::regex", regex_extract_rate, regex_extract_rate, python_extract_rate);
    if (python_extract_rate > 0) std::printf("%-44s %10.1f\n", "  tutorial's fence regex, Python re", python_extract_rate);
    std::printf("(checksum %zu)\n", sink);
    return 0;
}
