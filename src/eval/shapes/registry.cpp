// The test shapes, in the order TestSpec::from_vars asks them whether the vars are theirs: function calls (the
// tutorial's) first, then HumanEval, asserts, stdin/stdout cases, and testCode / expectedOutput last (its
// expectedOutput alone is also the tutorial's single case with test_input). A new shape: its file, and a line
// in each list below.
#include <array>
#include <stdexcept>

#include "eval/shapes/shape.hpp"

namespace e2beval::shapes {

const Shape& function_calls_shape();
const Shape& humaneval_shape();
const Shape& asserts_shape();
const Shape& stdio_shape();
const Shape& test_code_shape();

std::span<const Shape* const> all() {
    static const std::array<const Shape*, 5> shapes = {
        &function_calls_shape(), &humaneval_shape(), &asserts_shape(), &stdio_shape(), &test_code_shape(),
    };
    return shapes;
}

const Shape& of(TestShape shape) {
    for (const auto* handler : all())
        if (handler->id() == shape) return *handler;
    throw std::logic_error("no handler is registered for a test shape (src/eval/shapes/registry.cpp)");
}

}  // namespace e2beval::shapes
