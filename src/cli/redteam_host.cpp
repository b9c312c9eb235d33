// Host-side traps for `e2beval redteam`, checked after every attack (see redteam_host.hpp).
#include "cli/redteam_host.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "e2beval/core/error.hpp"
#include "core/read_file.hpp"

namespace e2beval::cli {

namespace fs = std::filesystem;

namespace {

std::string random_hex(std::size_t bytes) {
    std::string raw(bytes, '\0');
    std::size_t filled = 0;
    while (filled < bytes) {
        const auto got = ::getrandom(raw.data() + filled, bytes - filled, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            throw sandbox_error(describe_syscall_failure("getrandom", errno));
        }
        filled += static_cast<std::size_t>(got);
    }
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    for (const unsigned char byte : raw) {
        hex += kDigits[byte >> 4];
        hex += kDigits[byte & 15];
    }
    return hex;
}

std::string trimmed(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

int checked(int result, const std::string& call) {
    if (result < 0) throw sandbox_error(describe_syscall_failure(call, errno));
    return result;
}

std::uint16_t bound_port(int fd) {
    sockaddr_in address{};
    socklen_t length = sizeof address;
    checked(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), "getsockname");
    return ntohs(address.sin_port);
}

int loopback_socket(int type) {
    const int fd = checked(::socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), "socket(AF_INET)");
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    checked(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), "bind(127.0.0.1:0)");
    if (type == SOCK_STREAM) checked(::listen(fd, 64), "listen(127.0.0.1)");
    return fd;
}

// Environment variables code tries to steal; the runner sets each to a canary for the duration of the run.
constexpr const char* kSecretVariables[] = {"E2B_API_KEY",    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                                            "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GITHUB_TOKEN"};

}  // namespace

RedteamHost::RedteamHost() {
    token_ = random_hex(8);
    start_sentinel();

    // The project's secrets file: world-readable, so only the sandbox's mount namespace keeps it away.
    const auto dir_template = (fs::temp_directory_path() / "redteam-canary-XXXXXX").string();
    std::string dir_buffer = dir_template;
    if (!::mkdtemp(dir_buffer.data())) throw sandbox_error(describe_syscall_failure("mkdtemp(" + dir_template + ")", errno));
    canary_dir_ = dir_buffer;
    ::chmod(canary_dir_.c_str(), 0755);
    canary_file_ = canary_dir_ + "/.env";
    const auto file_canary = "rt-file-" + random_hex(16);
    {
        std::ofstream out(canary_file_, std::ios::binary);
        out << "# planted by `e2beval redteam`: a project's secrets file that sandboxed code must never read\n"
            << "E2B_API_KEY=" << file_canary << "\n";
        if (!out) throw io_error("cannot write the red-team canary file " + canary_file_);
    }
    ::chmod(canary_file_.c_str(), 0644);
    secrets_.push_back({file_canary, "the project's .env canary"});

    for (const char* name : kSecretVariables) {
        if (const char* real = std::getenv(name); real && std::string(real).size() >= 8)
            secrets_.push_back({real, "the host's real " + std::string(name)});
        const auto canary = "rt-env-" + random_hex(16);
        ::setenv(name, canary.c_str(), 1);
        secrets_.push_back({canary, std::string(name) + " canary from the host's environment"});
    }

    // Real secrets of this host, when this process can read them: never printed, only looked for.
    std::vector<fs::path> secret_files = {"/etc/shadow", "/etc/gshadow"};
    if (const char* home = std::getenv("HOME")) {
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(fs::path(home) / ".ssh", ec))
            if (entry.path().filename().string().starts_with("id_") && entry.path().extension() != ".pub")
                secret_files.push_back(entry.path());
        secret_files.push_back(fs::path(home) / ".aws" / "credentials");
        secret_files.push_back(fs::path(home) / ".netrc");
    }
    for (const auto& path : secret_files) {
        std::istringstream lines(read_text(path));
        const bool shadow = path.filename().string().find("shadow") != std::string::npos;
        for (std::string line; std::getline(lines, line);) {
            line = trimmed(line);
            if (line.size() >= (shadow ? 16u : 24u) && !line.starts_with("-----") && !line.starts_with("["))
                secrets_.push_back({line, "a line of the host's " + path.string()});
        }
    }

    tcp_listener_ = loopback_socket(SOCK_STREAM);
    udp_socket_ = loopback_socket(SOCK_DGRAM);
    abstract_listener_ = checked(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), "socket(AF_UNIX)");
    const auto abstract_name = "e2beval-redteam-" + token_;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    abstract_name.copy(address.sun_path + 1, abstract_name.size());
    const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + abstract_name.size());
    checked(::bind(abstract_listener_, reinterpret_cast<sockaddr*>(&address), length), "bind(@" + abstract_name + ")");
    checked(::listen(abstract_listener_, 64), "listen(@" + abstract_name + ")");

    placeholders_ = {{"CANARY_FILE", canary_file_},
                     {"CANARY_DIR", canary_dir_},
                     {"HOST_PORT", std::to_string(bound_port(tcp_listener_))},
                     {"HOST_UDP_PORT", std::to_string(bound_port(udp_socket_))},
                     {"HOST_ABSTRACT", abstract_name},
                     {"SENTINEL_PID", std::to_string(sentinel_)},
                     {"TOKEN", token_}};
}

