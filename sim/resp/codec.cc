#include "sim/resp/codec.h"

#include <charconv>

namespace redsim::resp {

namespace {

void append_int(std::string& out, int64_t v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

void append_header(std::string& out, char type, int64_t n) {
  out += type;
  append_int(out, n);
  out += "\r\n";
}

bool parse_int(std::string_view s, int64_t& v) {
  if (s.empty()) return false;
  auto res = std::from_chars(s.data(), s.data() + s.size(), v);
  return res.ec == std::errc() && res.ptr == s.data() + s.size();
}

}  // namespace

void encode_to(std::string& out, const Reply& r) {
  switch (r.kind()) {
    case Kind::kStatus:
      out += '+';
      out += r.str();
      out += "\r\n";
      break;
    case Kind::kError:
      out += '-';
      out += r.str();
      out += "\r\n";
      break;
    case Kind::kInteger:
      append_header(out, ':', r.integer());
      break;
    case Kind::kBulk:
      append_header(out, '$', static_cast<int64_t>(r.str().size()));
      out += r.str();
      out += "\r\n";
      break;
    case Kind::kNil:
      out += r.is_nil_array() ? "*-1\r\n" : "$-1\r\n";
      break;
    case Kind::kArray:
      append_header(out, '*', static_cast<int64_t>(r.elements().size()));
      for (const Reply& e : r.elements()) encode_to(out, e);
      break;
  }
}

std::string encode(const Reply& reply) {
  std::string out;
  encode_to(out, reply);
  return out;
}

std::string encode_command(const std::vector<std::string>& argv) {
  std::string out;
  append_header(out, '*', static_cast<int64_t>(argv.size()));
  for (const std::string& a : argv) {
    append_header(out, '$', static_cast<int64_t>(a.size()));
    out += a;
    out += "\r\n";
  }
  return out;
}

bool Decoder::read_line(size_t& pos, std::string_view& line) {
  size_t end = buffer_.find("\r\n", pos);
  if (end == std::string::npos) return false;
  line = std::string_view(buffer_).substr(pos, end - pos);
  pos = end + 2;
  return true;
}

bool Decoder::parse(size_t& pos, Reply& out, int depth) {
  if (depth > kMaxDepth) throw ProtocolError("nesting too deep");
  if (pos >= buffer_.size()) return false;
  char type = buffer_[pos];
  size_t p = pos + 1;
  std::string_view line;
  if (!read_line(p, line)) return false;
  int64_t n = 0;
  switch (type) {
    case '+':
      out = Reply::status(std::string(line));
      break;
    case '-':
      out = Reply::error(std::string(line));
      break;
    case ':':
      if (!parse_int(line, n)) throw ProtocolError("invalid integer");
      out = Reply::integer(n);
      break;
    case '$': {
      if (!parse_int(line, n) || n < -1) throw ProtocolError("invalid bulk length");
      if (n == -1) {
        out = Reply::nil();
        break;
      }
      size_t len = static_cast<size_t>(n);
      if (buffer_.size() - p < len + 2) return false;
      if (buffer_.compare(p + len, 2, "\r\n") != 0) throw ProtocolError("bulk not terminated");
      out = Reply::bulk(buffer_.substr(p, len));
      p += len + 2;
      break;
    }
    case '*': {
      if (!parse_int(line, n) || n < -1) throw ProtocolError("invalid multibulk length");
      if (n == -1) {
        out = Reply::nil_array();
        break;
      }
      // Every element takes at least 3 bytes ("+\r\n"): until that many
      // have arrived the array is incomplete, and nothing is allocated for
      // elements that may never come ("*999999999999\r\n" alone used to
      // allocate them all; found by resp_decoder_fuzz).
      size_t count = static_cast<size_t>(n);
      if (count > (buffer_.size() - p) / 3) return false;
      std::vector<Reply> elements(count);
      for (Reply& e : elements) {
        if (!parse(p, e, depth + 1)) return false;
      }
      out = Reply::array(std::move(elements));
      break;
    }
    default:
      throw ProtocolError(std::string("unexpected type byte '") + type + "'");
  }
  pos = p;
  return true;
}

std::optional<Reply> Decoder::next() {
  Reply r;
  size_t p = pos_;
  if (!parse(p, r, 0)) return std::nullopt;
  pos_ = p;
  if (pos_ > 4096 && pos_ * 2 > buffer_.size()) {
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
  return r;
}

}  // namespace redsim::resp
