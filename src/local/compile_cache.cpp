// See compile_cache.hpp. An entry is one file, <key>.entry: a JSON header line (the compile's result and the
// artifacts' names, modes and sizes) followed by the artifacts' bytes, so storing it is one rename.
#include "local/compile_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdlib>
#include <fstream>
#include <openssl/evp.h>
#include <random>
#include <sstream>

#include "core/base64.hpp"
#include "core/read_file.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/local/templates.hpp"

namespace e2beval::local {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr std::uint64_t kDefaultBoundBytes = 1024ull * 1024ull * 1024ull;
constexpr std::string_view kSuffix = ".entry";

std::int64_t count_nanoseconds(std::chrono::nanoseconds duration) { return duration.count(); }

json::object header_of(const CachedCompile& entry) {
    const auto& result = entry.result;
    json::object header{{"outcome", to_string(result.outcome)},
                        {"exit_code", result.exit_code},
                        {"signal", result.signal},
                        {"stdout", base64_encode(result.stdout_data)},
                        {"stderr", base64_encode(result.stderr_data)},
                        {"stdout_truncated", result.stdout_truncated},
                        {"stderr_truncated", result.stderr_truncated},
                        {"wall_time_ns", count_nanoseconds(result.wall_time)},
                        {"cpu_time_ns", count_nanoseconds(result.cpu_time)},
                        {"peak_memory_bytes", result.peak_memory_bytes ? json::value(*result.peak_memory_bytes) : json::value(nullptr)},
                        {"toolchain", result.toolchain},
                        {"detail", result.detail}};
    json::array artifacts;
    for (const auto& file : entry.artifacts)
        artifacts.push_back(json::object{{"path", file.path}, {"mode", file.mode}, {"size", file.data.size()}});
    header["artifacts"] = std::move(artifacts);
    return header;
}

std::optional<CachedCompile> entry_from(const std::string& content) {
    const auto newline = content.find('\n');
    if (newline == std::string::npos) return std::nullopt;
    boost::system::error_code ec;
    const auto parsed = json::parse(std::string_view(content).substr(0, newline), ec);
    if (ec || !parsed.is_object()) return std::nullopt;
    try {
        const auto& header = parsed.get_object();
        CachedCompile entry;
        auto& result = entry.result;
        const auto outcome = outcome_from_string(header.at("outcome").as_string());
        if (!outcome) return std::nullopt;
        result.outcome = *outcome;
        result.exit_code = static_cast<int>(header.at("exit_code").to_number<std::int64_t>());
        result.signal = static_cast<int>(header.at("signal").to_number<std::int64_t>());
        result.stdout_data = base64_decode(header.at("stdout").as_string());
        result.stderr_data = base64_decode(header.at("stderr").as_string());
        result.stdout_truncated = header.at("stdout_truncated").as_bool();
        result.stderr_truncated = header.at("stderr_truncated").as_bool();
        result.wall_time = std::chrono::nanoseconds(header.at("wall_time_ns").to_number<std::int64_t>());
        result.cpu_time = std::chrono::nanoseconds(header.at("cpu_time_ns").to_number<std::int64_t>());
        if (const auto& peak = header.at("peak_memory_bytes"); !peak.is_null()) result.peak_memory_bytes = peak.to_number<std::uint64_t>();
        result.toolchain = std::string(header.at("toolchain").as_string());
        result.detail = std::string(header.at("detail").as_string());
        std::size_t offset = newline + 1;
        for (const auto& item : header.at("artifacts").as_array()) {
            const auto& artifact = item.as_object();
            const auto size = artifact.at("size").to_number<std::uint64_t>();
            if (offset + size > content.size()) return std::nullopt;
            entry.artifacts.push_back({std::string(artifact.at("path").as_string()), content.substr(offset, size),
                                       static_cast<std::uint32_t>(artifact.at("mode").to_number<std::uint64_t>())});
            offset += size;
        }
        if (offset != content.size()) return std::nullopt;
        return entry;
    } catch (const std::exception&) {
        return std::nullopt;  // a damaged or foreign entry is a miss
    }
}

bool is_entry(const fs::directory_entry& file) {
    return file.is_regular_file() && file.path().filename().string().ends_with(kSuffix);
}

void evict_beyond(const fs::path& directory, std::uint64_t bound) {
    struct Entry {
        fs::path path;
        fs::file_time_type used;
        std::uint64_t bytes;
    };
    std::vector<Entry> entries;
    std::uint64_t total = 0;
    std::error_code ec;
    for (const auto& file : fs::directory_iterator(directory, ec)) {
        if (!is_entry(file)) continue;
        const auto bytes = file.file_size(ec);
        const auto used = file.last_write_time(ec);
        if (ec) continue;
        entries.push_back({file.path(), used, bytes});
        total += bytes;
    }
    if (total <= bound) return;
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
    for (const auto& entry : entries) {
        if (total <= bound) break;
        if (fs::remove(entry.path, ec)) total -= entry.bytes;
    }
}

}  // namespace

