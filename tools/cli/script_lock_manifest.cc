#include "tools/cli/script_lock_manifest.h"

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

namespace redsim::cli {

namespace {

using nlohmann::json;
using std::chrono::milliseconds;

// Reads one manifest; every error names the file and the field.
class Reader {
 public:
  Reader(std::string file, std::filesystem::path dir)
      : file_(std::move(file)), dir_(std::move(dir)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw ManifestError(file_ + ": " + (field.empty() ? "" : field + ": ") + problem);
  }

  static std::string join(const std::string& parent, const std::string& name) {
    return parent.empty() ? name : parent + "." + name;
  }

  static std::string shown(const json& v) {
    std::string text = v.dump();
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return text;
  }

  void only_fields(const json& object, const std::string& field,
                   std::initializer_list<std::string_view> allowed) const {
    for (const auto& [name, value] : object.items()) {
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
        std::string list;
        for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(join(field, name), "unknown field (known here: " + list + ")");
      }
    }
  }

  const json& object_at(const json& parent, const std::string& parent_field,
                        const std::string& name) const {
    const std::string field = join(parent_field, name);
    if (!parent.contains(name)) fail(field, "missing (required)");
    const json& v = parent.at(name);
    if (!v.is_object()) fail(field, "expected an object, got " + shown(v));
    return v;
  }

  // A whole number of milliseconds > 0; nullopt when absent and not required.
  std::optional<milliseconds> positive_ms(const json& parent, const std::string& parent_field,
                                          const std::string& name, bool required) const {
    const std::string field = join(parent_field, name);
    if (!parent.contains(name)) {
      if (required) fail(field, "missing (required): a whole number of milliseconds > 0");
      return std::nullopt;
    }
    const json& v = parent.at(name);
    if (!v.is_number_integer() || v.get<int64_t>() <= 0) {
      fail(field, "expected a whole number of milliseconds > 0, got " + shown(v));
    }
    return milliseconds(v.get<int64_t>());
  }

  std::string string_at(const json& parent, const std::string& parent_field,
                        const std::string& name) const {
    const std::string field = join(parent_field, name);
    if (!parent.contains(name)) fail(field, "missing (required)");
    const json& v = parent.at(name);
    if (!v.is_string()) fail(field, "expected a string, got " + shown(v));
    return v.get<std::string>();
  }

  std::vector<std::string> templates(const json& parent, const std::string& parent_field,
                                     const std::string& name) const {
    const std::string field = join(parent_field, name);
    std::vector<std::string> out;
    if (!parent.contains(name)) return out;
    const json& v = parent.at(name);
    if (!v.is_array()) fail(field, "expected an array of strings, got " + shown(v));
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string at = field + "[" + std::to_string(i) + "]";
      if (!v[i].is_string()) fail(at, "expected a string, got " + shown(v[i]));
      out.push_back(v[i].get<std::string>());
      check(at, out.back());
    }
    return out;
  }

  void check(const std::string& field, const std::string& text) const {
    try {
      lock::check_template(text);
    } catch (const std::invalid_argument& e) {
      fail(field, e.what());
    }
  }

  std::vector<lock::ReplyMatch> replies(const json& parent, const std::string& parent_field,
                                        const std::string& name) const {
    const std::string field = join(parent_field, name);
    const char* kHelp = "\"OK\" (a status), \"nil\" or null, or an integer";
    if (!parent.contains(name)) fail(field, std::string("missing (required): a list of ") + kHelp);
    const json& v = parent.at(name);
    if (!v.is_array() || v.empty()) {
      fail(field, std::string("expected a non-empty list of ") + kHelp + ", got " + shown(v));
    }
    std::vector<lock::ReplyMatch> out;
    for (size_t i = 0; i < v.size(); ++i) {
      const json& r = v[i];
      if (r.is_null() || (r.is_string() && r.get<std::string>() == "nil")) {
        out.push_back(lock::ReplyMatch::nil());
      } else if (r.is_number_integer()) {
        out.push_back(lock::ReplyMatch::integer(r.get<int64_t>()));
      } else if (r.is_string() && !r.get<std::string>().empty()) {
        out.push_back(lock::ReplyMatch::status_text(r.get<std::string>()));
      } else {
        fail(field + "[" + std::to_string(i) + "]",
             std::string("expected ") + kHelp + ", got " + shown(r));
      }
    }
    return out;
  }

  lock::Script script(const json& parent, const std::string& parent_field) const {
    const std::string field = join(parent_field, "script");
    const std::string name = string_at(parent, parent_field, "script");
    if (name.empty()) fail(field, "empty file name");
    const std::filesystem::path path = dir_ / name;
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(field, "cannot read " + path.string());
    std::ostringstream text;
    text << in.rdbuf();
    if (text.str().empty()) fail(field, path.string() + " is empty");
    return lock::Script(name, text.str());
  }

