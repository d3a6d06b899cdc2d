#include "compute_evidence.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#include "framework/compute_trace.h"

namespace prism::testing {
namespace {

struct EvidenceState {
  std::mutex mutex;
  std::set<std::string> pending;    // computed, not yet checked against an oracle
  std::set<std::string> confirmed;  // computed, then checked against an oracle
};

EvidenceState& State() {
  static EvidenceState state;
  return state;
}

// The part of the printed line after the unit's name (see compute_evidence.h).
std::string DescribeCompute(const ComputeTraceEvent& event) {
  const KernelDef& def = event.def;
  return event.provider + "\t" + def.domain + "\t" + def.op_type + "\t" +
         std::to_string(event.node.OpsetVersion()) + "\t" + std::to_string(def.since_version) +
         "\t" + std::to_string(def.end_version == INT_MAX ? -1 : def.end_version) + "\t" +
         event.TypeBinding();
}

// The computations of the run in progress on this thread (a run computes on one thread).
thread_local std::vector<std::string> run_computes;

void RecordCompute(const ComputeTraceEvent& event) {
  run_computes.push_back(DescribeCompute(event));
}

// Only a completed run's computations can become evidence.
void RecordRunEnd(bool completed) {
  if (completed) {
    EvidenceState& state = State();
    std::lock_guard<std::mutex> lock(state.mutex);
    state.pending.insert(run_computes.begin(), run_computes.end());
  }
  run_computes.clear();
}

const ComputeTraceHooks evidence_hooks{&RecordCompute, &RecordRunEnd};

// Makes every gtest test a unit of evidence.
class EvidenceListener : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo&) override { BeginEvidenceUnit(); }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    EndEvidenceUnit(std::string(info.test_suite_name()) + "." + info.name(),
                    info.result() != nullptr && info.result()->Passed());
  }
};

bool EnabledByEnvironment() {
  const char* value = std::getenv("PRISM_COMPUTE_EVIDENCE");
  return value != nullptr && std::strcmp(value, "1") == 0;
}

// Installed before main() runs, so that no test's computation is missed. This file is linked
// into every binary whose tests use the oracle comparisons (they call into it).
const bool installed = [] {
  if (!EnabledByEnvironment()) return false;
  SetComputeTraceHooks(&evidence_hooks);
  ::testing::UnitTest::GetInstance()->listeners().Append(new EvidenceListener);
  return true;
}();

}  // namespace

void OracleMatched() {
  EvidenceState& state = State();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.confirmed.merge(state.pending);
  state.pending.clear();  // merge leaves behind what confirmed already held
}

void DropPendingComputes() {
  EvidenceState& state = State();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.pending.clear();
}

void BeginEvidenceUnit() {
  EvidenceState& state = State();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.pending.clear();
  state.confirmed.clear();
}

void EndEvidenceUnit(const std::string& unit, bool passed) {
  EvidenceState& state = State();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (passed && installed) {
    std::string text;
    for (const std::string& line : state.confirmed)
      text += "@@PRISM_COMPUTED\t" + unit + "\t" + line + "\n";
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);  // the conformance runner's children leave with _exit
  }
  state.pending.clear();
  state.confirmed.clear();
}

std::string CompareWithOracle(const Value& expected, const Value& actual, Tolerance tolerance) {
  std::string mismatch = CompareValues(expected, actual, tolerance);
  if (mismatch.empty()) {
    OracleMatched();
  } else {
    DropPendingComputes();
  }
  return mismatch;
}

}  // namespace prism::testing
