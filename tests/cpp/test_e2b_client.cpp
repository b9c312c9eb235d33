// The E2B client against a real `e2beval serve` over TLS, with a CA and certificates made here by the
// openssl CLI: every call of E2bApi, the one-shot backend (outcomes, cancellation, nothing left behind), a
// wrong CA and a wrong host name refused with a clear error, and the API key in no error.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <map>
#include <optional>
#include <string>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json.hpp>

#include "e2b/e2b_api.hpp"
#include "e2b/http_client.hpp"
#include "e2beval/e2b/e2b_sandbox.hpp"
#include "temporary_directory.hpp"

extern char** environ;  // the process's environment (unistd.h declares it only with _GNU_SOURCE)

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_e2b_client {

namespace {

namespace asio = boost::asio;
using namespace e2beval;
using namespace e2beval::e2b;

std::filesystem::path serve_binary() {
    if (const char* given = std::getenv("E2BEVAL_SERVE_BINARY"); given && *given) return given;
    return std::filesystem::read_symlink("/proc/self/exe").parent_path() / "e2beval";
}

void openssl(const std::filesystem::path& directory, const std::string& arguments) {
    const auto command = "cd '" + directory.string() + "' && openssl " + arguments + " >/dev/null 2>&1";
    REQUIRE_MESSAGE(std::system(command.c_str()) == 0, "openssl failed: " << arguments);
}

// One server for the whole file: a CA, a server certificate for `localhost` only (so 127.0.0.1 is a wrong
// host name), another CA that signed nothing here.
struct TlsServe {
    testing::TemporaryDirectory directory;
    pid_t pid = -1;
    std::string port;
    std::string key = "e2b_0123456789abcdef0123456789abcdef01234567";

    TlsServe() {
        const auto& d = directory.path;
        openssl(d, "req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj '/CN=e2beval client test CA'");
        openssl(d, "req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj '/CN=localhost'");
        std::ofstream(d / "server.ext") << "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n"
                                           "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n";
        openssl(d, "x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile server.ext");
        openssl(d, "req -x509 -newkey rsa:2048 -nodes -keyout other.key -out other.pem -days 2 -subj '/CN=another CA'");

        int out[2];
        REQUIRE(::pipe(out) == 0);
        const auto binary = serve_binary().string();
        const auto cert = (d / "server.pem").string(), private_key = (d / "server.key").string();
        // --bare-code-interpreter: these tests are about the client, and scripts/test.sh runs them while it builds the
        // template code-interpreter-v1 in the background (a server's start would wait for that build).
        std::vector<std::string> argv_text = {binary, "serve", "--port", "0", "--api-key", key, "--max-sandboxes", "8",
                                              "--creation-rate", "50", "--ready-sandboxes", "0", "--tls-cert", cert, "--tls-key", private_key,
                                              "--bare-code-interpreter"};
        std::vector<char*> argv;
        for (auto& argument : argv_text) argv.push_back(argument.data());
        argv.push_back(nullptr);
        // fork + exec rather than posix_spawn: the server must end with this process even when it crashes
        // (PR_SET_PDEATHSIG), or it would hold ctest's output pipe open and ctest would wait forever.
        const pid_t parent = ::getpid();
        pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            ::prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (::getppid() != parent) ::_exit(127);
            ::dup2(out[1], 1);
            ::close(out[0]);
            ::close(out[1]);
            ::execve(binary.c_str(), argv.data(), environ);
            ::_exit(127);
        }
        ::close(out[1]);
        FILE* lines = ::fdopen(out[0], "r");
        char line[512];
        while (port.empty() && std::fgets(line, sizeof line, lines)) {
            const std::string text(line);
            const auto at = text.find("E2B_API_URL=https://127.0.0.1:");
            if (at != std::string::npos) port = text.substr(at + 30, text.find_first_of("\r\n", at) - at - 30);
        }
        std::fclose(lines);  // serve writes nothing more to stdout
        REQUIRE_MESSAGE(!port.empty(), "e2beval serve printed no https export line");
    }
    ~TlsServe() {
        ::kill(pid, SIGTERM);
        int status = 0;
        ::waitpid(pid, &status, 0);
    }

    std::string url(const std::string& host = "localhost") const { return "https://" + host + ":" + port; }
    E2bSettings settings(const std::string& host = "localhost") const {
        E2bSettings settings;
        settings.api_key = key;
        settings.api_url = url(host);
        settings.sandbox_url = url(host);
        settings.ca_file = (directory.path / "ca.pem").string();
        settings.creation_rate = 50;
        settings.max_sandboxes = 4;
        return settings;
    }
};

TlsServe& serve() {
    static TlsServe server;
    return server;
}

// Runs one coroutine on a fresh io_context with a client and an API over `settings`.
template <typename Work>
auto run(const E2bSettings& settings, Work work) {
    asio::io_context io;
    ClientSettings client_settings;
    client_settings.ca_file = settings.ca_file;
    client_settings.retry.base_delay = std::chrono::milliseconds(20);
    HttpClient client(io.get_executor(), client_settings);
    E2bApi api(client, settings);
    auto future = asio::co_spawn(io, work(api), asio::use_future);
    io.run();
    return future.get();
}

asio::awaitable<std::size_t> count_sandboxes(E2bApi& api) { co_return (co_await api.list()).size(); }

// This process's threads (docs/architecture.md lists each the library starts).
std::size_t threads_of_this_process() {
    return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator("/proc/self/task"), {}));
}

