#include "lock/hiredis/reply_conversion.h"

#include <hiredis/hiredis.h>

#include <string>
#include <vector>

#include "lock/errors.h"

namespace redsim::lock {

resp::Reply to_reply(const redisReply& reply) {
  switch (reply.type) {
    case REDIS_REPLY_STRING:
      return resp::Reply::bulk(std::string(reply.str, reply.len));
    case REDIS_REPLY_STATUS:
      return resp::Reply::status(std::string(reply.str, reply.len));
    case REDIS_REPLY_ERROR:
      return resp::Reply::error(std::string(reply.str, reply.len));
    case REDIS_REPLY_INTEGER:
      return resp::Reply::integer(reply.integer);
    case REDIS_REPLY_NIL:
      return resp::Reply::nil();
    case REDIS_REPLY_ARRAY: {
      std::vector<resp::Reply> elements;
      elements.reserve(reply.elements);
      for (size_t i = 0; i < reply.elements; ++i) elements.push_back(to_reply(*reply.element[i]));
      return resp::Reply::array(std::move(elements));
    }
    default:
      throw ProtocolError("hiredis returned an unknown reply type " + std::to_string(reply.type));
  }
}

}  // namespace redsim::lock
