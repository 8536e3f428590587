#include "lock/hiredis/hiredis_options.h"

#include <charconv>
#include <stdexcept>

namespace redsim::lock {
namespace {

[[noreturn]] void bad_url(std::string_view url, const std::string& why) {
  throw std::invalid_argument("bad Redis URL '" + std::string(url) + "': " + why);
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(std::string_view url, std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) bad_url(url, "bad percent-escape in user or password");
    const int hi = hex_digit(text[i + 1]);
    const int lo = hex_digit(text[i + 2]);
    if (hi < 0 || lo < 0) bad_url(url, "bad percent-escape in user or password");
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

template <class Int>
bool parse_int(std::string_view text, Int& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

HiredisOptions HiredisOptions::parse_url(std::string_view url) {
  constexpr std::string_view kScheme = "redis://";
  if (url.starts_with("rediss://")) bad_url(url, "TLS (rediss://) is not supported");
  if (url.starts_with("unix://")) bad_url(url, "unix sockets are not supported");
  if (!url.starts_with(kScheme)) bad_url(url, "it must start with redis://");
  std::string_view rest = url.substr(kScheme.size());
  if (rest.find_first_of("?#") != std::string_view::npos) {
    bad_url(url, "query parameters and fragments are not supported");
  }

  HiredisOptions opts;
  // Credentials: everything up to the last '@' (a password may contain '@'
  // only percent-encoded, but be lenient with the split).
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) {
    const std::string_view userinfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    const size_t colon = userinfo.find(':');
    if (colon == std::string_view::npos) {
      // redis://password@host is how redis-cli reads a lone userinfo.
      opts.password = percent_decode(url, userinfo);
    } else {
      opts.user = percent_decode(url, userinfo.substr(0, colon));
      opts.password = percent_decode(url, userinfo.substr(colon + 1));
    }
    if (opts.password.empty()) bad_url(url, "empty password");
  }

  std::string_view hostport = rest;
  if (const size_t slash = rest.find('/'); slash != std::string_view::npos) {
    hostport = rest.substr(0, slash);
    const std::string_view db = rest.substr(slash + 1);
    if (!db.empty() && (!parse_int(db, opts.database) || opts.database < 0)) {
      bad_url(url, "database must be a non-negative integer, got '" + std::string(db) + "'");
    }
  }

  std::string_view port_text;
  if (hostport.starts_with('[')) {
    const size_t close = hostport.find(']');
    if (close == std::string_view::npos) bad_url(url, "unclosed '[' in the IPv6 host");
    opts.host = std::string(hostport.substr(1, close - 1));
    const std::string_view after = hostport.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') bad_url(url, "expected ':port' after the IPv6 host");
      port_text = after.substr(1);
      if (port_text.empty()) bad_url(url, "empty port");
    }
  } else {
    const size_t colon = hostport.find(':');
    opts.host = std::string(hostport.substr(0, colon));
    if (colon != std::string_view::npos) {
      port_text = hostport.substr(colon + 1);
      if (port_text.empty()) bad_url(url, "empty port");
    }
  }
  if (opts.host.empty()) bad_url(url, "missing host");
  if (!port_text.empty()) {
    int port = 0;
    if (!parse_int(port_text, port) || port < 1 || port > 65535) {
      bad_url(url, "port must be 1..65535, got '" + std::string(port_text) + "'");
    }
    opts.port = static_cast<uint16_t>(port);
  }
  return opts;
}

std::string HiredisOptions::url() const {
  const bool v6 = host.find(':') != std::string::npos;
  return "redis://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + "/" +
         std::to_string(database);
}

}  // namespace redsim::lock
