// render_svg: a run drawn as a picture. One horizontal lane per client
// process and one per server, time running left to right:
//
//   - critical sections as bars on their process's lane (an owner's nested,
//     reentrant sections are one bar), red when a violation involves them;
//   - the lease of each tracked lock key as a bar on each server's lane,
//     from the command that set it to its deadline or its deletion
//     (kKeyState events);
//   - pauses as grey bands, crashes as a red cross, restarts and ends;
//   - writes judged by a FencedResource as their token in a circle, green
//     when accepted, red when rejected as stale;
//   - every command as an arrow from the process lane to the server lane,
//     at the time the server ran it (the network's latency is not drawn);
//   - the violations' times as red vertical lines, listed under the lanes;
//   - the title (scenario or lock, seed) on top.
//
//   world::SvgOptions o;
//   o.title = "expire-then-delete (get-del), seed 1";
//   o.violations = r.violations;
//   std::ofstream("race.svg") << world::render_svg(r.history, o);
//
// The document is standalone SVG 1.1 (no script, no external resource).
// Elements carry classes and data- attributes so tools and tests can read
// it back: <g class="lane" data-lane="c1"> (or "s0"), rect.critical
// (data-owner, data-resource), rect.lease (data-key), rect.pause,
// path.crash, g.fenced-write (data-token, data-accepted), line.violation,
// line.command.
#pragma once

#include <string>
#include <vector>

#include "sim/world/checkers.h"
#include "sim/world/history.h"

namespace redsim::world {

struct SvgOptions {
  std::string title;                  // drawn on top; say which run and which seed
  std::vector<Violation> violations;  // their events are drawn in red
  int width_px = 1200;                // the whole picture; lanes get what the labels leave
  bool commands = true;               // draw command arrows
};

std::string render_svg(const History& history, const SvgOptions& options = {});

}  // namespace redsim::world
