#include "sim/world/timeline_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

namespace redsim::world {

namespace {

constexpr int kLabelWidth = 170;  // left margin for lane names
constexpr int kRightMargin = 20;
constexpr int kTop = 64;  // title and time axis
constexpr int kLaneHeight = 44;
constexpr int kBarHeight = 16;
constexpr const char* kPalette[] = {"#4e79a7", "#59a14f", "#f28e2b", "#b07aa1",
                                    "#76b7b2", "#edc948", "#9c755f", "#bab0ac"};
constexpr const char* kRed = "#d62728";

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        // Control bytes are not allowed in XML 1.0 text.
        out += static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' ? '?' : c;
    }
  }
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

const char* color_of(ProcessId pid) {
  return kPalette[(pid == 0 ? 0 : pid - 1) % (sizeof kPalette / sizeof kPalette[0])];
}

// A "nice" tick step (1, 2 or 5 times a power of ten, in us) giving about
// `want` ticks over `span_us`.
int64_t tick_step(int64_t span_us, int want) {
  const double raw = static_cast<double>(std::max<int64_t>(span_us, 1)) / want;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= raw) return std::max<int64_t>(1, static_cast<int64_t>(m * p));
  }
  return static_cast<int64_t>(10 * p);
}

// A tick label: "0", "20 ms", "1.5 s".
std::string tick_label(int64_t t_us) {
  char buf[32];
  if (t_us == 0) return "0";
  if (t_us % 1000000 == 0 || t_us >= 10000000) {
    std::snprintf(buf, sizeof buf, "%g s", static_cast<double>(t_us) / 1e6);
  } else if (t_us % 1000 == 0 || t_us >= 10000) {
    std::snprintf(buf, sizeof buf, "%g ms", static_cast<double>(t_us) / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%lld us", static_cast<long long>(t_us));
  }
  return buf;
}

struct Bar {
  int64_t from_us = 0;
  int64_t to_us = 0;
  ProcessId owner = 0;
  TaskId task = 0;
  std::string resource;  // critical sections: the resource; leases: the key
  bool red = false;
};

class Canvas {
 public:
  Canvas(const History& h, const SvgOptions& o) {
    end_us_ = std::max<int64_t>(h.end_us(), 1);
    plot_width_ = std::max(200, o.width_px - kLabelWidth - kRightMargin);
    for (const Violation& v : o.violations) red_events_.insert(v.events.begin(), v.events.end());
  }

  double x(int64_t t_us) const {
    const double f = static_cast<double>(std::clamp<int64_t>(t_us, 0, end_us_)) / end_us_;
    return kLabelWidth + f * plot_width_;
  }
  double lane_mid(size_t lane) const { return kTop + kLaneHeight * (lane + 0.5); }
  bool is_red(size_t event) const { return red_events_.contains(event); }
  int64_t end_us() const { return end_us_; }
  int plot_width() const { return plot_width_; }

 private:
  int64_t end_us_ = 1;
  int plot_width_ = 0;
  std::set<size_t> red_events_;
};

void rect(std::string& out, const char* cls, double x0, double x1, double mid, double height,
          const std::string& fill, const std::string& attrs, const std::string& tip) {
  out += "<rect class=\"";
  out += cls;
  out += "\" x=\"" + num(x0) + "\" y=\"" + num(mid - height / 2) + "\" width=\"" +
         num(std::max(1.0, x1 - x0)) + "\" height=\"" + num(height) + "\" fill=\"" + fill + "\"" +
         attrs + "><title>" + escape(tip) + "</title></rect>\n";
}

}  // namespace