std::size_t sandboxes_left() { return run(serve().settings(), count_sandboxes); }

asio::awaitable<bool> list_once(E2bApi& api) {
    co_await api.list();
    co_return true;
}

asio::awaitable<std::string> cell(E2bApi& api, const RemoteSandbox& sandbox, const std::string& context_id, const std::string& code) {
    std::string text;
    const std::map<std::string, std::string> no_envs;
    co_await api.execute(sandbox, code, context_id, std::nullopt, no_envs, std::chrono::seconds(30), [&](const boost::json::object& event) {
        const auto* type = event.if_contains("type");
        if (!type || !type->is_string()) return;
        if (type->as_string() == "result" && event.contains("text")) text += std::string(event.at("text").as_string());
        if (type->as_string() == "stdout") text += std::string(event.at("text").as_string());
        if (type->as_string() == "error") text += "error:" + std::string(event.at("name").as_string());
    });
    co_return text;
}

}  // namespace

asio::awaitable<std::map<std::string, std::string>> every_call(E2bApi& api) {
    std::map<std::string, std::string> seen;
    CreateSandbox request;
    request.template_id = "code-interpreter-v1";
    request.timeout = std::chrono::seconds(60);
    request.metadata = {{"suite", "client"}};
    request.envs = {{"GREETING", "hello"}};
    auto sandbox = co_await api.create(request);
    seen["id"] = sandbox.id;
    seen["token"] = sandbox.envd_access_token.empty() ? "no" : "yes";
    const auto detail = co_await api.get(sandbox.id);
    seen["get"] = std::string(detail.at("sandboxID").as_string());
    // Braced lists inside a co_await expression trip GCC 12 ("array used as initializer"): named first.
    const std::map<std::string, std::string> ours{{"suite", "client"}}, nobodys{{"suite", "none"}};
    seen["listed"] = std::to_string((co_await api.list(ours)).size());
    seen["listed other"] = std::to_string((co_await api.list(nobodys)).size());
    co_await api.set_timeout(sandbox.id, std::chrono::seconds(90));
    const auto connected = co_await api.connect(sandbox.id, std::chrono::seconds(90));
    seen["connect"] = connected.id;
    co_await api.health(sandbox);

    ProcessSpec spec{"/bin/bash", {"-c", "echo \"$GREETING out\"; echo err >&2; exit 3"}, {}, ""};
    std::string out, err;
    int exit_code = -1;
    co_await api.run_process(sandbox, spec, std::chrono::seconds(30), [&](const ProcessEvent& event) {
        if (event.kind == ProcessEvent::Kind::stdout_data) out += event.data;
        if (event.kind == ProcessEvent::Kind::stderr_data) err += event.data;
        if (event.kind == ProcessEvent::Kind::end) exit_code = event.exit_code;
        return true;
    });
    seen["process"] = out + "|" + err + "|" + std::to_string(exit_code);

    // A process left running (the caller stops following it), then killed by its pid.
    int pid = 0;
    const ProcessSpec sleeper{"/bin/bash", {"-c", "sleep 60"}, {}, ""};
    co_await api.run_process(sandbox, sleeper, std::chrono::seconds(70),
                             [&](const ProcessEvent& event) {
                                 if (event.kind == ProcessEvent::Kind::start) pid = event.pid;
                                 return event.kind != ProcessEvent::Kind::start;
                             });
    seen["pid"] = pid > 0 ? "yes" : "no";
    co_await api.send_signal(sandbox, pid, 9);

    co_await api.write_file(sandbox, "/home/user/data.txt", std::string("bytes\0and more", 14));
    seen["file"] = std::to_string((co_await api.read_file(sandbox, "/home/user/data.txt")).size());

    const auto context = co_await api.create_context(sandbox, "python");
    const auto context_id = std::string(context.at("id").as_string());
    co_await cell(api, sandbox, context_id, "x = 41");
    seen["cell"] = co_await cell(api, sandbox, context_id, "x + 1");
    seen["cell error"] = co_await cell(api, sandbox, context_id, "1 / 0");
    seen["contexts"] = std::to_string((co_await api.list_contexts(sandbox)).size());
    co_await api.restart_context(sandbox, context_id);
    seen["after restart"] = co_await cell(api, sandbox, context_id, "'x' in globals()");
    co_await api.delete_context(sandbox, context_id);
    // The default context, by language.
    std::string js;
    const std::map<std::string, std::string> no_envs;
    const std::optional<std::string> javascript = "javascript";
    co_await api.execute(sandbox, "console.log(6 * 7)", std::nullopt, javascript, no_envs, std::chrono::seconds(30),
                         [&](const boost::json::object& event) {
                             if (event.at("type").as_string() == "stdout") js += std::string(event.at("text").as_string());
                         });
    seen["javascript"] = js;

    seen["kill"] = (co_await api.kill(sandbox.id)) ? "true" : "false";
    seen["kill again"] = (co_await api.kill(sandbox.id)) ? "true" : "false";
    try {
        co_await api.get(sandbox.id);
        seen["get after kill"] = "found";
    } catch (const ApiError& failure) {
        seen["get after kill"] = std::to_string(failure.status());
    }
    try {
        co_await api.health(sandbox);
        seen["health after kill"] = "alive";
    } catch (const ApiError& failure) {
        seen["health after kill"] = failure.sandbox_gone() ? "gone" : std::to_string(failure.status());
    }
    co_return seen;
}

