// The red-team corpus: adversarial model outputs (redteam/attacks/*.txt, compiled into the CLI) with a small
// header each, and the code each one makes the pipeline run. docs/redteam.md describes the file format.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "e2beval/core/types.hpp"

namespace e2beval::cli {

struct RedteamAttack {
    std::string file;      // "10_socket_exfil.txt"
    std::string name;      // "socket-exfil"
    std::string category;  // "exfiltration"
    Language language = Language::python;
    bool is_patch = false;  // the output holds a unified diff; the patched file is what runs
    std::string why;        // what the attack tries and what should stop it
    Limits limits;
    // The attack's code shows that it started by printing a line that matches this (default "^ATTEMPT").
    std::string started_pattern = "^ATTEMPT";
    // When not empty, the run must end with one of these outcomes, else the sandbox did not stop it.
    std::set<Outcome> required_outcomes;
    std::vector<std::string> host_files;  // host paths (with placeholders) whose creation means success
    std::string model_output;             // with {{PLACEHOLDERS}} the runner fills in
};

// Every attack compiled into this binary, in file order. Throws input_error for a malformed file.
const std::vector<RedteamAttack>& builtin_attacks();

// Replaces each {{NAME}} in `text` with values.at(NAME); throws input_error naming `where` for an unknown one.
std::string fill_placeholders(std::string_view text, const std::map<std::string, std::string>& values,
                              std::string_view where);

// What the pipeline runs for an attack whose model output is `output` (placeholders already filled in).
struct AttackCode {
    std::string code;
    Language language = Language::python;
    std::string source;  // how it was found: "fenced block 1 of 1 ..." or "patched file setup.py"
};

// The extractor's code, or for a patch the patched file's new content (the diff's post-image: context and
// added lines). nullopt when the output holds no code.
std::optional<AttackCode> attack_code(const RedteamAttack& attack, std::string_view output);

}  // namespace e2beval::cli
