// Entry point of the e2beval command-line tool: dispatch to a command, map errors to exit statuses
// with a message that says what was wrong and what to do.
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/python_interpreter.hpp"
#include "e2beval/core/error.hpp"
#include "e2beval/version.hpp"

namespace {

void print_overview() {
    std::cout << "Usage: e2beval COMMAND [OPTIONS] ...\n\n"
                 "Evaluate code written by language models: extract it, scan it, run it in a local sandbox\n"
                 "(Linux namespaces, no network, hard limits) and compare the result with the test.\n\n"
                 "Commands:\n";
    for (const auto& command : e2beval::cli::commands()) {
        std::string name = "  " + command.spec.name;
        name.resize(12, ' ');
        std::cout << name << command.spec.summary << "\n";
    }
    std::cout << "\nRun `e2beval COMMAND --help` for a command's options. `e2beval --version` prints the version.\n";
}

}  // namespace

int main(int argc, char** argv) {
    using namespace e2beval::cli;
    std::vector<std::string> arguments(argv + 1, argv + argc);
    if (arguments.empty() || arguments[0] == "--help" || arguments[0] == "-h" || arguments[0] == "help") {
        print_overview();
        return arguments.empty() ? kExitUsage : 0;
    }
    if (arguments[0] == "--version") {
        std::cout << "e2beval " << e2beval::kVersion << "\n";
        return 0;
    }
    for (const auto& command : commands()) {
        if (command.spec.name != arguments[0]) continue;
        try {
            const auto parsed = parse(command.spec, {arguments.begin() + 1, arguments.end()});
            if (parsed.help) {
                std::cout << render_help(command.spec);
                return 0;
            }
            return command.handler(parsed);
        } catch (const interpreter_error& failure) {
            std::cerr << "e2beval " << command.spec.name << ": " << failure.what() << "\n";
            return failure.exit_status();
        } catch (const usage_error& failure) {
            std::cerr << "e2beval " << command.spec.name << ": " << failure.what() << "\n";
            return kExitUsage;
        } catch (const e2beval::sandbox_error& failure) {
            std::cerr << "e2beval " << command.spec.name << ": " << failure.what() << "\n";
            return failure.code() == e2beval::errc::invalid_input ? kExitUsage : kExitSandbox;
        } catch (const e2beval::error& failure) {
            std::cerr << "e2beval " << command.spec.name << ": " << failure.what() << "\n";
            return kExitUsage;
        } catch (const std::exception& failure) {
            std::cerr << "e2beval " << command.spec.name << ": unexpected error: " << failure.what() << "\n";
            return kExitSandbox;
        }
    }
    std::cerr << "e2beval: unknown command '" << arguments[0] << "'; run `e2beval --help` for the list\n";
    return kExitUsage;
}