TEST_CASE("e2b client: every call against e2beval serve over TLS") {
    const auto settings = serve().settings();
    const auto seen = run(settings, every_call);
    CHECK(seen.at("token") == "yes");
    CHECK(seen.at("get") == seen.at("id"));
    CHECK(seen.at("listed") == "1");
    CHECK(seen.at("listed other") == "0");
    CHECK(seen.at("connect") == seen.at("id"));
    CHECK(seen.at("process") == "hello out\n|err\n|3");
    CHECK(seen.at("pid") == "yes");
    CHECK(seen.at("file") == "14");
    CHECK(seen.at("cell") == "42");
    CHECK(seen.at("cell error") == "error:ZeroDivisionError");
    CHECK(seen.at("contexts") != "0");
    CHECK(seen.at("after restart") == "False");
    CHECK(seen.at("javascript") == "42\n");
    CHECK(seen.at("kill") == "true");
    CHECK(seen.at("kill again") == "false");
    CHECK(seen.at("get after kill") == "404");
    CHECK(seen.at("health after kill") == "gone");
    CHECK(sandboxes_left() == 0);
}

TEST_CASE("e2b client: a wrong CA, a wrong host name and a wrong key are refused clearly, the key in no message") {
    auto wrong_ca = serve().settings();
    wrong_ca.ca_file = (serve().directory.path / "other.pem").string();
    const auto failure_of = [](const E2bSettings& settings) {
        try {
            run(settings, list_once);
        } catch (const CallError& failure) {
            return std::make_pair(failure.stage(), std::string(failure.what()));
        } catch (const ApiError& failure) {
            return std::make_pair(CallError::Stage::protocol, std::string(failure.what()));
        }
        return std::make_pair(CallError::Stage::protocol, std::string("no failure"));
    };
    const auto [ca_stage, ca_message] = failure_of(wrong_ca);
    CHECK(ca_stage == CallError::Stage::certificate);
    CHECK(ca_message.find("not trusted") != std::string::npos);
    CHECK(ca_message.find("list sandboxes") != std::string::npos);
    CHECK(ca_message.find("attempts") == std::string::npos);  // a certificate is never retried

    const auto [host_stage, host_message] = failure_of(serve().settings("127.0.0.1"));
    CHECK(host_stage == CallError::Stage::certificate);
    CHECK(host_message.find("does not name 127.0.0.1") != std::string::npos);

    auto wrong_key = serve().settings();
    wrong_key.api_key = "e2b_ffffffffffffffffffffffffffffffffffffffff";
    const auto [key_stage, key_message] = failure_of(wrong_key);
    CHECK(key_message.find("HTTP 401") != std::string::npos);
    CHECK(key_message.find("check E2B_API_KEY") != std::string::npos);
    CHECK(key_message.find(wrong_key.api_key) == std::string::npos);
    CHECK(key_message.find(serve().key) == std::string::npos);

    // Through the backend: the failure is the result's detail, without the key.
    E2bSandbox backend(wrong_key);
    ExecRequest request;
    request.code = "print(1)";
    std::string detail;
    try {
        detail = backend.execute(request).detail;
    } catch (const e2beval::error& failure) {
        detail = failure.what();
    }
    CHECK(detail.find("HTTP 401") != std::string::npos);
    CHECK(detail.find(wrong_key.api_key) == std::string::npos);
}

