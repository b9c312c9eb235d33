// Waiting on a condition, never on a duration (docs/testing.md, "How tests wait"): the C++ tests' counterpart of
// tests/support/waiting.py. The bound keeps a broken product from hanging the suite; it is never a measurement,
// and a test never asserts that something took less than some time.
#pragma once

#include <chrono>
#include <thread>

namespace e2beval::testing {

// The bound when a test names none: far longer than any of the tests' events take on a loaded 2-core machine.
inline constexpr std::chrono::seconds kPatience{120};

// Checks `condition` until it holds (true) or `bound` has passed (false, with the condition checked once more),
// for CHECK_MESSAGE(until(...), "what did not happen").
template <class Condition>
[[nodiscard]] bool until(Condition condition, std::chrono::milliseconds bound = kPatience) {
    const auto give_up = std::chrono::steady_clock::now() + bound;
    while (!condition()) {
        if (std::chrono::steady_clock::now() >= give_up) return condition();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

}  // namespace e2beval::testing
