#include "sim/resp/reply.h"

#include <utility>

namespace redsim::resp {

Reply Reply::status(std::string text) {
  Reply r;
  r.kind_ = Kind::kStatus;
  r.str_ = std::move(text);
  return r;
}

Reply Reply::ok() { return status("OK"); }

Reply Reply::error(std::string text) {
  Reply r;
  r.kind_ = Kind::kError;
  r.str_ = std::move(text);
  return r;
}

Reply Reply::integer(int64_t value) {
  Reply r;
  r.kind_ = Kind::kInteger;
  r.integer_ = value;
  return r;
}

Reply Reply::bulk(std::string data) {
  Reply r;
  r.kind_ = Kind::kBulk;
  r.str_ = std::move(data);
  return r;
}

Reply Reply::nil() { return Reply(); }

Reply Reply::nil_array() {
  Reply r;
  r.nil_array_ = true;
  return r;
}

Reply Reply::array(std::vector<Reply> elements) {
  Reply r;
  r.kind_ = Kind::kArray;
  r.elements_ = std::move(elements);
  return r;
}

Reply Reply::array(std::initializer_list<Reply> elements) {
  return array(std::vector<Reply>(elements));
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
      return a.str_ == b.str_;
    case Kind::kInteger:
      return a.integer_ == b.integer_;
    case Kind::kNil:
      return a.nil_array_ == b.nil_array_;
    case Kind::kArray:
      return a.elements_ == b.elements_;
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
      out += '[';
      for (size_t i = 0; i < r.elements().size(); ++i) {
        if (i) out += ", ";
        append_debug(out, r.elements()[i]);
      }
      out += ']';
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
