// The one translation unit that provides doctest's main for every C++ test file.
// Each tests/cpp/test_*.cpp only includes doctest and registers its cases.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
