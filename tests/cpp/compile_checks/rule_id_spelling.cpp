// Compiled (never linked) by two ctest tests (CMakeLists.txt): with E2BEVAL_MISSPELL_RULE_ID the build must fail
// at RuleId's compile-time lookup, without it the same code must compile. A misspelled rule id used to drop its
// findings silently at run time; now it cannot be built.
#include "analysis/scan_support.hpp"

void report_one(e2beval::detail::FindingSink& sink) {
#ifdef E2BEVAL_MISSPELL_RULE_ID
    sink.add("os-sytem", 1, 1, "a misspelled rule id");
#else
    sink.add("os-system", 1, 1, "a rule id in the catalog");
#endif
}
