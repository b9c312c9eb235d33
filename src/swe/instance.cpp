// SWE-bench's instance and prediction JSONL, read into value types. Field names are SWE-bench's own, so its
// users' files load unchanged; the test command and framework, which SWE-bench derives from the repository,
// are fields here.
#include "e2beval/swe/instance.hpp"

#include <filesystem>
#include <fstream>

#include <boost/json/parse.hpp>

#include "e2beval/core/error.hpp"

namespace json = boost::json;

namespace e2beval::swe {

namespace {

std::string required_string(const json::object& object, const char* key, const char* what) {
    const auto* value = object.if_contains(key);
    if (!value || !value->is_string() || value->as_string().empty())
        throw input_error(std::string(what) + " needs \"" + key + "\" (a non-empty string)");
    return std::string(value->as_string());
}

std::string optional_string(const json::object& object, const char* key, std::string fallback = {}) {
    const auto* value = object.if_contains(key);
    if (!value || value->is_null()) return fallback;
    if (!value->is_string()) throw input_error(std::string("\"") + key + "\" must be a string");
    return std::string(value->as_string());
}

// A list of strings, or (as in SWE-bench's published datasets) a JSON text that holds one.
std::vector<std::string> string_list(const json::object& object, const char* key) {
    const auto* value = object.if_contains(key);
    if (!value || value->is_null()) return {};
    json::value list = *value;
    if (list.is_string()) {
        boost::system::error_code ec;
        list = json::parse(list.as_string(), ec);
        if (ec) throw input_error(std::string("\"") + key + "\" is a string but not JSON text holding a list: " + ec.message());
    }
    if (!list.is_array()) throw input_error(std::string("\"") + key + "\" must be a list of test ids");
    std::vector<std::string> items;
    for (const auto& item : list.as_array()) {
        if (!item.is_string()) throw input_error(std::string("\"") + key + "\" must hold only strings");
        items.emplace_back(item.as_string());
    }
    return items;
}

template <typename Item, typename Convert>
std::vector<Item> read_jsonl(const std::string& path, Convert convert) {
    std::ifstream input(path);
    if (!input) throw input_error("cannot read " + path + ": no such file, or not readable");
    std::vector<Item> items;
    std::string line;
    for (std::size_t number = 1; std::getline(input, line); ++number) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        boost::system::error_code ec;
        auto value = json::parse(line, ec);
        if (ec || !value.is_object())
            throw input_error(path + ":" + std::to_string(number) + ": not a JSON object" + (ec ? ": " + ec.message() : ""));
        try {
            items.push_back(convert(value.as_object()));
        } catch (const input_error& failure) {
            throw input_error(path + ":" + std::to_string(number) + ": " + failure.what());
        }
    }
    return items;
}

}  // namespace

Instance instance_from_json(const json::object& object) {
    Instance instance;
    instance.instance_id = required_string(object, "instance_id", "an instance");
    instance.repo = required_string(object, "repo", "an instance");
    instance.base_commit = optional_string(object, "base_commit");
    instance.test_patch = optional_string(object, "test_patch");
    instance.gold_patch = optional_string(object, "patch");
    instance.fail_to_pass = string_list(object, "FAIL_TO_PASS");
    instance.pass_to_pass = string_list(object, "PASS_TO_PASS");
    instance.test_cmd = optional_string(object, "test_cmd", instance.test_cmd);
    instance.test_framework = optional_string(object, "test_framework", instance.test_framework);
    instance.test_directives = string_list(object, "test_directives");
    if (instance.fail_to_pass.empty())
        throw input_error("instance " + instance.instance_id + " has no FAIL_TO_PASS tests: nothing would show a fix");
    return instance;
}

Prediction prediction_from_json(const json::object& object) {
    Prediction prediction;
    prediction.instance_id = required_string(object, "instance_id", "a prediction");
    prediction.model_name_or_path = optional_string(object, "model_name_or_path", "unknown");
    prediction.model_patch = optional_string(object, "model_patch");
    return prediction;
}

std::vector<Instance> read_instances(const std::string& path) {
    const auto directory = std::filesystem::absolute(path).parent_path();
    auto instances = read_jsonl<Instance>(path, instance_from_json);
    for (auto& instance : instances)
        if (std::filesystem::path(instance.repo).is_relative()) instance.repo = (directory / instance.repo).lexically_normal().string();
    return instances;
}

std::vector<Prediction> read_predictions(const std::string& path) { return read_jsonl<Prediction>(path, prediction_from_json); }

}  // namespace e2beval::swe
