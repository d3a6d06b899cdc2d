// Proves that concurrent Run calls on one session execute kernels at the same time, rather than
// only being "in flight" between timestamps taken around Run (a session serialized behind one
// mutex passes that check: the callers waiting on the mutex count as running).
//
// The probe is a test-only CPU kernel, op RunProbe of domain prism.test (an identity), that the
// unit test binary registers with the CPU EP. Spliced into a model, it meets the installed
// RunRendezvous: every one of the runs of a round must be inside the probe kernel at once. If
// Run is serialized anywhere around kernel execution, the first run waits in the probe while
// holding that lock, the others can never join it, and the rendezvous gives up after its timeout
// with a verdict saying so; later arrivals then pass straight through, so a broken session fails
// the test in one timeout instead of hanging it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

#include <onnx/onnx_pb.h>

namespace prism::testing {

constexpr const char* kRunProbeDomain = "prism.test";
constexpr const char* kRunProbeOp = "RunProbe";

// A cyclic barrier with a timeout, for `parties` concurrent runs that each reach the probe once
// per round.
class RunRendezvous {
 public:
  RunRendezvous(int parties, std::chrono::milliseconds timeout);

  // Called by the probe kernel: returns once `parties` runs have arrived in this round, or when
  // the timeout passed first (then the rendezvous is broken for good).
  void Arrive();

  // "" while every round filled up in time; otherwise why one did not.
  std::string Verdict() const;
  int64_t CompletedRounds() const;
  // The most runs ever inside the probe kernel at the same time.
  int MostInsideAtOnce() const;

 private:
  const int parties_;
  const std::chrono::milliseconds timeout_;
  mutable std::mutex mutex_;
  std::condition_variable round_done_;
  int waiting_ = 0;  // arrived in the current round
  int most_inside_ = 0;
  int64_t round_ = 0;  // completed rounds
  std::string failure_;
};

// Installs a rendezvous for every RunProbe kernel for its lifetime. Without one the probes pass
// their input through without waiting (serial reference runs need that).
class ScopedRunProbe {
 public:
  explicit ScopedRunProbe(RunRendezvous& rendezvous);
  ~ScopedRunProbe();
  ScopedRunProbe(const ScopedRunProbe&) = delete;
  ScopedRunProbe& operator=(const ScopedRunProbe&) = delete;
};

// The model with a RunProbe node on float value `value` (a graph input or a node output): it is
// placed first or right after the node that produces `value`, and every consumer reads the
// probe's output instead.
onnx::ModelProto WithRunProbe(onnx::ModelProto model, const std::string& value);

}  // namespace prism::testing