fs::path compile_cache_directory() { return e2beval_cache_directory() / "compile"; }

std::uint64_t compile_cache_bound_bytes() {
    const char* configured = std::getenv("E2BEVAL_COMPILE_CACHE_BYTES");
    if (!configured || !*configured) return kDefaultBoundBytes;
    char* end = nullptr;
    const auto value = std::strtoull(configured, &end, 10);
    if (end == configured || *end != '\0')
        throw input_error("E2BEVAL_COMPILE_CACHE_BYTES must be a number of bytes (0 turns the compile cache off), got '" +
                          std::string(configured) + "'");
    return value;
}

std::string compile_cache_key(const std::vector<std::string>& parts) {
    EVP_MD_CTX* context = EVP_MD_CTX_new();
    if (!context) throw sandbox_error("EVP_MD_CTX_new failed");
    EVP_DigestInit_ex(context, EVP_sha256(), nullptr);
    for (const auto& part : parts) {
        const std::string length = std::to_string(part.size()) + ":";
        EVP_DigestUpdate(context, length.data(), length.size());
        EVP_DigestUpdate(context, part.data(), part.size());
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    EVP_DigestFinal_ex(context, digest, &size);
    EVP_MD_CTX_free(context);
    static const char* kHex = "0123456789abcdef";
    std::string key;
    for (unsigned int i = 0; i < size; ++i) key += {kHex[digest[i] >> 4], kHex[digest[i] & 15]};
    return key;
}

std::optional<CachedCompile> compile_cache_lookup(const std::string& key) {
    if (compile_cache_bound_bytes() == 0) return std::nullopt;
    const auto path = compile_cache_directory() / (key + std::string(kSuffix));
    const auto content = read_file(path);
    if (!content) return std::nullopt;
    auto entry = entry_from(*content);
    if (entry) ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // used now: evicted last
    return entry;
}

void compile_cache_store(const std::string& key, const CachedCompile& entry) {
    const auto bound = compile_cache_bound_bytes();
    if (bound == 0) return;
    const auto directory = compile_cache_directory();
    std::error_code ec;
    fs::create_directories(directory, ec);
    if (ec) return;
    std::random_device random;
    const auto temporary = directory / (".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(random()));
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << json::serialize(header_of(entry)) << '\n';
        for (const auto& artifact : entry.artifacts) out.write(artifact.data.data(), static_cast<std::streamsize>(artifact.data.size()));
        if (!out) {
            out.close();
            fs::remove(temporary, ec);
            return;
        }
    }
    fs::rename(temporary, directory / (key + std::string(kSuffix)), ec);
    if (ec) fs::remove(temporary, ec);
    evict_beyond(directory, bound);
}

CompileCacheInfo compile_cache_info() {
    CompileCacheInfo info;
    info.directory = compile_cache_directory();
    info.bound_bytes = compile_cache_bound_bytes();
    std::error_code ec;
    for (const auto& file : fs::directory_iterator(info.directory, ec)) {
        if (!is_entry(file)) continue;
        ++info.entries;
        info.bytes += file.file_size(ec);
    }
    return info;
}

std::uint64_t compile_cache_clear() {
    std::uint64_t removed = 0;
    std::error_code ec;
    for (const auto& file : fs::directory_iterator(compile_cache_directory(), ec)) {
        const bool entry = is_entry(file);
        if (!entry && !file.path().filename().string().starts_with(".tmp-")) continue;
        if (fs::remove(file.path(), ec) && entry) ++removed;
    }
    return removed;
}

}  // namespace e2beval::local
