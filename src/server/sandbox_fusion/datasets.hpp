// The datasets SandboxFusion's dataset API serves: which evaluation class a dataset name uses (SandboxFusion's own
// ids as upstream registers them; any other name by the shape of its rows), the rows of `--dataset NAME=FILE`,
// and a row's id. docs/sandbox-fusion-datasets.md.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

namespace e2beval::server::sandbox_fusion {

// The evaluation classes e2beval serves, under SandboxFusion's class names (config.dataset_type).
enum class DatasetClass {
    humaneval,  // HumanEvalDataset: HumanEval rows (task_id, prompt, canonical_solution, test, entry_point), or MultiPL-E rows
    multipl_e,  // MultiPLEDataset: MultiPL-E rows (name, language, prompt, tests, stop_tokens)
    common_oj,  // CommonOJDataset: stdin/stdout problems (id, content, labels, test)
};
std::string_view class_name(DatasetClass kind) noexcept;
// A class name as config.dataset_type gives it; nullopt for one e2beval does not serve.
std::optional<DatasetClass> class_from_name(std::string_view name) noexcept;

// How SandboxFusion registers a dataset id (sandbox/configs/local.yaml).
struct RegisteredId {
    std::string_view class_name;           // "HumanEvalDataset", "MBPPDataset", ...
    std::optional<DatasetClass> served;    // nullopt: a class e2beval does not serve
};
std::optional<RegisteredId> sandbox_fusion_id(std::string_view dataset) noexcept;
// SandboxFusion's ids whose class e2beval serves and whose rows' language it runs, in upstream's order
// (/list_datasets lists them).
std::vector<std::string_view> served_sandbox_fusion_ids();

// The class a row's shape says; nullopt when it has none of the three shapes.
std::optional<DatasetClass> class_of_row(const boost::json::object& row) noexcept;
// A MultiPL-E-shaped row in Python ("py"): judged as HumanEval's Python is, with the row's own tests.
bool is_python_row_language(std::string_view language) noexcept;
// What is wrong with `row` as a row of `kind` (a missing or mistyped field), or nullopt when it can be served.
std::optional<std::string> row_problem(const boost::json::object& row, DatasetClass kind);

// A row's id: `id`, else `task_id`, else `name` (nullptr when it has none).
const boost::json::value* row_id(const boost::json::object& row) noexcept;
// An id as ids are compared: a string as it is, a number as JSON writes it (so 0 and "0" are the same id).
std::string id_text(const boost::json::value& id);

struct Dataset {
    std::string name;
    DatasetClass kind = DatasetClass::humaneval;
    std::filesystem::path file;
    std::vector<boost::json::object> rows;          // in file order
    std::map<std::string, std::size_t> row_by_id;   // id_text -> index into rows

    const boost::json::object* find(std::string_view id) const;
};

// Every dataset of --dataset, in the order given; immutable once loaded.
struct Datasets {
    std::vector<Dataset> datasets;

    const Dataset* find(std::string_view name) const;
};

// Reads one FILE of `--dataset NAME=FILE` (JSONL, gzip or not). Throws input_error naming the file and line of a
// line that is not a JSON object, a row of the wrong shape, a row without an id or with one seen before.
Dataset load_dataset(std::string name, const std::filesystem::path& file);

}  // namespace e2beval::server::sandbox_fusion
