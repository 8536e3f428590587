// The choice points of a world under the exhaustive strategy, and the
// schedule that answers them: what the engine's scheduler asks and logs.
//
//   world::Chooser chooser(world::parse_schedule("3=1,17=2"));
//   uint32_t option = chooser.choose(/*options=*/2, /*tie=*/false);
//   // chooser.points(): every point met, with the option taken
//
// A schedule is the sequence of options taken at a run's choice points, in
// the order they are met; every point past its prefix takes option 0. What
// the choice points are (ties, latency extremes, the fixed fault set) and the
// bounded search over schedules with sleep sets are in
// sim/world/explore/exhaustive.h, above the engine: the engine only answers
// and records choices.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace redsim::world {

// What a latency / fault choice point offers (exhaustive.h, "The order of
// the search": the search repeats a stall at the same process's next point
// of the same kind). It does not change what a run does.
enum class ChoiceKind : uint8_t {
  kOther,      // a tie, or a choice not named below
  kLatency,    // a message's latency extreme
  kCrash,      // a crash at a fault point
  kPause,      // a process pause at a fault point
  kTaskPause,  // a task pause at a fault point
  kReset,      // a connection reset at a command
  kLostReply,  // a lost reply at a command
};

// One choice point met by a run.
struct ChoicePoint {
  uint32_t options = 0;  // >= 2
  uint32_t chosen = 0;   // < options
  bool tie = false;      // a tie (unbounded) or a latency / fault (a deviation when chosen > 0)
  ChoiceKind kind = ChoiceKind::kOther;
  uint32_t owner = 0;  // the process whose event met it (Scheduler owner; 0: none)
  // A tie: the event that ran at the chosen option touched only its own
  // task (exhaustive.h, case 4).
  bool narrow = false;
};

// Answers a world's choice points from a prefix (then option 0) and logs them.
class Chooser {
 public:
  // `narrow[i]`: bit k set when option k of the prefix's i-th point, run
  // there first by a sibling run (same prefix before i), touched only its
  // own task (ChoicePoint::narrow); missing bits: not known, which only
  // reduces less.
  explicit Chooser(std::vector<uint32_t> prefix, std::vector<uint64_t> narrow = {})
      : prefix_(std::move(prefix)), narrow_(std::move(narrow)) {}
  // `options` >= 2; returns the option taken, in [0, options). A prefix entry
  // past `options` (a schedule replayed on another plan) is cut to the last.
  // `kind` and `owner` are only recorded (ChoicePoint).
  uint32_t choose(uint32_t options, bool tie, ChoiceKind kind = ChoiceKind::kOther,
                  uint32_t owner = 0);
  const std::vector<ChoicePoint>& points() const { return points_; }
  bool known_narrow(size_t point, uint32_t option) const {
    return point < narrow_.size() && option < 64 && ((narrow_[point] >> option) & 1) != 0;
  }
  void note_narrow(size_t point, bool narrow) { points_.at(point).narrow = narrow; }
  // The run reached a tie whose events were all asleep: it is redundant.
  void prune() { pruned_ = true; }
  bool pruned() const { return pruned_; }

 private:
  std::vector<uint32_t> prefix_;
  std::vector<uint64_t> narrow_;
  std::vector<ChoicePoint> points_;
  bool pruned_ = false;
};

// "3=1,17=2" for the non-zero options of `choices` (position=option), "" when
// all are 0; a position whose `narrow` mask (Chooser) has a bit below its
// option carries those bits after a slash, "17=2/1", since the sleep sets
// of a replay depend on them. And back (throws std::invalid_argument on
// malformed text); `narrow`, when given, receives the masks (sized like the
// result).
std::string format_schedule(const std::vector<uint32_t>& choices,
                            const std::vector<uint64_t>& narrow = {});
std::vector<uint32_t> parse_schedule(const std::string& text,
                                     std::vector<uint64_t>* narrow = nullptr);

}  // namespace redsim::world