TEST_CASE("e2b backend: one-shot executions have the local backend's shape, and nothing is left behind") {
    serve();  // a process of its own: none of its threads are counted below
    const auto threads_before = threads_of_this_process();
    {
        E2bSandbox backend(serve().settings());
        CHECK(backend.backend() == "e2b");
        ExecRequest hello;
        hello.code = "import sys\nprint(input() + '!')\nprint('warn', file=sys.stderr)\n";
        hello.stdin_data = "hi\n";
        const auto ok = backend.execute(hello);
        // The engine's thread, and Asio's resolver thread since its first connection resolved `localhost`
        // (docs/architecture.md, the rows of src/e2b/engine.cpp and src/e2b/http_client.cpp): none per execution.
        CHECK(threads_of_this_process() == threads_before + 2);
        CHECK(ok.outcome == Outcome::ok);
        CHECK(ok.exit_code == 0);
        CHECK(ok.stdout_data == "hi!\n");
        CHECK(ok.stderr_data == "warn\n");
        CHECK(ok.backend == "e2b");

        ExecRequest failing;
        failing.code = "raise SystemExit(4)";
        const auto failed = backend.execute(failing);
        CHECK(failed.outcome == Outcome::exit_nonzero);
        CHECK(failed.exit_code == 4);

        ExecRequest killed;
        killed.code = "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)";
        const auto signaled = backend.execute(killed);
        CHECK(signaled.outcome == Outcome::signaled);
        CHECK(signaled.signal == SIGSEGV);

        ExecRequest slow;
        slow.code = "import time\ntime.sleep(30)";
        slow.limits.wall_time = std::chrono::milliseconds(1500);
        const auto timed_out = backend.execute(slow);
        CHECK(timed_out.outcome == Outcome::timeout);
        CHECK(timed_out.detail == "killed after the 1.5 s wall-clock limit");

        ExecRequest loud;
        loud.code = "print('x' * 5000)";
        loud.limits.output_bytes = 1000;
        const auto capped = backend.execute(loud);
        CHECK(capped.outcome == Outcome::output_limit);
        CHECK(capped.stdout_data.size() == 1000);

        ExecRequest javascript;
        javascript.language = Language::javascript;
        javascript.code = "console.log([1, 2, 3].map(x => x * 2).join(','))";
        CHECK(backend.execute(javascript).stdout_data == "2,4,6\n");
        ExecRequest bash;
        bash.language = Language::bash;
        bash.code = "echo \"$NAME\"; exit 7";
        bash.env = {{"NAME", "from env"}};
        const auto bash_result = backend.execute(bash);
        CHECK(bash_result.stdout_data == "from env\n");
        CHECK(bash_result.exit_code == 7);

        // Cancellation: the execution completes with operation_aborted and outcome cancelled.
        asio::io_context io;
        asio::cancellation_signal cancel;
        std::optional<std::pair<boost::system::error_code, ExecResult>> completion;
        // The backend was made without an executor: the handler brings its own (io's).
        backend.async_execute(slow, asio::bind_cancellation_slot(cancel.slot(), asio::bind_executor(io, [&](boost::system::error_code ec, ExecResult result) {
                                  completion.emplace(ec, std::move(result));
                              })));
        asio::steady_timer soon(io, std::chrono::milliseconds(800));
        soon.async_wait([&](boost::system::error_code) { cancel.emit(asio::cancellation_type::terminal); });
        io.run();
        REQUIRE(completion);
        CHECK(completion->first == asio::error::operation_aborted);
        CHECK(completion->second.outcome == Outcome::cancelled);
        CHECK(completion->second.backend == "e2b");

        const auto counters = backend.counters();
        CHECK(counters.sandboxes_created >= 1);
        CHECK(counters.requests >= 9);
        CHECK(threads_of_this_process() == threads_before + 2);
    }
    CHECK(threads_of_this_process() == threads_before);  // both joined when the backend ends
    CHECK(sandboxes_left() == 0);
}

