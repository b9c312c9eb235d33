// expect-outcome: compile_memory_limit|compile_timeout|compile_error
// compile-limits: {"memory_mb": 256, "wall_time_s": 20}
// why: a template instantiation bomb: each level's type is a pair of the previous one, so names and types double at every step (2^40 at the end); the compile stage's memory and time limits must stop g++, and nothing is left running.
#include <utility>
template <int N, class T> struct Grow {
    using Next = Grow<N - 1, std::pair<T, T>>;
    static constexpr int size = sizeof(typename Next::type);
    using type = typename Next::type;
};
template <class T> struct Grow<0, T> { using type = T; };
int main() { return Grow<40, int>::size > 0 ? 0 : 1; }