RedteamHost::~RedteamHost() {
    if (sentinel_ > 0) {
        ::kill(sentinel_, SIGKILL);
        ::waitpid(sentinel_, nullptr, 0);
    }
    for (const int fd : {tcp_listener_, udp_socket_, abstract_listener_})
        if (fd >= 0) ::close(fd);
    std::error_code ec;
    if (!canary_dir_.empty()) fs::remove_all(canary_dir_, ec);
}

void RedteamHost::start_sentinel() {
    const pid_t parent = ::getpid();
    sentinel_ = ::fork();
    if (sentinel_ < 0) throw sandbox_error(describe_syscall_failure("fork (red-team sentinel)", errno));
    if (sentinel_ == 0) {
        // Only async-signal-safe calls here: the parent may have threads. Dies with the parent.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(0);
        for (;;) ::pause();
    }
    placeholders_["SENTINEL_PID"] = std::to_string(sentinel_);
}

std::size_t RedteamHost::drain_stream_listener(int fd) const {
    std::size_t connections = 0;
    for (;;) {
        const int accepted = ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (accepted < 0) break;
        ++connections;
        ::close(accepted);
    }
    return connections;
}

std::size_t RedteamHost::drain_datagrams() const {
    std::size_t datagrams = 0;
    char buffer[2048];
    while (::recv(udp_socket_, buffer, sizeof buffer, MSG_DONTWAIT) >= 0) ++datagrams;
    return datagrams;
}

void RedteamHost::reset() {
    drain_stream_listener(tcp_listener_);
    drain_stream_listener(abstract_listener_);
    drain_datagrams();
}

std::vector<std::string> RedteamHost::evidence(const ExecResult& result, const std::vector<std::string>& host_files) {
    std::vector<std::string> found;
    const auto output = result.stdout_data + "\n" + result.stderr_data;
    for (const auto& secret : secrets_)
        if (output.find(secret.value) != std::string::npos) found.push_back("printed " + secret.label);

    const auto& port = placeholders_.at("HOST_PORT");
    if (const auto n = drain_stream_listener(tcp_listener_))
        found.push_back(std::to_string(n) + " connection(s) reached the host's collector on 127.0.0.1:" + port);
    if (const auto n = drain_datagrams())
        found.push_back(std::to_string(n) + " datagram(s) reached the host's UDP port 127.0.0.1:" +
                        placeholders_.at("HOST_UDP_PORT"));
    if (const auto n = drain_stream_listener(abstract_listener_))
        found.push_back(std::to_string(n) + " connection(s) reached the host's abstract socket @" +
                        placeholders_.at("HOST_ABSTRACT"));

    int status = 0;
    if (::waitpid(sentinel_, &status, WNOHANG) == sentinel_) {
        found.push_back("killed the host's sentinel process (pid " + std::to_string(sentinel_) + ", " +
                        (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status)) : "exited") + ")");
        start_sentinel();
    }

    for (const auto& path : host_files) {
        std::error_code ec;
        if (fs::exists(fs::symlink_status(path, ec))) {
            found.push_back("created the host file " + path);
            if (path.find(token_) != std::string::npos) fs::remove(path, ec);  // ours: its name holds the run's token
        }
    }
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(canary_dir_, ec)) {
        if (entry.path() == canary_file_) continue;
        found.push_back("created " + entry.path().string() + " in the host's project directory");
        fs::remove_all(entry.path(), ec);
    }
    if (read_text(canary_file_).find(secrets_.front().value) == std::string::npos)
        found.push_back("changed the host's secrets file " + canary_file_);
    return found;
}

std::string RedteamHost::redact(std::string text) const {
    for (const auto& secret : secrets_) {
        const auto replacement = "[host secret: " + secret.label + "]";
        for (auto at = text.find(secret.value); at != std::string::npos; at = text.find(secret.value, at + replacement.size()))
            text.replace(at, secret.value.size(), replacement);
    }
    return text;
}

}  // namespace e2beval::cli
