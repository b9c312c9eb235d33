// `e2beval serve`: E2B's API on this machine (src/server/), so the official E2B SDKs run unchanged against
// local sandboxes. This file reads the options, prints how to point an SDK at the server, and runs it.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "cli/command_options.hpp"
#include "cli/commands.hpp"
#include "cli/python_interpreter.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/local/local_sandbox.hpp"
#include "e2beval/local/templates.hpp"
#include "local/cgroup.hpp"
#include "local/local_settings.hpp"
#include "server/auth.hpp"
#include "server/server.hpp"

namespace e2beval::cli {

namespace {

unsigned long whole_number(const ParsedArgs& args, const std::string& name, unsigned long lowest, unsigned long highest,
                           unsigned long fallback) {
    const auto text = args.value(name);
    if (!text) return fallback;
    if (text->empty() || text->find_first_not_of("0123456789") != std::string::npos || text->size() > 9)
        throw usage_error(name + " expects a whole number from " + std::to_string(lowest) + " to " + std::to_string(highest) +
                          ", got '" + *text + "'");
    const auto value = std::stoul(*text);
    if (value < lowest || value > highest)
        throw usage_error(name + " expects a whole number from " + std::to_string(lowest) + " to " + std::to_string(highest) +
                          ", got '" + *text + "'");
    return value;
}

// Every sandbox's CPU cap (a CPU quota on its cgroup): one CPU by default, like the `cpuCount` the server
// reports, so one busy sandbox cannot starve the others or the server. An explicit --cpus the host cannot
// enforce is refused; the default on such a host is no cap, said out loud at start-up.
double sandbox_cpus(const ParsedArgs& args) {
    if (const auto text = args.value("--cpus")) {
        const auto refuse = [&] {
            return usage_error("--cpus expects a number of CPUs from 0.01 to 4096 (0.5 is half of one), or 0 for no cap; got '" +
                               *text + "'");
        };
        double cpus = -1;
        try {
            std::size_t used = 0;
            cpus = std::stod(*text, &used);
            if (used != text->size()) throw refuse();
        } catch (const std::logic_error&) {  // stod's invalid_argument and out_of_range
            throw refuse();
        }
        if (!(cpus >= 0) || cpus > 4096 || (cpus > 0 && cpus < 0.01)) throw refuse();
        Limits limits;
        limits.cpus = cpus;
        local::check_limits_and_environment(limits, {});  // throws when this host cannot set a CPU quota
        return cpus;
    }
    if (local::cgroup_support().cpu_quota) return 1;
    std::cerr << "e2beval serve: warning: this host gives e2beval no cgroup cpu controller, so sandboxes run without "
                 "a CPU cap (see `e2beval doctor`); pass --cpus 0 to accept that without this warning\n";
    return 0;
}

std::string url_host(const std::string& host) {
    if (host == "0.0.0.0") return "127.0.0.1";  // reachable from here; other hosts use this machine's address
    if (host == "::") return "[::1]";
    return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

// The token SandboxFusion's routes require from every client (docs/sandbox-fusion.md): the first line of
// --sandbox-fusion-token-file, else $E2BEVAL_SANDBOX_FUSION_TOKEN; empty: loopback clients only.
std::string sandbox_fusion_token(const ParsedArgs& args) {
    std::string token;
    std::string source;
    if (const auto file = args.value("--sandbox-fusion-token-file")) {
        token = read_file(*file, "--sandbox-fusion-token-file");
        token = token.substr(0, token.find('\n'));
        source = "--sandbox-fusion-token-file " + *file;
    } else if (const char* variable = std::getenv("E2BEVAL_SANDBOX_FUSION_TOKEN"); variable && *variable) {
        token = variable;
        source = "E2BEVAL_SANDBOX_FUSION_TOKEN";
    } else {
        return {};
    }
    while (!token.empty() && (token.back() == '\r' || token.back() == ' ' || token.back() == '\t')) token.pop_back();
    if (token.size() < 16 || token.find_first_of(" \t") != std::string::npos)
        throw usage_error(source + ": the SandboxFusion token must be one word of at least 16 characters "
                                   "(e.g. `openssl rand -hex 32`)");
    return token;
}

// Runs at once by default: two per CPU (docs/sandbox-fusion.md has the measurement): a run mostly waits on its
// sandbox's start, its compiler or its program's I/O, and the CPU quota of each run keeps one from taking more.
unsigned long default_sandbox_fusion_jobs() {
    return std::max(2u, 2 * std::max(1u, std::thread::hardware_concurrency()));
}

int serve_command(const ParsedArgs& args) {
    server::ServerOptions options;
    options.host = args.value("--host").value_or("127.0.0.1");
    options.port = static_cast<std::uint16_t>(whole_number(args, "--port", 0, 65535, 3000));
    options.admission.max_live_sandboxes = whole_number(args, "--max-sandboxes", 1, 10000, 20);
    // Defaults of every sandbox: its lifetime when a create names none (the SDKs always name one, 300 s by
    // default; raw API clients may not), and its memory (the whole sandbox: agent, kernels, commands, tmpfs files).
    options.default_timeout = std::chrono::seconds(whole_number(args, "--default-timeout", 1, 86400, options.default_timeout.count()));
    options.session_defaults.limits.memory_bytes =
        whole_number(args, "--memory-mb", 128, 1 << 20, options.session_defaults.limits.memory_bytes >> 20) << 20;
    options.session_defaults.limits.cpus = sandbox_cpus(args);
    if (args.value("--creation-rate")) options.admission.creations_per_second = *args.number("--creation-rate");
    options.max_body_bytes = whole_number(args, "--max-body-mb", 1, 4096, 100) << 20;
    options.max_connections = whole_number(args, "--max-connections", 1, 100000, options.max_connections);
    // Half the connections by default: one address (a flood, or one busy client) can never take them all.
    options.max_connections_per_address = whole_number(args, "--max-connections-per-address", 1, 100000,
                                                       std::max<unsigned long>(1, options.max_connections / 2));
    const auto tls_cert = args.value("--tls-cert");
    const auto tls_key = args.value("--tls-key");
    if (tls_cert.has_value() != tls_key.has_value())
        throw usage_error("--tls-cert and --tls-key go together: give the certificate (PEM) and its private key (PEM)");
    if (tls_cert && (tls_cert->empty() || tls_key->empty()))
        throw usage_error("--tls-cert and --tls-key expect file names");
    options.tls_certificate_file = tls_cert.value_or("");
    options.tls_private_key_file = tls_key.value_or("");
    options.header_timeout = std::chrono::seconds(whole_number(args, "--header-timeout", 1, 3600, options.header_timeout.count()));
    options.body_timeout = std::chrono::seconds(whole_number(args, "--body-timeout", 1, 86400, options.body_timeout.count()));
    options.idle_timeout = std::chrono::seconds(whole_number(args, "--idle-timeout", 1, 86400, options.idle_timeout.count()));
    if (const auto found = args.repeated.find("--api-key"); found != args.repeated.end()) {
        for (const auto& key : found->second) {
            if (key.empty() || key.find_first_of(" \t\r\n") != std::string::npos)
                throw usage_error("--api-key must be a non-empty word (the SDKs expect the shape e2b_<hex>)");
            options.api_keys.push_back(key);
        }
    }
    // SandboxFusion's API (src/server/sandbox_fusion/, docs/sandbox-fusion.md).
    auto& fusion = options.sandbox_fusion;
    fusion.jobs = whole_number(args, "--sandbox-fusion-jobs", 1, 4096, default_sandbox_fusion_jobs());
    fusion.queue = whole_number(args, "--sandbox-fusion-queue", 0, 1000000, 256);
    fusion.max_timeout_seconds = static_cast<double>(whole_number(args, "--sandbox-fusion-max-timeout", 1, 86400, 300));
    fusion.default_memory_bytes = whole_number(args, "--sandbox-fusion-memory-mb", 16, 1 << 20, 1024) << 20;
    fusion.max_memory_bytes = whole_number(args, "--sandbox-fusion-max-memory-mb", 16, 1 << 20, 4096) << 20;
    if (fusion.default_memory_bytes > fusion.max_memory_bytes)
        throw usage_error("--sandbox-fusion-memory-mb is more than --sandbox-fusion-max-memory-mb");
    fusion.fetch_file_bytes = whole_number(args, "--sandbox-fusion-fetch-file-mb", 1, 4096, 16) << 20;
    fusion.fetch_total_bytes = whole_number(args, "--sandbox-fusion-fetch-total-mb", 1, 4096, 64) << 20;
    fusion.token = sandbox_fusion_token(args);
    const bool generated_key = options.api_keys.empty();
    if (generated_key) options.api_keys.push_back(server::generate_api_key());

    LocalSandboxOptions sandbox_options;
    sandbox_options.python_executable = args.value("--python").value_or("");
    sandbox_options.python_info = require_working_python(chosen_python(args.value("--python")));
    // The warm pool serves one-shot Python runs (SandboxFusion's /run_code); its zygotes start on the first such
    // run, so a server only E2B's SDKs use starts none (sessions start their own agent). One zygote per job, so
    // that every Python run of a full queue is warm.
    sandbox_options.pool.enabled = true;
    sandbox_options.pool.max_zygotes = std::max<std::size_t>(sandbox_options.pool.max_zygotes, fusion.jobs);
    // Sandboxes started ahead of demand, so that a create is a hand-out; each costs an idle agent and Python
    // kernel (docs/serve.md says how much). More than can be alive at once could never all be handed out.
    sandbox_options.ready_sessions = whole_number(args, "--ready-sandboxes", 0, 10000, 1);
    if (*sandbox_options.ready_sessions > options.admission.max_live_sandboxes)
        throw usage_error("--ready-sandboxes " + std::to_string(*sandbox_options.ready_sessions) + " is more than --max-sandboxes " +
                          std::to_string(options.admission.max_live_sandboxes) +
                          ": the extra ones could never be handed out; raise --max-sandboxes or keep fewer ready");
    // E2B's default template, code-interpreter-v1, is E2B's environment: built (or found built) before the server
    // listens, since a build takes minutes and the SDKs give a create 60 s; its sandboxes are the ones kept ready.
    options.bare_code_interpreter = args.flag("--bare-code-interpreter");
    if (!options.bare_code_interpreter) {
        try {
            resolve_template(kCodeInterpreterTemplate, chosen_python(args.value("--python")).interpreter);
        } catch (const sandbox_error& failure) {
            throw sandbox_error(std::string(failure.what()) + "; `e2beval serve --bare-code-interpreter` serves without it (" +
                                kCodeInterpreterTemplate + " is then the bare default environment)");
        }
        options.session_defaults.template_name = kCodeInterpreterTemplate;
    }
    options.make_backend = [sandbox_options](std::shared_ptr<SessionRegistry> registry) mutable -> std::unique_ptr<Sandbox> {
        sandbox_options.sessions = std::move(registry);
        return std::make_unique<LocalSandbox>(sandbox_options);
    };

    server::Server server(options);
    const auto base = std::string(tls_cert ? "https://" : "http://") + url_host(options.host) + ":" + std::to_string(server.port());
    std::cerr << "e2beval serve: E2B's API on " << base
              << " (sandboxes are local e2beval sessions; Ctrl-C stops the server and kills them all)\n"
              << "Point the E2B SDKs at it with:\n";
    std::cout << "export E2B_API_URL=" << base << "\n"
              << "export E2B_SANDBOX_URL=" << base << "\n";
    if (generated_key) std::cout << "export E2B_API_KEY=" << options.api_keys.front() << "\n";
    // The official sandbox-fusion client reads this (verl takes the URL + "/run_code"): docs/sandbox-fusion.md.
    std::cout << "export SANDBOX_FUSION_ENDPOINT=" << base << "\n";
    std::cout.flush();
    server.run();
    std::cerr << "e2beval serve: stopped; every sandbox was killed\n";
    return 0;
}

}  // namespace

Command make_serve_command() {
    return {{"serve", "e2beval serve [OPTIONS]",
             "Serve E2B's API on this machine: the official E2B SDKs run unchanged against local sandboxes.",
             "One HTTP/1.1 listener (HTTPS with --tls-cert/--tls-key) for E2B's control plane (create, list, kill,\n"
             "set_timeout, connect), each sandbox's code interpreter (run_code, contexts) and its envd (commands.run,\n"
             "files); every sandbox is an e2beval session, as isolated as any. Point an SDK at it with the lines it prints:\n"
             "  export E2B_API_URL=http://127.0.0.1:3000 E2B_SANDBOX_URL=http://127.0.0.1:3000 E2B_API_KEY=e2b_...\n"
             "Without --api-key a key is generated and printed. SIGINT/SIGTERM stop the server and kill every sandbox.\n"
             "code-interpreter-v1, the SDKs' default template, is E2B's environment (numpy, pandas, matplotlib, ...): the\n"
             "first start builds it (pip's log is shown; minutes), later starts reuse it; --bare-code-interpreter skips it.\n"
             "SandboxFusion's API (/run_code, /run_jupyter, its dataset API) is served on the same port, to loopback\n"
             "clients unless a token is set: export SANDBOX_FUSION_ENDPOINT as printed (docs/sandbox-fusion.md).\n"
             "What is served and what is not: docs/serve.md.",
             {{"--host", "ADDRESS", "address to listen on (default 127.0.0.1; 0.0.0.0 exposes it to the network)"},
              {"--port", "PORT", "port to listen on (default 3000; 0 picks a free one, printed)"},
              {"--api-key", "KEY", "accept this API key (repeat for several); default: generate one and print it"},
              {"--max-sandboxes", "N", "most sandboxes alive at once; more creations get 429 (default 20)"},
              {"--default-timeout", "SECONDS", "a sandbox's lifetime when its create names none (default 300)"},
              {"--memory-mb", "MB", "memory of each sandbox, its processes and workspace files together (default 1024)"},
              {"--cpus", "N",
               "CPUs' worth of time each sandbox may use at once, a cgroup CPU quota (default 1; 0.5 is half a CPU; 0 no cap)"},
              {"--ready-sandboxes", "N",
               "sandboxes kept started ahead of demand, so a create is a hand-out (default 1; 0 none; at most --max-sandboxes)"},
              {"--creation-rate", "PER_SECOND", "most sandbox creations per second; more get 429 (default 5)"},
              {"--max-body-mb", "MB", "largest request body, e.g. a file upload; larger get 413 (default 100)"},
              {"--max-connections", "N", "most open connections; more are answered 503 and closed (default 256)"},
              {"--max-connections-per-address", "N",
               "most open connections from one client address, 127.0.0.1 included; more are refused (default: half of --max-connections)"},
              {"--tls-cert", "FILE", "serve HTTPS (TLS 1.2+) with this PEM certificate chain; needs --tls-key"},
              {"--tls-key", "FILE", "the PEM private key of --tls-cert"},
              {"--header-timeout", "SECONDS", "a request's line and headers must arrive within this (default 10)"},
              {"--body-timeout", "SECONDS", "a request's body must arrive within this after its headers (default 120)"},
              {"--idle-timeout", "SECONDS", "a kept-alive connection is closed after this long without a request (default 330)"},
              {"--python", "PATH", "Python interpreter the sandboxes run (default: $E2BEVAL_PYTHON, else python3)"},
              {"--sandbox-fusion-jobs", "N",
               "SandboxFusion API: most runs at once (/run_code, /run_jupyter, /submit); default two per CPU"},
              {"--sandbox-fusion-queue", "N",
               "SandboxFusion API: most runs waiting their turn (served round-robin by client); more get 503 (default 256)"},
              {"--sandbox-fusion-max-timeout", "SECONDS",
               "SandboxFusion API: largest compile_timeout, run_timeout or total_timeout a request may ask (default 300)"},
              {"--sandbox-fusion-memory-mb", "MB",
               "SandboxFusion API: memory of a run whose memory_limit_MB is -1 (no limit upstream), 0 or null (default 1024)"},
              {"--sandbox-fusion-max-memory-mb", "MB", "SandboxFusion API: largest memory_limit_MB a request may ask (default 4096)"},
              {"--sandbox-fusion-fetch-file-mb", "MB",
               "SandboxFusion API: largest file fetch_files returns; a larger one is left out, said in `message` (default 16)"},
              {"--sandbox-fusion-fetch-total-mb", "MB",
               "SandboxFusion API: most bytes of fetched files in one response; files past it are left out (default 64)"},
              {"--sandbox-fusion-token-file", "FILE",
               "SandboxFusion API: require 'Authorization: Bearer <the file's first line>' from every client, and serve "
               "other addresses than loopback (default: loopback only; also $E2BEVAL_SANDBOX_FUSION_TOKEN)"},
              {"--bare-code-interpreter", "",
               "serve code-interpreter-v1 (the SDKs' default template) with the bare default environment, as base: nothing is "
               "built or downloaded at start, but E2B's packages (pandas, matplotlib, ...) are missing"}},
             0, 0},
            serve_command};
}

}  // namespace e2beval::cli
