// The whole public API in one include, for harnesses that would rather not pick headers one by one
// (docs/cpp.md). Each header below is self-contained and may also be included on its own.
#pragma once

#include "e2beval/version.hpp"

// core: the shared value types, errors, text checks and their JSON forms
#include "e2beval/core/error.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/core/text.hpp"
#include "e2beval/core/types.hpp"

// analysis: extracting code from a model's answer and scanning it
#include "e2beval/analysis/extract.hpp"
#include "e2beval/analysis/json.hpp"
#include "e2beval/analysis/safety.hpp"

// the backend interface, and the local backend
#include "e2beval/local/doctor.hpp"
#include "e2beval/local/local_sandbox.hpp"
#include "e2beval/sandbox.hpp"
#include "e2beval/session.hpp"

// eval: tests, verdicts, batches, HumanEval, metrics files, promptfoo `config:` settings
#include "e2beval/eval/assertion_options.hpp"
#include "e2beval/eval/batch.hpp"
#include "e2beval/eval/compare.hpp"
#include "e2beval/eval/humaneval.hpp"
#include "e2beval/eval/json.hpp"
#include "e2beval/eval/metrics.hpp"
#include "e2beval/eval/runner.hpp"

// report: Markdown, HTML, JSON and JUnit reports
#include "e2beval/report/report.hpp"
