#include "sim/resp/reply.h"

#include <cmath>
#include <cstdio>
#include <utility>

namespace redsim::resp {

Reply Reply::nil_array() {
  Reply r;
  r.nil_array_ = true;
  return r;
}

constinit const std::vector<Reply> Reply::kNoElements;

void Reply::copy_elements_from(const Reply& other) {
  ::new (&elements_) std::vector<Reply>(other.elements_);
  has_elements_ = true;
}

void Reply::drop_elements() noexcept {
  elements_.~vector();
  has_elements_ = false;
}

Reply Reply::array(std::vector<Reply> elements) { return Reply(Kind::kArray, std::move(elements)); }

Reply Reply::array(std::initializer_list<Reply> elements) {
  return array(std::vector<Reply>(elements));
}

Reply Reply::double_value(double value) {
  Reply r;
  r.kind_ = Kind::kDouble;
  if (std::isinf(value)) {
    r.str_ = value > 0 ? "inf" : "-inf";
  } else if (std::isnan(value)) {
    r.str_ = "nan";
  } else {
    char buf[64];
    const int n = std::snprintf(buf, sizeof buf, "%.17g", value);
    r.str_.assign(buf, static_cast<size_t>(n));
  }
  return r;
}

Reply Reply::double_text(std::string text) {
  Reply r;
  r.kind_ = Kind::kDouble;
  r.str_ = std::move(text);
  return r;
}

Reply Reply::boolean(bool value) {
  Reply r;
  r.kind_ = Kind::kBoolean;
  r.integer_ = value ? 1 : 0;
  return r;
}

Reply Reply::verbatim(std::string_view format, std::string_view text) {
  Reply r;
  r.kind_ = Kind::kVerbatim;
  r.str_.reserve(format.size() + 1 + text.size());
  r.str_.append(format);
  r.str_ += ':';
  r.str_.append(text);
  return r;
}

Reply Reply::big_number(std::string digits) {
  Reply r;
  r.kind_ = Kind::kBigNumber;
  r.str_ = std::move(digits);
  return r;
}

Reply Reply::map(std::vector<Reply> key_values) {
  if (key_values.size() % 2 != 0) key_values.pop_back();
  return Reply(Kind::kMap, std::move(key_values));
}

Reply Reply::set(std::vector<Reply> elements) { return Reply(Kind::kSet, std::move(elements)); }

Reply Reply::push(std::vector<Reply> elements) { return Reply(Kind::kPush, std::move(elements)); }

bool Reply::is_aggregate() const {
  return kind_ == Kind::kArray || kind_ == Kind::kMap || kind_ == Kind::kSet ||
         kind_ == Kind::kPush;
}

bool Reply::has_resp3() const {
  switch (kind_) {
    case Kind::kStatus:
    case Kind::kError:
    case Kind::kInteger:
    case Kind::kBulk:
    case Kind::kNil:
      return false;
    case Kind::kArray:
      for (const Reply& e : elements()) {
        if (e.has_resp3()) return true;
      }
      return false;
    case Kind::kDouble:
    case Kind::kBoolean:
    case Kind::kVerbatim:
    case Kind::kBigNumber:
    case Kind::kMap:
    case Kind::kSet:
    case Kind::kPush:
      return true;
  }
  return false;
}

std::string_view Reply::verbatim_text() const {
  if (kind_ != Kind::kVerbatim) return {};
  std::string_view s = str_;
  const size_t colon = s.find(':');
  return colon == std::string_view::npos ? s : s.substr(colon + 1);
}

Reply to_resp2(Reply reply) {
  switch (reply.kind_) {
    case Kind::kStatus:
    case Kind::kError:
    case Kind::kInteger:
    case Kind::kBulk:
    case Kind::kNil:
      return reply;
    case Kind::kDouble:
    case Kind::kBigNumber:
      reply.kind_ = Kind::kBulk;
      return reply;
    case Kind::kVerbatim:
      return Reply::bulk(std::string(reply.verbatim_text()));
    case Kind::kBoolean:
      reply.kind_ = Kind::kInteger;
      return reply;
    case Kind::kArray:
    case Kind::kMap:
    case Kind::kSet:
    case Kind::kPush:
      // As an array, has_resp3() asks the elements only: a push or map of
      // plain strings (every pub/sub message) is converted by its kind alone.
      reply.kind_ = Kind::kArray;
      if (!reply.has_resp3()) return reply;
      for (Reply& e : reply.elements()) e = to_resp2(std::move(e));
      return reply;
  }
  return reply;
}

std::string_view Reply::error_code() const {
  if (kind_ != Kind::kError) return {};
  std::string_view s = str_;
  return s.substr(0, s.find(' '));
}

bool operator==(const Reply& a, const Reply& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case Kind::kStatus:
    case Kind::kError:
    case Kind::kBulk:
    case Kind::kDouble:
    case Kind::kVerbatim:
    case Kind::kBigNumber:
      return a.str_ == b.str_;
    case Kind::kInteger:
    case Kind::kBoolean:
      return a.integer_ == b.integer_;
    case Kind::kNil:
      return a.nil_array_ == b.nil_array_;
    case Kind::kArray:
    case Kind::kMap:
    case Kind::kSet:
    case Kind::kPush:
      return a.elements() == b.elements();
  }
  return false;
}

namespace {

void append_quoted(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  out += '"';
}

void append_debug(std::string& out, const Reply& r) {
  switch (r.kind()) {
    case Kind::kStatus:
      out += r.str();
      break;
    case Kind::kError:
      out += "(error) " + r.str();
      break;
    case Kind::kInteger:
      out += "(integer) " + std::to_string(r.integer());
      break;
    case Kind::kBulk:
      append_quoted(out, r.str());
      break;
    case Kind::kNil:
      out += r.is_nil_array() ? "(nil array)" : "(nil)";
      break;
    case Kind::kArray:
    case Kind::kSet:
    case Kind::kPush:
      out += r.is_set() ? "~[" : r.is_push() ? ">[" : "[";
      for (size_t i = 0; i < r.elements().size(); ++i) {
        if (i) out += ", ";
        append_debug(out, r.elements()[i]);
      }
      out += ']';
      break;
    case Kind::kMap:
      out += '{';
      for (size_t i = 0; i + 1 < r.elements().size(); i += 2) {
        if (i) out += ", ";
        append_debug(out, r.elements()[i]);
        out += " => ";
        append_debug(out, r.elements()[i + 1]);
      }
      out += '}';
      break;
    case Kind::kDouble:
      out += "(double) " + r.str();
      break;
    case Kind::kBoolean:
      out += r.integer() ? "(true)" : "(false)";
      break;
    case Kind::kVerbatim:
      out += "(verbatim) ";
      append_quoted(out, r.str());
      break;
    case Kind::kBigNumber:
      out += "(big number) " + r.str();
      break;
  }
}

}  // namespace

std::string Reply::debug_string() const {
  std::string out;
  append_debug(out, *this);
  return out;
}

}  // namespace redsim::resp
