// E2bSettings::from_environment: the variables the official SDKs read (E2B_API_KEY, E2B_DOMAIN, E2B_API_URL,
// E2B_SANDBOX_URL) and e2beval's own (E2BEVAL_E2B_*).
#include <cstdlib>
#include <string>

#include "e2beval/core/error.hpp"
#include "e2beval/e2b/e2b_sandbox.hpp"

namespace e2beval {

namespace {

std::string variable(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

double number_variable(const char* name, double fallback, double minimum) {
    const auto text = variable(name);
    if (text.empty()) return fallback;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || value < minimum)
        throw input_error(std::string(name) + " must be a number of at least " + std::to_string(minimum) + ", got '" + text + "'");
    return value;
}

}  // namespace

E2bSettings E2bSettings::from_environment() {
    E2bSettings settings;
    settings.api_key = variable("E2B_API_KEY");
    if (const auto domain = variable("E2B_DOMAIN"); !domain.empty()) settings.domain = domain;
    settings.api_url = variable("E2B_API_URL");
    settings.sandbox_url = variable("E2B_SANDBOX_URL");
    settings.ca_file = variable("E2BEVAL_E2B_CA_FILE");
    if (const auto name = variable("E2BEVAL_E2B_TEMPLATE"); !name.empty()) settings.template_id = name;
    settings.max_sandboxes = static_cast<std::size_t>(number_variable("E2BEVAL_E2B_MAX_SANDBOXES", static_cast<double>(settings.max_sandboxes), 1));
    settings.uses_per_sandbox = static_cast<unsigned>(number_variable("E2BEVAL_E2B_USES_PER_SANDBOX", settings.uses_per_sandbox, 1));
    settings.creation_rate = number_variable("E2BEVAL_E2B_CREATION_RATE", settings.creation_rate, 0.01);
    return settings;
}

}  // namespace e2beval