  // One script call; `success` names its list of success replies ("" = none).
  lock::ScriptCall call(const json& v, const std::string& field, const std::string& success,
                        std::initializer_list<std::string_view> allowed) const {
    only_fields(v, field, allowed);
    lock::ScriptCall c;
    c.script = script(v, field);
    c.keys = templates(v, field, "keys");
    c.argv = templates(v, field, "argv");
    if (!success.empty()) c.success = replies(v, field, success);
    return c;
  }

  ScriptLockManifest read(const json& root) const {
    if (!root.is_object()) fail("", "expected a JSON object at the top, got " + shown(root));
    only_fields(root, "",
                {"name", "lease_ms", "command_timeout_ms", "acquire", "release", "renew", "wait"});
    auto spec = std::make_shared<lock::ScriptLockSpec>();
    spec->name = root.contains("name") ? string_at(root, "", "name") : default_name();
    spec->lease = *positive_ms(root, "", "lease_ms", true);
    spec->command_timeout = positive_ms(root, "", "command_timeout_ms", false)
                                .value_or(std::max(milliseconds(1), spec->lease / 2));

    const json& acquire = object_at(root, "", "acquire");
    spec->acquire = call(acquire, "acquire", "acquired",
                         {"script", "keys", "argv", "acquired", "pttl_reply", "then"});
    if (acquire.contains("pttl_reply")) {
      if (!acquire.at("pttl_reply").is_boolean()) {
        fail("acquire.pttl_reply",
             "expected true or false, got " + shown(acquire.at("pttl_reply")));
      }
      spec->acquire_replies_pttl = acquire.at("pttl_reply").get<bool>();
    }
    if (acquire.contains("then")) {
      const json& then = acquire.at("then");
      if (!then.is_array())
        fail("acquire.then", "expected an array of objects, got " + shown(then));
      for (size_t i = 0; i < then.size(); ++i) {
        const std::string field = "acquire.then[" + std::to_string(i) + "]";
        if (!then[i].is_object()) fail(field, "expected an object, got " + shown(then[i]));
        spec->acquire_then.push_back(call(then[i], field, "", {"script", "keys", "argv"}));
      }
    }
    spec->release = call(object_at(root, "", "release"), "release", "released",
                         {"script", "keys", "argv", "released"});
    if (root.contains("renew")) {
      const json& renew = object_at(root, "", "renew");
      spec->renew =
          call(renew, "renew", "renewed", {"script", "keys", "argv", "renewed", "interval_ms"});
      spec->renew_interval = positive_ms(renew, "renew", "interval_ms", false);
    }

    ScriptLockManifest out;
    const json& wait = object_at(root, "", "wait");
    const std::string mode = string_at(wait, "wait", "mode");
    if (mode == "poll") {
      only_fields(wait, "wait", {"mode", "interval_ms", "timeout_ms"});
      const milliseconds interval = *positive_ms(wait, "wait", "interval_ms", true);
      spec->wait = lock::PollWait{interval};
      out.retry_max = interval;
    } else if (mode == "pubsub") {
      only_fields(wait, "wait", {"mode", "channel", "message", "timeout_ms"});
      lock::PubSubWait pubsub;
      pubsub.channel = string_at(wait, "wait", "channel");
      if (pubsub.channel.empty()) fail("wait.channel", "must not be empty");
      check("wait.channel", pubsub.channel);
      if (wait.contains("message")) pubsub.message = string_at(wait, "wait", "message");
      spec->wait = std::move(pubsub);
      out.retry_max = spec->lease;
    } else {
      fail("wait.mode", "expected \"poll\" or \"pubsub\", got " + shown(wait.at("mode")));
    }
    out.attempt_wait = positive_ms(wait, "wait", "timeout_ms", false).value_or(20 * spec->lease);

    // The lock's own checks, in case this reader missed one.
    if (auto problem = lock::spec_problem(*spec)) throw ManifestError(file_ + ": " + *problem);
    out.spec = std::move(spec);
    return out;
  }

 private:
  std::string default_name() const {
    std::filesystem::path p = dir_.lexically_normal();
    if (p.filename().empty()) p = p.parent_path();
    const std::string name = p.filename().string();
    return name.empty() || name == "." ? "script-lock" : name;
  }

  std::string file_;
  std::filesystem::path dir_;
};

}  // namespace

ScriptLockManifest parse_script_lock_manifest(std::string_view json_text, const std::string& file,
                                              const std::filesystem::path& dir) {
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 3, column 5: ...": keep the part
    // after the bracketed id.
    std::string what = e.what();
    const size_t close = what.find("] ");
    if (what.rfind("[json.exception", 0) == 0 && close != std::string::npos) {
      what = what.substr(close + 2);
    }
    throw ManifestError(file + ": not valid JSON: " + what);
  }
  return Reader(file, dir).read(root);
}

ScriptLockManifest load_script_lock_manifest(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / "lock.json";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw ManifestError(dir.string() +
                        ": not a directory (--script-lock takes the directory "
                        "holding lock.json and the scripts)");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ManifestError(file.string() + ": cannot read the manifest");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_script_lock_manifest(text.str(), file.string(), dir);
}

}  // namespace redsim::cli
