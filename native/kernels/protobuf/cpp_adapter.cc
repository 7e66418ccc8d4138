// bench_adapter.h over Google's protobuf C++ (Debian's libprotobuf-dev):
// generated code, parsed with Message::ParseFromArray into an Arena (a fresh
// one per message, or one reused with Reset()), or into one heap message that
// is Clear()ed before each parse (heap=1): how a hot C++ loop without arenas
// decodes, keeping its repeated fields' and strings' capacity from message to
// message.
//
// Built once per parser flavour from copies of descriptor.proto and
// bench.proto put in one package per flavour (PBPEER_PACKAGE, e.g.
// pbpeer_default or pbpeer_tail), so that two flavours can live in one
// process: the generated code of each registers its own files and types.
// A requested type "pkg.Name" is looked up as PBPEER_PACKAGE.Name (the
// benchmark's payload types are all top-level messages).
#include <cstdio>
#include <cstring>
#include <string>

#include <google/protobuf/arena.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/stubs/common.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include "bench_adapter.h"

#ifndef PBPEER_PACKAGE
#error "define PBPEER_PACKAGE"
#endif
#ifndef PBPEER_FLAVOUR
#define PBPEER_FLAVOUR "default parser"
#endif

using google::protobuf::Arena;
using google::protobuf::ArenaOptions;
using google::protobuf::DescriptorPool;
using google::protobuf::Message;
using google::protobuf::MessageFactory;

struct bench_ctx {
  const Message *prototype = nullptr;
  bool reuse = false;
  bool heap = false;
  Arena *arena = nullptr;
  Message *msg = nullptr;
  char *block = nullptr;  // the reused arena's first block
  std::string printed;    // bench_json's and bench_text's, capacity kept
};

static const size_t kBlock = 1 << 20;

extern "C" const char *bench_name(void) {
  static std::string name;
  if (name.empty()) {
    name = "protobuf-c++ " + google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION) +
           " " PBPEER_FLAVOUR;
#if defined(__clang__)
    name += " clang-" + std::to_string(__clang_major__);
#elif defined(__GNUC__)
    name += " gcc-" + std::to_string(__GNUC__);
#endif
  }
  return name.c_str();
}

extern "C" bench_ctx *bench_open(const char *schema, size_t schema_len, const char *type,
                                 const char *options, char *err, size_t errlen) {
  (void)schema, (void)schema_len;  // the generated code carries its schema
  std::string t = type;
  std::string local = PBPEER_PACKAGE "." + t.substr(t.rfind('.') + 1);
  const auto *d = DescriptorPool::generated_pool()->FindMessageTypeByName(local);
  if (!d) {
    snprintf(err, errlen, "no generated type %s", local.c_str());
    return nullptr;
  }
  auto *c = new bench_ctx;
  c->prototype = MessageFactory::generated_factory()->GetPrototype(d);
  std::string opts = options ? options : "";
  size_t pos = 0;
  while (pos < opts.size()) {
    size_t end = opts.find(',', pos);
    if (end == std::string::npos) end = opts.size();
    std::string kv = opts.substr(pos, end - pos);
    pos = end + 1;
    if (kv == "reuse=1") c->reuse = true;
    else if (kv == "heap=1") c->heap = true;
    else if (kv == "reuse=0" || kv == "alias=0" || kv.empty()) continue;
    else {
      snprintf(err, errlen, "option '%s' not supported by %s", kv.c_str(), bench_name());
      delete c;
      return nullptr;
    }
  }
  if (c->heap) {
    c->msg = c->prototype->New();  // no arena: owned here, reused by every decode
  } else if (c->reuse) {
    // like the pbdyn side, which keeps its largest block: a first block the
    // arena reuses after Reset()
    c->block = new char[kBlock];
    ArenaOptions o;
    o.initial_block = c->block;
    o.initial_block_size = kBlock;
    c->arena = new Arena(o);
  }
  return c;
}

extern "C" int bench_decode(bench_ctx *c, const char *buf, size_t n) {
  if (c->heap) {
    c->msg->Clear();
    return c->msg->ParseFromArray(buf, static_cast<int>(n)) ? 0 : 1;
  }
  if (c->reuse) {
    c->arena->Reset();
  } else {
    delete c->arena;  // the previous message's arena
    c->arena = new Arena();
  }
  c->msg = c->prototype->New(c->arena);
  return c->msg->ParseFromArray(buf, static_cast<int>(n)) ? 0 : 1;
}

extern "C" uint64_t bench_digest(bench_ctx *c) {
  if (!c->msg) return 0;
  std::string out;
  if (!c->msg->SerializePartialToString(&out)) return 0;
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : out) h = (h ^ ch) * 1099511628211ull;
  return h ^ (static_cast<uint64_t>(out.size()) << 40);
}

extern "C" void bench_close(bench_ctx *c) {
  if (!c) return;
  if (c->heap) delete c->msg;
  delete c->arena;
  delete[] c->block;
  delete c;
}

// Printing with the default options (JsonPrintOptions(): no whitespace, present
// fields only, JSON names, enums by name): what util::MessageToJsonString and
// TextFormat::PrintToString give a caller who does not set any. The JSON one
// appends, so the string is cleared first, which keeps its capacity.
extern "C" const char *bench_json(bench_ctx *c, size_t *n) {
  c->printed.clear();
  if (!c->msg || !google::protobuf::util::MessageToJsonString(*c->msg, &c->printed).ok())
    return nullptr;
  *n = c->printed.size();
  return c->printed.data();
}

extern "C" const char *bench_text(bench_ctx *c, size_t *n) {
  if (!c->msg || !google::protobuf::TextFormat::PrintToString(*c->msg, &c->printed))
    return nullptr;
  *n = c->printed.size();
  return c->printed.data();
}