namespace {
std::string text_field(const boost::json::object& event, const char* key) {
    const auto* value = event.if_contains(key);
    return value && value->is_string() ? std::string(value->as_string()) : std::string();
}
}  // namespace

TEST_CASE("e2b backend: a session is one remote sandbox speaking the session protocol, killed with kill()") {
    {
        E2bSandbox backend(serve().settings());
        SessionOptions options;
        options.metadata = {{"suite", "cpp"}};
        auto session = backend.create_session(options);
        CHECK(backend.find_session(session->id()) == session);
        CHECK(sandboxes_left() == 1);
        CHECK(session->info().metadata.at("suite") == "cpp");

        CHECK(session->run_code("x = 6").error == std::nullopt);
        CHECK(session->run_code("x * 7").text() == "42");
        const auto output = session->run_command("echo out; echo err >&2; exit 2");
        CHECK(output.stdout_data == "out\n");
        CHECK(output.stderr_data == "err\n");
        CHECK(output.exit_code == 2);
        CHECK(output.error == "exit status 2");
        session->write_file("/home/user/data.bin", std::string("a\0b", 3));
        CHECK(session->read_file("/home/user/data.bin") == std::string("a\0b", 3));

        // An op E2B refuses comes back as the protocol's failure, not an exception.
        const auto missing = session->call({{"op", "files_read"}, {"path", "/home/user/none"}});
        CHECK(text_field(missing, "type") == "failure");
        CHECK(text_field(missing, "kind") == "not_found");
        const auto unknown = session->call({{"op", "no_such_op"}});
        CHECK(text_field(unknown, "kind") == "invalid");

        session->kill();
        session->kill();  // idempotent
        CHECK_FALSE(session->alive());
        CHECK(sandboxes_left() == 0);
        try {
            session->call({{"op", "ping"}});
            FAIL("a killed session answered");
        } catch (const sandbox_error& closed) {
            CHECK(closed.code() == errc::session_closed);
        }
    }
    CHECK(sandboxes_left() == 0);
}

}  // namespace e2beval_test_e2b_client
