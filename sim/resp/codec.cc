#include "sim/resp/codec.h"

#include <charconv>
#include <limits>

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

namespace {

void append_blob(std::string& out, char type, std::string_view data) {
  append_header(out, type, static_cast<int64_t>(data.size()));
  out += data;
  out += "\r\n";
}

}  // namespace

void encode_to(std::string& out, const Reply& r, Protocol protocol) {
  const bool resp3 = protocol == Protocol::kResp3;
  switch (r.kind()) {
    case Kind::kStatus:
      out += '+';
      out += r.str();
      out += "\r\n";
      break;
    case Kind::kError: {
      // A simple error ends at the first CR or LF. An error text holding one
      // (only a RESP3 blob error "!" decodes to such a text) goes out as a
      // blob error in RESP3; RESP2 has none, so there CR and LF become
      // spaces, as Redis's addReplyErrorFormat makes them.
      const std::string_view text = r.str();
      const bool multiline = text.find_first_of("\r\n") != std::string_view::npos;
      if (multiline && resp3) {
        append_blob(out, '!', text);
        break;
      }
      out += '-';
      if (multiline) {
        for (char c : text) out += c == '\r' || c == '\n' ? ' ' : c;
      } else {
        out += text;
      }
      out += "\r\n";
      break;
    }
    case Kind::kInteger:
      append_header(out, ':', r.integer());
      break;
    case Kind::kBulk:
      append_header(out, '$', static_cast<int64_t>(r.str().size()));
      out += r.str();
      out += "\r\n";
      break;
    case Kind::kNil:
      if (resp3) {
        out += "_\r\n";
      } else {
        out += r.is_nil_array() ? "*-1\r\n" : "$-1\r\n";
      }
      break;
    case Kind::kArray:
      append_header(out, '*', static_cast<int64_t>(r.elements().size()));
      for (const Reply& e : r.elements()) encode_to(out, e, protocol);
      break;
    case Kind::kDouble:
      if (resp3) {
        out += ',';
        out += r.str();
        out += "\r\n";
      } else {
        append_blob(out, '$', r.str());
      }
      break;
    case Kind::kBoolean:
      if (resp3) {
        out += r.integer() ? "#t\r\n" : "#f\r\n";
      } else {
        append_header(out, ':', r.integer());
      }
      break;
    case Kind::kVerbatim:
      if (resp3) {
        append_blob(out, '=', r.str());
      } else {
        append_blob(out, '$', r.verbatim_text());
      }
      break;
    case Kind::kBigNumber:
      if (resp3) {
        out += '(';
        out += r.str();
        out += "\r\n";
      } else {
        append_blob(out, '$', r.str());
      }
      break;
    case Kind::kMap:
    case Kind::kSet:
    case Kind::kPush: {
      const size_t n = r.elements().size();
      if (!resp3) {
        append_header(out, '*', static_cast<int64_t>(n));
      } else if (r.is_map()) {
        append_header(out, '%', static_cast<int64_t>(n / 2));
      } else {
        append_header(out, r.is_set() ? '~' : '>', static_cast<int64_t>(n));
      }
      for (const Reply& e : r.elements()) encode_to(out, e, protocol);
      break;
    }
  }
}

std::string encode(const Reply& reply, Protocol protocol) {
  std::string out;
  encode_to(out, reply, protocol);
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
    case '_':
      if (!line.empty()) throw ProtocolError("invalid null");
      out = Reply::nil();
      break;
    case '#':
      if (line != "t" && line != "f") throw ProtocolError("invalid boolean");
      out = Reply::boolean(line == "t");
      break;
    case ',': {
      if (line.empty()) throw ProtocolError("invalid double");
      out = Reply::double_text(std::string(line));
      break;
    }
    case '(':
      if (line.empty()) throw ProtocolError("invalid big number");
      out = Reply::big_number(std::string(line));
      break;
    case '!':
    case '=': {
      if (!parse_int(line, n) || n < 0) throw ProtocolError("invalid blob length");
      const size_t len = static_cast<size_t>(n);
      if (buffer_.size() - p < len + 2) return false;
      if (buffer_.compare(p + len, 2, "\r\n") != 0) throw ProtocolError("blob not terminated");
      std::string data = buffer_.substr(p, len);
      p += len + 2;
      if (type == '!') {
        out = Reply::error(std::move(data));
      } else {
        if (data.size() < 4 || data[3] != ':') throw ProtocolError("invalid verbatim string");
        out =
            Reply::verbatim(std::string_view(data).substr(0, 3), std::string_view(data).substr(4));
      }
      break;
    }
    case '|': {
      // An attribute: its pairs, then the value it annotates, which is the reply.
      if (!parse_int(line, n) || n < 0) throw ProtocolError("invalid attribute length");
      const size_t count = static_cast<size_t>(n) * 2;
      if (count > (buffer_.size() - p) / 3) return false;
      for (size_t i = 0; i < count; ++i) {
        Reply ignored;
        if (!parse(p, ignored, depth + 1)) return false;
      }
      if (!parse(p, out, depth + 1)) return false;
      break;
    }
    case '%':
    case '~':
    case '>':
    case '*': {
      if (!parse_int(line, n) || n < -1) throw ProtocolError("invalid multibulk length");
      if (n == -1) {
        if (type != '*') throw ProtocolError("invalid aggregate length");
        out = Reply::nil_array();
        break;
      }
      if (type == '%') {
        if (n > std::numeric_limits<int64_t>::max() / 2) throw ProtocolError("invalid map length");
        n *= 2;
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
      switch (type) {
        case '%':
          out = Reply::map(std::move(elements));
          break;
        case '~':
          out = Reply::set(std::move(elements));
          break;
        case '>':
          out = Reply::push(std::move(elements));
          break;
        default:
          out = Reply::array(std::move(elements));
      }
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