std::string render_svg(const History& history, const SvgOptions& options) {
  const Canvas c(history, options);
  const auto& events = history.events();

  // Lanes: processes in id order, then servers.
  std::map<ProcessId, std::string> processes;
  size_t servers = history.server_count();
  for (const HistoryEvent& e : events) {
    if (e.process != 0 && !processes.contains(e.process)) {
      processes[e.process] = history.process_name(e.process);
    }
    if (e.server >= 0) servers = std::max(servers, static_cast<size_t>(e.server) + 1);
  }
  std::map<ProcessId, size_t> lane_of;
  for (const auto& [pid, name] : processes) lane_of[pid] = lane_of.size();
  auto server_lane = [&](int32_t s) { return processes.size() + static_cast<size_t>(s); };
  const size_t lanes = processes.size() + servers;

  // Critical sections: an owner's nested sections are one bar, from the
  // first enter to the matching leave (or its process's crash or end).
  std::vector<Bar> sections;
  struct Open {
    size_t depth = 0;
    size_t first_event = 0;
    bool red = false;
  };
  std::map<std::tuple<ProcessId, TaskId, std::string>, Open> open;
  auto close_section = [&](const std::tuple<ProcessId, TaskId, std::string>& k, Open& o,
                           int64_t t) {
    sections.push_back(
        Bar{events[o.first_event].t_us, t, std::get<0>(k), std::get<1>(k), std::get<2>(k), o.red});
  };
  // Pauses, crashes and other marks on process lanes.
  std::vector<std::tuple<ProcessId, int64_t, int64_t>> pause_bands;
  std::map<ProcessId, int64_t> pause_start;
  // Leases per (server, key), coloured by the process whose command set them.
  std::vector<std::pair<int32_t, Bar>> leases;
  std::map<std::pair<int32_t, std::string>, std::pair<Bar, int64_t>> open_lease;  // bar, deadline
  std::map<int32_t, ProcessId> last_commander;
  std::map<int32_t, TaskId> last_task;
  // A key deleted by another process than the one that set it, while live:
  // (server, time, deleter, owner, key).
  std::vector<std::tuple<int32_t, int64_t, ProcessId, ProcessId, std::string>> foreign_deletes;

  for (size_t i = 0; i < events.size(); ++i) {
    const HistoryEvent& e = events[i];
    switch (e.kind) {
      case EventKind::kEnterCritical: {
        Open& o = open[{e.process, e.task, e.resource}];
        if (o.depth++ == 0) {
          o.first_event = i;
          o.red = false;
        }
        o.red = o.red || c.is_red(i);
        break;
      }
      case EventKind::kLeaveCritical: {
        auto it = open.find({e.process, e.task, e.resource});
        if (it == open.end() || it->second.depth == 0) break;
        it->second.red = it->second.red || c.is_red(i);
        if (--it->second.depth == 0) close_section(it->first, it->second, e.t_us);
        break;
      }
      case EventKind::kProcessCrash:
      case EventKind::kProcessEnd:
        for (auto& [k, o] : open) {
          if (std::get<0>(k) == e.process && o.depth > 0) {
            close_section(k, o, e.t_us);
            o.depth = 0;
          }
        }
        if (pause_start.contains(e.process)) {
          pause_bands.emplace_back(e.process, pause_start[e.process], e.t_us);
          pause_start.erase(e.process);
        }
        break;
      case EventKind::kProcessPause:
        if (!pause_start.contains(e.process)) pause_start[e.process] = e.t_us;
        break;
      case EventKind::kProcessResume:
        if (pause_start.contains(e.process)) {
          pause_bands.emplace_back(e.process, pause_start[e.process], e.t_us);
          pause_start.erase(e.process);
        }
        break;
      case EventKind::kCommand:
        if (e.server >= 0) {
          last_commander[e.server] = e.process;
          last_task[e.server] = e.task;
        }
        break;
      case EventKind::kKeyState: {
        const auto k = std::make_pair(e.server, e.resource);
        auto it = open_lease.find(k);
        if (it != open_lease.end()) {
          const int64_t deadline = it->second.second;
          Bar b = it->second.first;
          b.to_us = deadline >= 0 ? std::min(deadline, e.t_us) : e.t_us;
          const ProcessId by = last_commander.contains(e.server) ? last_commander[e.server] : 0;
          if (e.key_state == KeyPresence::kAbsent && (deadline < 0 || e.t_us <= deadline) &&
              by != 0 && b.owner != 0 && by != b.owner) {
            foreign_deletes.emplace_back(e.server, e.t_us, by, b.owner, e.resource);
          }
          leases.emplace_back(e.server, b);
          open_lease.erase(it);
        }
        if (e.key_state != KeyPresence::kAbsent) {
          Bar b;
          b.from_us = e.t_us;
          b.owner = last_commander.contains(e.server) ? last_commander[e.server] : 0;
          b.task = last_task.contains(e.server) ? last_task[e.server] : 0;
          b.resource = e.resource;
          open_lease[k] = {b, e.key_state == KeyPresence::kLease ? e.value : -1};
        }
        break;
      }
      default:
        break;
    }
  }
  for (auto& [k, o] : open) {
    if (o.depth > 0) close_section(k, o, c.end_us());
  }
  for (const auto& [pid, t0] : pause_start) pause_bands.emplace_back(pid, t0, c.end_us());
  for (auto& [k, v] : open_lease) {
    Bar b = v.first;
    b.to_us = v.second >= 0 ? std::min(v.second, c.end_us()) : c.end_us();
    leases.emplace_back(k.first, b);
  }

  const double height = kTop + kLaneHeight * static_cast<double>(lanes) + 40 +
                        22.0 * static_cast<double>(options.violations.size());
  std::string out;
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" +
         std::to_string(options.width_px) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " +
         std::to_string(options.width_px) + " " + num(height) +
         "\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">\n";
  out += "<title>" + escape(options.title) + "</title>\n";
  out += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out += "<text class=\"title\" x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">" +
         escape(options.title) + "</text>\n";

  // Time axis.
  const int64_t step = tick_step(c.end_us(), 10);
  out += "<g class=\"axis\" stroke=\"#ccc\">\n";
  for (int64_t t = 0; t <= c.end_us(); t += step) {
    out += "<line x1=\"" + num(c.x(t)) + "\" y1=\"" + num(kTop - 8) + "\" x2=\"" + num(c.x(t)) +
           "\" y2=\"" + num(kTop + kLaneHeight * static_cast<double>(lanes)) + "\"/>\n";
    out += "<text x=\"" + num(c.x(t)) + "\" y=\"" + num(kTop - 12) +
           "\" stroke=\"none\" fill=\"#555\" text-anchor=\"middle\" font-size=\"10\">" +
           escape(tick_label(t)) + "</text>\n";
  }
  out += "</g>\n";

  // Lanes with their labels.
  auto lane_open = [&](size_t lane, const std::string& id, const std::string& label) {
    out += "<g class=\"lane\" data-lane=\"" + escape(id) + "\">\n";
    out += "<line x1=\"" + num(kLabelWidth) + "\" y1=\"" + num(c.lane_mid(lane)) + "\" x2=\"" +
           num(kLabelWidth + c.plot_width()) + "\" y2=\"" + num(c.lane_mid(lane)) +
           "\" stroke=\"#888\" stroke-dasharray=\"2,3\"/>\n";
    out += "<text class=\"label\" x=\"8\" y=\"" + num(c.lane_mid(lane) + 4) + "\">" +
           escape(label) + "</text>\n";
  };
  for (const auto& [pid, name] : processes) {
    const size_t lane = lane_of[pid];
    lane_open(lane, "c" + std::to_string(pid),
              "c" + std::to_string(pid) + (name.empty() ? "" : " " + name));
    for (const auto& [p, t0, t1] : pause_bands) {
      if (p != pid) continue;
      rect(out, "pause", c.x(t0), c.x(t1), c.lane_mid(lane), kLaneHeight - 6, "#bbb",
           " fill-opacity=\"0.6\"", "paused " + format_time_ms(t0) + " .. " + format_time_ms(t1));
    }
    for (const Bar& b : sections) {
      if (b.owner != pid) continue;
      const std::string owner = "c" + std::to_string(b.owner) + "/" + std::to_string(b.task);
      rect(out, "critical", c.x(b.from_us), c.x(b.to_us), c.lane_mid(lane), kBarHeight,
           b.red ? kRed : color_of(pid),
           " data-owner=\"" + owner + "\" data-resource=\"" + escape(b.resource) + "\"" +
               (b.red ? " data-violation=\"1\"" : ""),
           owner + " inside " + b.resource + " " + format_time_ms(b.from_us) + " .. " +
               format_time_ms(b.to_us));
    }
    // Writes judged by a FencedResource: the token in a circle, green when
    // accepted, red when rejected as stale.
    for (const HistoryEvent& e : events) {
      if (e.process != pid || e.kind != EventKind::kFencedWrite) continue;
      const bool ok = e.verdict == FenceVerdict::kAccepted;
      const double xe = c.x(e.t_us), y = c.lane_mid(lane) - 14;
      out += "<g class=\"fenced-write\" data-token=\"" + std::to_string(e.value) +
             "\" data-accepted=\"" + (ok ? "1" : "0") + "\"><circle cx=\"" + num(xe) + "\" cy=\"" +
             num(y) + "\" r=\"7\" fill=\"" + (ok ? "#2ca02c" : kRed) + "\"/><text x=\"" + num(xe) +
             "\" y=\"" + num(y + 4) + "\" text-anchor=\"middle\" font-size=\"9\" fill=\"white\">" +
             std::to_string(e.value) + "</text><title>" +
             escape("write to " + e.resource + " with token " + std::to_string(e.value) + ": " +
                    std::string(to_string(e.verdict)) + " at " + format_time_ms(e.t_us)) +
             "</title></g>\n";
    }
    for (size_t i = 0; i < events.size(); ++i) {
      const HistoryEvent& e = events[i];
      if (e.process != pid || e.task != 0) continue;
      const double xe = c.x(e.t_us), y = c.lane_mid(lane);
      if (e.kind == EventKind::kProcessCrash) {
        out += "<path class=\"crash\" d=\"M" + num(xe - 6) + " " + num(y - 6) + " L" + num(xe + 6) +
               " " + num(y + 6) + " M" + num(xe - 6) + " " + num(y + 6) + " L" + num(xe + 6) + " " +
               num(y - 6) + "\" stroke=\"" + kRed + "\" stroke-width=\"3\"><title>" +
               escape("crash (" + e.text + ") at " + format_time_ms(e.t_us)) + "</title></path>\n";
      } else if (e.kind == EventKind::kProcessStart) {
        out += "<circle class=\"start\" cx=\"" + num(xe) + "\" cy=\"" + num(y) +
               "\" r=\"3\" fill=\"#333\"><title>" + escape("start at " + format_time_ms(e.t_us)) +
               "</title></circle>\n";
      } else if (e.kind == EventKind::kProcessEnd) {
        out += "<rect class=\"end\" x=\"" + num(xe - 3) + "\" y=\"" + num(y - 3) +
               "\" width=\"6\" height=\"6\" fill=\"#333\"><title>" +
               escape("end at " + format_time_ms(e.t_us)) + "</title></rect>\n";
      }
    }
    out += "</g>\n";
  }
  for (size_t s = 0; s < servers; ++s) {
    const size_t lane = server_lane(static_cast<int32_t>(s));
    lane_open(lane, "s" + std::to_string(s), "s" + std::to_string(s) + " (Redis)");
    for (const auto& [srv, b] : leases) {
      if (static_cast<size_t>(srv) != s) continue;
      const std::string by = b.owner == 0 ? std::string("?") : "c" + std::to_string(b.owner);
      rect(out, "lease", c.x(b.from_us), c.x(b.to_us), c.lane_mid(lane), kBarHeight,
           b.owner == 0 ? "#999" : color_of(b.owner),
           " fill-opacity=\"0.55\" data-key=\"" + escape(b.resource) + "\" data-owner=\"" + by +
               "\"",
           "key " + b.resource + " set by " + by + ", live " + format_time_ms(b.from_us) + " .. " +
               format_time_ms(b.to_us));
    }
    for (const auto& [srv, t, by, owner, key] : foreign_deletes) {
      if (static_cast<size_t>(srv) != s) continue;
      const double xd = c.x(t), y = c.lane_mid(lane);
      out += "<path class=\"foreign-delete\" d=\"M" + num(xd) + " " + num(y - 9) + " L" +
             num(xd + 6) + " " + num(y) + " L" + num(xd) + " " + num(y + 9) + " L" + num(xd - 6) +
             " " + num(y) + " Z\" fill=\"" + kRed + "\"><title>" +
             escape("c" + std::to_string(by) + " deleted " + key + " while c" +
                    std::to_string(owner) + "'s lease on it was live, at " + format_time_ms(t)) +
             "</title></path>\n";
    }
    out += "</g>\n";
  }

  // Messages: each command from its process's lane to its server's lane,
  // each pub/sub message back.
  if (options.commands) {
    out += "<g class=\"messages\" stroke-width=\"1\">\n";
    for (size_t i = 0; i < events.size(); ++i) {
      const HistoryEvent& e = events[i];
      if ((e.kind != EventKind::kCommand && e.kind != EventKind::kPush) || e.process == 0 ||
          e.server < 0 || !lane_of.contains(e.process)) {
        continue;
      }
      const double xe = c.x(e.t_us);
      const double yp = c.lane_mid(lane_of[e.process]), ys = c.lane_mid(server_lane(e.server));
      const bool red = c.is_red(i);
      const std::string tip = e.kind == EventKind::kCommand
                                  ? format_argv(e.argv, 40) + " -> " + format_reply(e.reply)
                                  : "message on " + e.text + ": " + format_reply(e.reply);
      out += std::string("<line class=\"") + (e.kind == EventKind::kCommand ? "command" : "push") +
             "\" x1=\"" + num(xe) + "\" y1=\"" + num(e.kind == EventKind::kCommand ? yp : ys) +
             "\" x2=\"" + num(xe) + "\" y2=\"" + num(e.kind == EventKind::kCommand ? ys : yp) +
             "\" stroke=\"" + (red ? kRed : (e.kind == EventKind::kCommand ? "#999" : "#2ca02c")) +
             "\" stroke-opacity=\"" + (red ? "1" : "0.5") + "\"><title>" +
             escape(format_time_ms(e.t_us) + " " + tip) + "</title></line>\n";
    }
    out += "</g>\n";
  }

  // Violations: a red line at the first event of each, and the list below.
  const double lanes_bottom = kTop + kLaneHeight * static_cast<double>(lanes);
  for (size_t v = 0; v < options.violations.size(); ++v) {
    const Violation& viol = options.violations[v];
    int64_t t = 0;
    if (!viol.events.empty() && viol.events.back() < events.size()) {
      t = events[viol.events.back()].t_us;
    }
    out += "<line class=\"violation\" data-checker=\"" + escape(viol.checker) + "\" x1=\"" +
           num(c.x(t)) + "\" y1=\"" + num(kTop - 4) + "\" x2=\"" + num(c.x(t)) + "\" y2=\"" +
           num(lanes_bottom) + "\" stroke=\"" + kRed + "\" stroke-width=\"2\"><title>" +
           escape(viol.description) + "</title></line>\n";
    out += "<text class=\"violation-text\" x=\"10\" y=\"" + num(lanes_bottom + 24 + 22.0 * v) +
           "\" fill=\"" + kRed + "\">" +
           escape("violation (" + viol.checker + "): " + viol.description) + "</text>\n";
  }
  // Legend.
  const double ly = lanes_bottom + 24 + 22.0 * static_cast<double>(options.violations.size());
  out += "<g class=\"legend\" font-size=\"11\" fill=\"#444\">\n";
  double lx = 10;
  auto swatch = [&](const std::string& fill, const char* extra) {
    return "<rect x=\"" + num(lx) + "\" y=\"" + num(ly - 5) +
           "\" width=\"14\" height=\"10\" fill=\"" + fill + "\"" + extra + "/>\n";
  };
  auto legend = [&](const std::string& mark, const std::string& text) {
    out += mark;
    out +=
        "<text x=\"" + num(lx + 18) + "\" y=\"" + num(ly + 4) + "\">" + escape(text) + "</text>\n";
    lx += 30 + 6.2 * static_cast<double>(text.size());
  };
  legend(swatch(kPalette[0], ""), "critical section");
  legend(swatch(kPalette[0], " fill-opacity=\"0.55\""),
         "lease of the lock key (colour: who set it)");
  legend(swatch("#bbb", ""), "pause");
  legend("<path d=\"M" + num(lx + 2) + " " + num(ly - 5) + " L" + num(lx + 12) + " " + num(ly + 5) +
             " M" + num(lx + 2) + " " + num(ly + 5) + " L" + num(lx + 12) + " " + num(ly - 5) +
             "\" stroke=\"" + kRed + "\" stroke-width=\"2\"/>\n",
         "crash");
  legend("<path d=\"M" + num(lx + 7) + " " + num(ly - 6) + " L" + num(lx + 12) + " " + num(ly) +
             " L" + num(lx + 7) + " " + num(ly + 6) + " L" + num(lx + 2) + " " + num(ly) +
             " Z\" fill=\"" + kRed + "\"/>\n",
         "a live lease deleted by another client");
  legend(swatch(kRed, ""), "in a violation");
  out += "</g>\n";
  out += "</svg>\n";
  return out;
}

}  // namespace redsim::world
