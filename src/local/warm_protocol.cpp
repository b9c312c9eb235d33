// See warm_protocol.hpp. Both ends are this code built for this machine, so the encoding is plain
// native-endian fields; decoding still checks every length, as the bytes cross a process boundary.
#include "local/warm_protocol.hpp"

#include <cstring>

#include "local/program_steps.hpp"
#include "local/rlimit.hpp"

namespace e2beval::local {

namespace {

constexpr std::uint32_t kSettingsMagic = 0x65327732;  // "e2w2"
constexpr std::uint32_t kStepsMagic = 0x65327331;     // "e2s1"
constexpr std::uint32_t kRequestMagic = 0x65327231;   // "e2r1"

template <typename T>
void put(std::string& out, const T& value) {
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

template <typename T>
bool take(std::string_view& in, T& value) {
    if (in.size() < sizeof value) return false;
    std::memcpy(&value, in.data(), sizeof value);
    in.remove_prefix(sizeof value);
    return true;
}

void put_text(std::string& out, std::string_view text) {
    put(out, static_cast<std::uint32_t>(text.size()));
    out.append(text);
}

bool take_text(std::string_view& in, std::string_view& text) {
    std::uint32_t size = 0;
    if (!take(in, size) || in.size() < size) return false;
    text = in.substr(0, size);
    in.remove_prefix(size);
    return true;
}

}  // namespace

std::string encode_warm_settings(const WarmSettings& settings) {
    std::string out;
    put(out, kSettingsMagic);
    put(out, static_cast<std::uint32_t>(settings.seccomp_reports_denials));
    put(out, settings.cgroup_task_files);
    put(out, static_cast<std::uint32_t>(settings.seccomp_filter.size()));
    for (const auto& instruction : settings.seccomp_filter) put(out, instruction);
    return out;
}

std::optional<WarmSettings> decode_warm_settings(std::string_view bytes) {
    std::uint32_t magic = 0, reports = 0, task_files = 0, count = 0;
    if (!take(bytes, magic) || magic != kSettingsMagic || !take(bytes, reports) || !take(bytes, task_files) ||
        !take(bytes, count))
        return {};
    if (task_files > static_cast<std::uint32_t>(kMaxCgroupTaskFiles)) return {};
    // A BPF program holds at most BPF_MAXINSNS instructions; the kernel would refuse more anyway.
    if (count == 0 || count > BPF_MAXINSNS || bytes.size() != count * sizeof(sock_filter)) return {};
    WarmSettings settings;
    settings.seccomp_reports_denials = reports != 0;
    settings.cgroup_task_files = task_files;
    settings.seccomp_filter.resize(count);
    std::memcpy(settings.seccomp_filter.data(), bytes.data(), bytes.size());
    return settings;
}

std::string encode_warm_steps(const WarmSteps& steps) {
    std::string out;
    put(out, kStepsMagic);
    put(out, steps.workspace_bytes);
    put(out, static_cast<std::uint32_t>(steps.rlimits.size()));
    for (const auto& limit : steps.rlimits) {
        put(out, static_cast<std::int32_t>(limit.resource));
        put(out, static_cast<std::uint64_t>(limit.soft));
        put(out, static_cast<std::uint64_t>(limit.hard));
    }
    return out;
}

std::optional<WarmSteps> decode_warm_steps(std::string_view bytes) {
    std::uint32_t magic = 0, count = 0;
    WarmSteps steps;
    if (!take(bytes, magic) || magic != kStepsMagic || !take(bytes, steps.workspace_bytes) || !take(bytes, count)) return {};
    if (count > 64) return {};
    for (std::uint32_t i = 0; i < count; ++i) {
        std::int32_t resource = 0;
        std::uint64_t soft = 0, hard = 0;
        if (!take(bytes, resource) || !take(bytes, soft) || !take(bytes, hard)) return {};
        steps.rlimits.push_back({resource, static_cast<rlim_t>(soft), static_cast<rlim_t>(hard), rlimit_name(resource)});
    }
    if (!bytes.empty()) return {};
    return steps;
}

std::string encode_warm_request(const WarmRequest& request) {
    std::string out;
    put(out, kRequestMagic);
    put_text(out, encode_warm_steps(request.steps));
    put(out, static_cast<std::uint32_t>(request.environment.size()));
    for (const auto& variable : request.environment) put_text(out, variable);
    return out;
}

std::optional<WarmRequest> decode_warm_request(std::string_view bytes) {
    std::uint32_t magic = 0, count = 0;
    std::string_view steps_bytes;
    if (!take(bytes, magic) || magic != kRequestMagic || !take_text(bytes, steps_bytes) || !take(bytes, count)) return {};
    auto steps = decode_warm_steps(steps_bytes);
    if (!steps || count > bytes.size()) return {};  // each variable takes at least its 4-byte length
    WarmRequest request{std::move(*steps), {}};
    request.environment.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i) {
        std::string_view variable;
        if (!take_text(bytes, variable) || variable.find('=') == std::string_view::npos ||
            variable.find('\0') != std::string_view::npos)
            return {};
        request.environment.emplace_back(variable);
    }
    if (!bytes.empty()) return {};
    return request;
}

}  // namespace e2beval::local
