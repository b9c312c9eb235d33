// Dataset names, classes, row shapes and `--dataset NAME=FILE` loading.
#include "server/sandbox_fusion/datasets.hpp"

#include <array>
#include <sstream>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "e2beval/core/error.hpp"
#include "e2beval/eval/assembly.hpp"
#include "e2beval/eval/humaneval.hpp"
#include "e2beval/eval/multipl_e.hpp"
#include "server/sandbox_fusion/dataset_routes.hpp"

namespace e2beval::server::sandbox_fusion {

namespace json = boost::json;

namespace {

struct IdClass {
    std::string_view id;
    std::string_view class_name;
};

// sandbox/configs/local.yaml's registry, in its order (the order upstream's /list_datasets answers in).
constexpr std::array<IdClass, 53> kRegistry{{
    {"aider_benchmark_v1", "AiderBenchmarkDataset"}, {"code_contests", "CommonOJDataset"},
    {"cruxeval", "CruxEvalDataset"}, {"cruxeval_x", "CruxEvalDataset"},
    {"multiple_cpp", "MultiPLEDataset"}, {"multiple_ts", "MultiPLEDataset"}, {"multiple_sh", "MultiPLEDataset"},
    {"multiple_cs", "MultiPLEDataset"}, {"multiple_go", "MultiPLEDataset"}, {"multiple_java", "MultiPLEDataset"},
    {"multiple_lua", "MultiPLEDataset"}, {"multiple_js", "MultiPLEDataset"}, {"multiple_php", "MultiPLEDataset"},
    {"multiple_pl", "MultiPLEDataset"}, {"multiple_rkt", "MultiPLEDataset"}, {"multiple_r", "MultiPLEDataset"},
    {"multiple_rs", "MultiPLEDataset"}, {"multiple_scala", "MultiPLEDataset"}, {"multiple_swift", "MultiPLEDataset"},
    {"multiple_rb", "MultiPLEDataset"}, {"multiple_d", "MultiPLEDataset"}, {"multiple_jl", "MultiPLEDataset"},
    {"humaneval_python", "HumanEvalDataset"}, {"humaneval_cpp", "HumanEvalDataset"},
    {"humaneval_typescript", "HumanEvalDataset"}, {"humaneval_bash", "HumanEvalDataset"},
    {"humaneval_csharp", "HumanEvalDataset"}, {"humaneval_go", "HumanEvalDataset"}, {"humaneval_java", "HumanEvalDataset"},
    {"shadow_humaneval_python", "HumanEvalDataset"}, {"bigcodebench", "HumanEvalDataset"},
    {"evoeval", "EvoEvalDataset"}, {"live_code_bench_v1", "LiveCodeBenchDataset"}, {"mbpp", "MBPPDataset"},
    {"mbxp_v1_en", "MBXPDataset"}, {"humanevalds_v1_en", "MBXPDataset"}, {"oodtest_v1_zh", "MBXPDataset"},
    {"humanevalds_v2_en", "MBXPDataset"}, {"mbxp_v2_en", "MBXPDataset"}, {"mhpp", "MHPPDataset"},
    {"minif2f_lean4_test", "MiniF2FLean4Dataset"}, {"minif2f_lean4_valid", "MiniF2FLean4Dataset"},
    {"ncb_python_zh", "NaturalCodeBenchDataset"}, {"ncb_python_en", "NaturalCodeBenchDataset"},
    {"ncb_java_zh", "NaturalCodeBenchDataset"}, {"ncb_java_en", "NaturalCodeBenchDataset"}, {"palmath", "PalMathDataset"},
    {"repobench_c_python", "RepobenchCDataset"}, {"repobench_c_java", "RepobenchCDataset"},
    {"repobench_p_python", "RepobenchPDataset"}, {"repobench_p_java", "RepobenchPDataset"},
    {"verilogeval_human", "VerilogDataset"}, {"verilogeval_machine", "VerilogDataset"},
}};

bool is_string_field(const json::object& row, std::string_view key) {
    const auto* found = row.if_contains(key);
    return found && found->is_string();
}

// CommonOJ's `test`: a list of {"input": {"stdin": ...}, "output": {"stdout": ...}}, or that list as JSON text.
std::optional<std::string> stdio_cases_problem(const json::value& test) {
    json::value parsed;
    const json::value* cases = &test;
    if (test.is_string()) {
        boost::system::error_code ec;
        parsed = json::parse(test.get_string(), ec);
        if (ec) return "field `test` is a string that is not JSON (" + ec.message() + ")";
        cases = &parsed;
    }
    if (!cases->is_array()) return "field `test` is not a list of {\"input\": {\"stdin\": ...}, \"output\": {\"stdout\": ...}}";
    std::size_t index = 0;
    for (const auto& item : cases->get_array()) {
        const auto* object = item.if_object();
        const auto* input = object ? object->if_contains("input") : nullptr;
        const auto* output = object ? object->if_contains("output") : nullptr;
        const bool good = input && input->is_object() && output && output->is_object() &&
                          (!input->get_object().contains("stdin") || input->get_object().at("stdin").is_string() ||
                           input->get_object().at("stdin").is_null()) &&
                          is_string_field(output->get_object(), "stdout");
        if (!good)
            return "case " + std::to_string(index) +
                   " of field `test` is not {\"input\": {\"stdin\": \"...\"}, \"output\": {\"stdout\": \"...\"}}";
        ++index;
    }
    return std::nullopt;
}

}  // namespace

std::string_view class_name(DatasetClass kind) noexcept {
    switch (kind) {
        case DatasetClass::humaneval: return "HumanEvalDataset";
        case DatasetClass::multipl_e: return "MultiPLEDataset";
        case DatasetClass::common_oj: return "CommonOJDataset";
    }
    return "";
}

std::optional<DatasetClass> class_from_name(std::string_view name) noexcept {
    for (const auto kind : {DatasetClass::humaneval, DatasetClass::multipl_e, DatasetClass::common_oj})
        if (class_name(kind) == name) return kind;
    return std::nullopt;
}

std::optional<RegisteredId> sandbox_fusion_id(std::string_view dataset) noexcept {
    for (const auto& entry : kRegistry)
        if (entry.id == dataset) return RegisteredId{entry.class_name, class_from_name(entry.class_name)};
    return std::nullopt;
}

std::vector<std::string_view> served_sandbox_fusion_ids() {
    // Ids of a served class whose language e2beval does not run or assemble (C#, Lua, PHP, Perl, Racket, R, Scala,
    // Swift, Ruby, D, Julia): no row of theirs could be judged here.
    constexpr std::string_view kUnjudgeable[] = {"humaneval_csharp", "multiple_cs", "multiple_lua", "multiple_php",
                                                 "multiple_pl", "multiple_rkt", "multiple_r", "multiple_scala",
                                                 "multiple_swift", "multiple_rb", "multiple_d", "multiple_jl"};
    std::vector<std::string_view> ids;
    for (const auto& entry : kRegistry) {
        bool judgeable = class_from_name(entry.class_name).has_value();
        for (const auto id : kUnjudgeable) judgeable = judgeable && id != entry.id;
        if (judgeable) ids.push_back(entry.id);
    }
    return ids;
}

std::optional<DatasetClass> class_of_row(const json::object& row) noexcept {
    if (row.contains("test") && row.contains("content")) return DatasetClass::common_oj;
    if (row.contains("tests") && row.contains("language") && row.contains("prompt")) return DatasetClass::multipl_e;
    if (row.contains("prompt") && row.contains("test") && row.contains("entry_point")) return DatasetClass::humaneval;
    return std::nullopt;
}

std::optional<std::string> row_problem(const json::object& row, DatasetClass kind) {
    const auto* id = row_id(row);
    if (!id || !(id->is_string() || id->is_int64() || id->is_uint64()))
        return std::string("it has no id: a string or integer field `id`, `task_id` or `name`");
    try {
        switch (kind) {
            case DatasetClass::common_oj: {
                if (!row.contains("test")) return std::string("it has no field `test` (the stdin/stdout cases)");
                if (auto problem = stdio_cases_problem(row.at("test"))) return problem;
                if (const auto* content = row.if_contains("content"); content && !content->is_string())
                    return std::string("field `content` (the problem statement) is not a string");
                return std::nullopt;
            }
            case DatasetClass::humaneval:
                if (!row.contains("tests")) {
                    for (const auto key : {"prompt", "test", "entry_point"})
                        if (!is_string_field(row, key))
                            return "it has no string field `" + std::string(key) +
                                   "` (a HumanEval row has task_id, prompt, canonical_solution, test, entry_point)";
                    return std::nullopt;
                }
                [[fallthrough]];  // a MultiPL-E row in the HumanEval class, as SandboxFusion allows
            case DatasetClass::multipl_e: {
                if (const auto* language = row.if_contains("language");
                    language && language->is_string() && is_python_row_language(language->get_string())) {
                    for (const auto key : {"prompt", "tests"})
                        if (!is_string_field(row, key)) return "it has no string field `" + std::string(key) + "`";
                    return std::nullopt;
                }
                multipl_e_task_from_json(row);  // throws input_error saying what is missing
                return std::nullopt;
            }
        }
    } catch (const input_error& problem) {
        return std::string(problem.what());
    }
    return std::nullopt;
}

bool is_python_row_language(std::string_view language) noexcept {
    return language == "py" || language == "python" || language == "python3";
}

const json::value* row_id(const json::object& row) noexcept {
    for (const auto key : {"id", "task_id", "name"})
        if (const auto* found = row.if_contains(key); found && !found->is_null()) return found;
    return nullptr;
}

std::string id_text(const json::value& id) {
    if (id.is_string()) return std::string(id.get_string());
    return json::serialize(id);
}

const json::object* Dataset::find(std::string_view id) const {
    const auto found = row_by_id.find(std::string(id));
    return found == row_by_id.end() ? nullptr : &rows[found->second];
}

const Dataset* Datasets::find(std::string_view name) const {
    for (const auto& dataset : datasets)
        if (dataset.name == name) return &dataset;
    return nullptr;
}

Dataset load_dataset(std::string name, const std::filesystem::path& file) {
    Dataset dataset;
    dataset.name = std::move(name);
    dataset.file = file;
    const auto registered = sandbox_fusion_id(dataset.name);
    if (registered && !registered->served)
        throw input_error("--dataset " + dataset.name + ": SandboxFusion evaluates '" + dataset.name + "' with its " +
                          std::string(registered->class_name) +
                          ", which e2beval does not serve (it serves HumanEvalDataset, MultiPLEDataset, CommonOJDataset); "
                          "register the file under another name whose rows are one of those shapes");
    std::string content;
    try {
        content = read_maybe_gzip(file);
    } catch (const input_error& missing) {
        throw input_error("--dataset " + dataset.name + ": " + missing.what());
    } catch (const io_error& unreadable) {
        throw io_error("--dataset " + dataset.name + ": " + unreadable.what());
    }
    std::istringstream lines(content);
    std::size_t number = 0;
    // The class: the SandboxFusion id's, else the first row's shape (`decided` once either is known).
    bool decided = registered.has_value();
    if (decided) dataset.kind = *registered->served;
    for (std::string line; std::getline(lines, line);) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const auto where = "--dataset " + dataset.name + ": " + file.string() + " line " + std::to_string(number);
        boost::system::error_code ec;
        auto value = json::parse(line, ec);
        if (ec || !value.is_object()) throw input_error(where + " is not a JSON object");
        auto& row = value.get_object();
        if (!decided) {
            const auto shape = class_of_row(row);
            if (!shape)
                throw input_error(where + " has none of the row shapes e2beval serves: HumanEval (task_id, prompt, "
                                          "canonical_solution, test, entry_point), MultiPL-E (name, language, prompt, tests, "
                                          "stop_tokens) or stdin/stdout (id, content, labels, test)");
            dataset.kind = *shape;
            decided = true;
        }
        if (auto problem = row_problem(row, dataset.kind))
            throw input_error(where + " is not a " + std::string(class_name(dataset.kind)) + " row: " + *problem);
        auto id = id_text(*row_id(row));
        if (const auto seen = dataset.row_by_id.find(id); seen != dataset.row_by_id.end())
            throw input_error(where + ": id '" + id + "' is also the id of an earlier row; ids must be unique");
        dataset.row_by_id.emplace(std::move(id), dataset.rows.size());
        dataset.rows.push_back(std::move(row));
    }
    if (dataset.rows.empty()) throw input_error("--dataset " + dataset.name + ": " + file.string() + " holds no rows");
    return dataset;
}

std::shared_ptr<const Datasets> load_datasets(const std::vector<std::pair<std::string, std::filesystem::path>>& files) {
    auto datasets = std::make_shared<Datasets>();
    for (const auto& [name, file] : files) {
        if (datasets->find(name))
            throw input_error("--dataset " + name + " is given twice; each NAME names one file");
        datasets->datasets.push_back(load_dataset(name, file));
    }
    return datasets;
}

}  // namespace e2beval::server::sandbox_fusion
